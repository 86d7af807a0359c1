// REQUIRES: frontend
// RUN: %helionc compile %examples/layer_norm.cpp --print-after infer-types --emit ir | FileCheck %s --check-prefix=LN
// RUN: %helionc compile %examples/add.cpp --print-after infer-types --emit ir | FileCheck %s --check-prefix=ADD
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax_two_pass --print-after infer-types --emit ir | FileCheck %s --check-prefix=TWO
// infer-types gives each value a dtype (a parameter's dtype(x) until instantiation,
// f32 after .to(hl::f32), promote(a, b) for mixed operands) and a shape of tiles,
// reduction axes (one per full-slice dim: a0 = x.size(1)) and kept dims (1).

// LN: // -----// IR after infer-types //----- //
// LN-NOT: IR after
// LN-NEXT: kernel layer_norm(%x: tensor<rank 2>, %weight: tensor, %bias: tensor, %eps: f64, %m: i64 captured, %out: tensor<rank 2> captured)
// LN-NEXT:   block_sizes: bs0(tm, hint %m)
// LN-NEXT:   axes: a0(%x.size(1))
// LN-NEXT:   for %tm in tile(0, %m) block bs0 {
// LN-NEXT:     let %row.0 : f32[tm, a0] = cast<f32>(load %x[%tm, :])
// LN-NEXT:     let %mean.1 : f32[tm, 1] = mean(%row.0, dim=1, keepdim)
// LN-NEXT:     let %centered.2 : f32[tm, a0] = sub(%row.0, %mean.1)
// LN-NEXT:     let %var.3 : f32[tm, 1] = mean(mul(%centered.2, %centered.2), dim=1, keepdim)
// LN-NEXT:     let %normalized.4 : f32[tm, a0] = mul(%centered.2, rsqrt(add(%var.3, %eps)))
// LN-NEXT:     store %out[%tm, :] = add(mul(%normalized.4, load %weight[:]), load %bias[:])
// LN-NEXT:   }
// The frontend's IR (--emit ir) follows, untyped.
// LN-NEXT: kernel layer_norm(
// LN-NOT: axes:
// LN:     let %row.0 = cast<f32>(load %x[%tm, :])

// A flat tile over out.sizes() has no axes: the whole tensor is one flat index.
// ADD: // -----// IR after infer-types //----- //
// ADD-NEXT: kernel add(%x: tensor, %y: tensor, %out: tensor captured)
// ADD-NEXT:   block_sizes: bs0(tile, hint %out.size(-1))
// ADD-NEXT:   for %tile in tile(0, %out.size(-1)) flat(%out) block bs0 {
// ADD-NEXT:     store %out[flat(%tile)] = add(load %x[flat(%tile)], load %y[flat(%tile)])
// ADD-NEXT:   }

// Loop-carried values keep their declared type; updates promote with the loaded dtype.
// TWO: // -----// IR after infer-types //----- //
// TWO-NEXT: kernel softmax_two_pass(
// TWO-NEXT:   block_sizes: bs0(block_m, hint %m) bs1(block_n, hint %n)
// TWO-NEXT:   for %tm in tile(0, %m) block bs0 {
// TWO-NEXT:     let %mi.0 : f32[tm] = full([tm], -inf, f32)
// TWO-NEXT:     let %di.1 : f32[tm] = full([tm], 0.0, f32)
// TWO-NEXT:     for %tn in tile(0, %n) block bs1 {
// TWO-NEXT:       let %values.2 : dtype(x)[tm, tn] = load %x[%tm, %tn]
// TWO-NEXT:       let %mi_next.3 : promote(f32, dtype(x))[tm] = maximum(%mi.0, amax(%values.2, dim=1))
// TWO-NEXT:       %di.1 : {{.*}}[tm] = add(
// TWO-NEXT:       %mi.0 : promote(f32, dtype(x))[tm] = %mi_next.3
// TWO-NEXT:     }
// TWO-NEXT:     for %tn in tile(0, %n) block bs1 {
// TWO-NEXT:       let %values.4 : dtype(x)[tm, tn] = load %x[%tm, %tn]
