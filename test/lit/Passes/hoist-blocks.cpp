// REQUIRES: frontend
// RUN: %helionc compile %examples/cross_entropy.cpp --print-after hoist-blocks --emit ir | FileCheck %s --check-prefix=CE
// RUN: %helionc compile %examples/softmax.cpp --kernel softmax --print-after hoist-blocks --emit ir | FileCheck %s --check-prefix=SM
// RUN: %helionc compile %examples/layer_norm.cpp --print-after hoist-blocks --emit ir | FileCheck %s --check-prefix=LN
// hoist-blocks gives every load and every reduction nested in an expression its
// own `let` (named %_tN), so the emitter materializes each block value once.

// CE: // -----// IR after hoist-blocks //----- //
// CE-NEXT: kernel cross_entropy(
// CE-NEXT:   block_sizes: bs0(tn, hint %n)
// CE-NEXT:   axes: a0(%logits.size(1))
// CE-NEXT:   for %tn in tile(0, %n) block bs0 {
// CE-NEXT:     let %lbl.0 : dtype(labels)[tn] = load %labels[%tn]
// CE-NEXT:     let %_t0.5 : dtype(logits)[tn, a0] = load %logits[%tn, :]
// CE-NEXT:     let %row.1 : f32[tn, a0] = cast<f32>(%_t0.5)
// CE-NEXT:     let %mx.2 : f32[tn] = amax(%row.1, dim=1)
// CE-NEXT:     let %_t1.6 : f32[tn] = sum(exp(sub(%row.1, %mx.2[:, newaxis])), dim=1)
// CE-NEXT:     let %lse.3 : f32[tn] = add(%mx.2, log(%_t1.6))
// A gather stays a single let: its indices are per-element values.
// CE-NEXT:     let %target.4 : dtype(logits)[tn] = load_gather %logits[gather(%tn.index), gather(%lbl.0)]
// CE-NEXT:     store %losses[%tn] = sub(%lse.3, %target.4)
// CE-NEXT:   }

// SM: // -----// IR after hoist-blocks //----- //
// SM-NEXT: kernel softmax(
// SM:          let %e.2 : dtype(x)[tm, a0] = exp(sub(%values.0, %amax.1))
// SM-NEXT:     let %_t0.3 : dtype(x)[tm, 1] = sum(%e.2, dim=1, keepdim)
// SM-NEXT:     store %out[%tm, :] = div(%e.2, %_t0.3)

// LN: // -----// IR after hoist-blocks //----- //
// LN:          let %_t0.5 : dtype(x)[tm, a0] = load %x[%tm, :]
// LN-NEXT:     let %row.0 : f32[tm, a0] = cast<f32>(%_t0.5)
// LN:          let %_t1.6 : dtype(weight)[a0] = load %weight[:]
// LN-NEXT:     let %_t2.7 : dtype(bias)[a0] = load %bias[:]
// LN-NEXT:     store %out[%tm, :] = add(mul(%normalized.4, %_t1.6), %_t2.7)
