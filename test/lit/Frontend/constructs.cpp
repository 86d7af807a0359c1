// REQUIRES: frontend
// RUN: %helionc compile %s --emit ir | FileCheck %s
// Language constructs beyond the examples, one kernel each.
#include <helion/hl.h>

using helion::Tensor;

// CHECK-LABEL: kernel grid_rows(%x: tensor<rank 2>, %scale: f32, %flag: b8, %m: i64 captured, %n: i64 captured, %out: tensor<rank 2> captured)
// CHECK-NEXT:   block_sizes: bs0(tn, fixed 32, hint sub(%n, 4))
// CHECK-NEXT:   for %i in grid(0, %m) {
// CHECK-NEXT:     for %tn in tile(4, %n) block bs0 {
// CHECK-NEXT:       let %v.0 = load %x[%i.begin, %tn]
// CHECK-NEXT:       %v.0 = mul(%v.0, %scale)
// CHECK-NEXT:       let %w.1 = where(gt(%v.0, 0), %v.0, neg(%v.0))
// CHECK-NEXT:       store %out[%i.begin, %tn] = add(load %out[%i.begin, %tn], %w.1)
// CHECK-NEXT:     }
// CHECK-NEXT:   }
HELION_KERNEL Tensor grid_rows(const Tensor& x, float scale, bool flag) {
  auto [m, n] = x.shape<2>();
  Tensor out = helion::zeros({m, n}, x.dtype(), x.device());
  for (auto i : hl::grid(m)) {
    for (auto tn : hl::tile(4, n, hl::block_size(32))) {
      auto v = x[i, tn];
      v *= scale;
      auto w = hl::where(v > 0, v, -v);
      out[i, tn] += w;
    }
  }
  return out;
}

// CHECK-LABEL: kernel attrs(%x: tensor, %lo: i64 captured, %n: i64 captured, %k: i32 captured specialized, %out: tensor<rank 1> captured)
// CHECK-NEXT:   block_sizes: bs0(block, hint 128){{$}}
// CHECK-NEXT:   for %t in tile(%lo, %n) block bs0 {
// CHECK-NEXT:     let %b.0 = add(%t.begin, %t.block_size)
// CHECK-NEXT:     let %e.1 = sub(%t.end, %t.id)
// CHECK-NEXT:     let %r.2 = arange([16])
// CHECK-NEXT:     let %idx.3 = %t.index
// CHECK-NEXT:     let %s.4 = mul(%x.size(0), cast<f32>(%k))
// CHECK-NEXT:     store_scatter %out[gather(%idx.3)] = load_gather %x[gather(%idx.3)] mask lt(%idx.3, %n)
// CHECK-NEXT:   }
HELION_KERNEL Tensor attrs(const Tensor& x) {
  int64_t n = x.size(0);
  int64_t lo = 1;
  Tensor out = helion::empty({n}, x.dtype(), x.device());
  int64_t block = hl::register_block_size(16, 128);
  int k = hl::specialize(2);
  for (auto t : hl::tile(lo, n, hl::block_size(block))) {
    auto b = t.begin() + t.block_size();
    auto e = t.end() - t.id();
    auto r = hl::arange(16);
    auto idx = t.index();
    auto s = x.size(0) * static_cast<float>(k);
    hl::store(out, {idx}, hl::load(x, {idx}), idx < n);
  }
  return out;
}
