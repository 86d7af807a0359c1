// Kernels of the general hl::dot that no template takes, one per way an operand
// reaches the tensor cores (EmitMmaDot.cpp, EmitDot.cpp). scripts/dot_gpu_check.sh
// compiles them under several configs and compares them with float64 torch on the
// GPU; test/cubin/dot_kernels.json compiles them for sm_90a and sm_80 in CI.
#include <helion/hl.h>

using helion::Tensor;

// out = (q @ kt^T).to(q's dtype) @ v: the first dot's B is a transposed load (kt is
// [N, K]: its contiguous dim is the dot's K), the second dot's A is the first one's
// result in registers.
HELION_KERNEL Tensor dot_chain_t(const Tensor& q, const Tensor& kt, const Tensor& v) {
  auto [m, k] = q.shape<2>();
  auto [n, k2] = kt.shape<2>();
  auto [n2, d] = v.shape<2>();
  HELION_CHECK(k == k2 && n == n2, "dot_chain_t: inner dimensions differ");
  Tensor out = helion::empty({m, d}, q.dtype(), q.device());
  for (auto [tm, td] : hl::tile({m, d})) {
    auto acc = hl::zeros({tm, td}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k)) {
        s = hl::dot(q[tm, tk], kt[tn, tk].transpose(0, 1), s);
      }
      acc = hl::dot(s.to(q.dtype()), v[tn, td], acc);
    }
    out[tm, td] = acc;
  }
  return out;
}

// out = x @ relu(w): B computed from a load (written into shared memory by its
// owners), A a plain load.
HELION_KERNEL Tensor dot_relu_b(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_relu_b: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto b = hl::maximum(w[tk, tn], hl::zeros({tk, tn}, hl::f32)).to(w.dtype());
      acc = hl::dot(x[tm, tk], b, acc);
    }
    out[tm, tn] = acc + 1.0f;
  }
  return out;
}

// out = (x * 0.5).to(x's dtype) @ w + bias: A computed from its load, which the GEMM
// templates run as an A prologue (each k-block of A rewritten before the tensor cores
// read it); a bias added in the epilogue.
HELION_KERNEL Tensor dot_half_a(const Tensor& x, const Tensor& w, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_half_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = (x[tm, tk] * 0.5f).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc + bias[tn];
  }
  return out;
}

// out = x @ w + bias[None, :] with the bias read before the K loop (`auto b = bias[tn];`
// between the accumulator and the loop, as users load epilogue operands early): a value
// of the epilogue, which the GEMM templates evaluate after the loop.
HELION_KERNEL Tensor dot_bias_early(const Tensor& x, const Tensor& w, const Tensor& bias) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_bias_early: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    auto b = bias[tn];
    for (auto tk : hl::tile(k))
      acc = hl::dot(x[tm, tk], w[tk, tn], acc);
    out[tm, tn] = acc + b;
  }
  return out;
}

// out = (1 / x).to(x's dtype) @ w: an A prologue whose value at 0 is infinite, so the
// templates must zero A's elements past K (not apply it to the zero padding).
HELION_KERNEL Tensor dot_recip_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_recip_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = (1.0f / x[tm, tk]).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out[b] = (x[b] * 0.5).to(x's dtype) @ y[b]: the A prologue in a batched matmul (bmm).
HELION_KERNEL Tensor bmm_half_a(const Tensor& x, const Tensor& y) {
  auto [b, m, k] = x.shape<3>();
  auto [b2, k2, n] = y.shape<3>();
  HELION_CHECK(b == b2 && k == k2, "bmm_half_a: batch or inner dimensions differ");
  Tensor out = helion::empty({b, m, n}, x.dtype(), x.device());
  for (auto [tb, tm, tn] : hl::tile({b, m, n}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = (x[tb, tm, tk] * 0.5f).to(x.dtype());
      acc = hl::dot(a, y[tb, tk, tn], acc);
    }
    out[tb, tm, tn] = acc;
  }
  return out;
}

// out = (x * s[:, None]).to(x's dtype) @ w: A computed from its load and a per-row
// scale, an A prologue that reads s at each element's row.
HELION_KERNEL Tensor dot_rowscale_a(const Tensor& x, const Tensor& s, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_rowscale_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto sc = s[tm];
      auto a = (x[tm, tk] * sc[hl::all, hl::newaxis]).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = (x * s[None, :]).to(x's dtype) @ w: A scaled along K, an A prologue that reads
// s at each element's k (A's elements past K read s[K - 1], then become 0).
HELION_KERNEL Tensor dot_colscale_a(const Tensor& x, const Tensor& s, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_colscale_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto sc = s[tk];
      auto a = (x[tm, tk] * sc[hl::newaxis, hl::all]).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = (x * y).to(x's dtype) @ w: A computed from two loads at the same subscripts, an
// A prologue that reads y per element.
HELION_KERNEL Tensor dot_product_a(const Tensor& x, const Tensor& y, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_product_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = (x[tm, tk] * y[tm, tk]).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = (x + (k % 3) / 4).to(x's dtype) @ w: A computed from its load and its K tile's
// index, an A prologue (the index is the element's k).
HELION_KERNEL Tensor dot_index_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_index_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto shift = (tk.index() % 3).to(hl::f32) * 0.25f;
      auto a = (x[tm, tk] + shift[hl::newaxis, hl::all]).to(x.dtype());
      acc = hl::dot(a, w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = tril(x).to(x's dtype) @ w: A lower-triangular (x where k <= row, else 0), an A
// prologue that reads both of A's tile indices.
HELION_KERNEL Tensor dot_tril_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_tril_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto keep = tk.index()[hl::newaxis, hl::all] <= tm.index()[hl::all, hl::newaxis];
      acc = hl::dot(hl::where(keep, x[tm, tk], 0.0f).to(x.dtype()), w[tk, tn], acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = (x * 0.5).to(x's dtype) @ w with the column tiles a loop inside the row tiles'
// grid loop that also sums each row of the product into `rows` (f32, [m]): the loop
// carries the sums, so its tiles run in order inside a row tile's program (no grid
// over both: flatten-grid leaves it) and no template's loop shape matches: the general
// lowering, A computed in registers (its K axis laid out as an mma column axis), B a
// plain load.
HELION_KERNEL Tensor dot_loop_a(const Tensor& x, const Tensor& w, Tensor& rows) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_loop_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    auto total = hl::zeros({tm}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto acc = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot((x[tm, tk] * 0.5f).to(x.dtype()), w[tk, tn], acc);
      out[tm, tn] = acc;
      total = total + hl::sum(acc, 1);
    }
    rows[tm] = total;
  }
  return out;
}

// out = (x * 0.5).to(x's dtype) @ relu(w): both operands computed. A's K cannot be a
// column axis (B's [tk, tn] would hold two), so both are written into shared memory
// by their owners.
HELION_KERNEL Tensor dot_both(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_both: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      auto a = (x[tm, tk] * 0.5f).to(x.dtype());
      auto b = hl::maximum(w[tk, tn], hl::zeros({tk, tn}, hl::f32)).to(w.dtype());
      acc = hl::dot(a, b, acc);
    }
    out[tm, tn] = acc;
  }
  return out;
}

// out = relu(x @ w1 + b1[th]).to(x's dtype) @ w2 + b2[tn]: a two-layer MLP with biases.
// On sm_90a the chain template runs it (the hidden bias read by its activation
// functor, the output bias by its epilogue); elsewhere the general lowering.
HELION_KERNEL Tensor mlp_bias(const Tensor& x, const Tensor& w1, const Tensor& b1,
                              const Tensor& w2, const Tensor& b2) {
  auto [m, k] = x.shape<2>();
  auto [k2, h] = w1.shape<2>();
  auto [h2, n] = w2.shape<2>();
  HELION_CHECK(k == k2 && h == h2, "mlp_bias: inner dimensions differ");
  Tensor out = helion::empty({m, n}, x.dtype(), x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto th : hl::tile(h)) {
      auto s = hl::zeros({tm, th}, hl::f32);
      for (auto tk : hl::tile(k))
        s = hl::dot(x[tm, tk], w1[tk, th], s);
      auto act = hl::maximum(s + b1[th], hl::zeros({tm, th}, hl::f32)).to(x.dtype());
      acc = hl::dot(act, w2[th, tn], acc);
    }
    out[tm, tn] = acc + b2[tn];
  }
  return out;
}

// out[b] = (q[b] @ kt[b]^T).to(q's dtype) @ v[b]: batched chained dots over a grid of
// [tb, tm, te] with a batch tile of block size 1 (one matrix per program). No template
// takes it (a bmm has one dot): the general lowering, in the mma layout.
HELION_KERNEL Tensor bmm_chain_t(const Tensor& q, const Tensor& kt, const Tensor& v) {
  auto [b, m, d] = q.shape<3>();
  auto [b2, n, d2] = kt.shape<3>();
  auto [b3, n2, e] = v.shape<3>();
  HELION_CHECK(b == b2 && b == b3 && d == d2 && n == n2, "bmm_chain_t: shapes differ");
  Tensor out = helion::empty({b, m, e}, q.dtype(), q.device());
  for (auto [tb, tm, te] : hl::tile({b, m, e}, hl::block_size({1, hl::tunable, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, te}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::zeros({tb, tm, tn}, hl::f32);
      for (auto tk : hl::tile(d))
        s = hl::dot(q[tb, tm, tk], kt[tb, tn, tk].transpose(1, 2), s);
      acc = hl::dot(s.to(q.dtype()), v[tb, tn, te], acc);
    }
    out[tb, tm, te] = acc;
  }
  return out;
}

// The same over a grid of [tb, tm] with whole head dims (attention without its
// softmax): batched dots beside no row max are not flash attention; the general
// lowering runs them through shared memory (the head dim is a whole dim, which the
// mma layout does not take as a column).
HELION_KERNEL Tensor bmm_chain_all(const Tensor& q, const Tensor& kt, const Tensor& v) {
  auto [b, m, d] = q.shape<3>();
  auto [b2, n, d2] = kt.shape<3>();
  HELION_CHECK(b == b2 && d == d2, "bmm_chain_all: shapes differ");
  Tensor out = helion::empty({b, m, d}, q.dtype(), q.device());
  for (auto [tb, tm] : hl::tile({b, m}, hl::block_size({1, hl::tunable}))) {
    auto acc = hl::zeros({tb, tm, d}, hl::f32);
    for (auto tn : hl::tile(n)) {
      auto s = hl::dot(q[tb, tm, hl::all], kt[tb, tn, hl::all].transpose(1, 2));
      acc = hl::dot(s.to(q.dtype()), v[tb, tn, hl::all], acc);
    }
    out[tb, tm, hl::all] = acc;
  }
  return out;
}

// out = (x * 0.5).to(x's dtype) @ w written as nested loops: the column tiles a loop
// inside the row tiles' grid loop, with nothing carried from one column tile to the
// next. flatten-grid makes the two one grid loop over (tm, tn), so it runs as the GEMM
// templates' A prologue, as dot_half_a's matmul does.
HELION_KERNEL Tensor dot_nested_a(const Tensor& x, const Tensor& w) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_nested_a: inner dimensions differ");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto tm : hl::tile(m)) {
    for (auto tn : hl::tile(n)) {
      auto acc = hl::zeros({tm, tn}, hl::f32);
      for (auto tk : hl::tile(k))
        acc = hl::dot((x[tm, tk] * 0.5f).to(x.dtype()), w[tk, tn], acc);
      out[tm, tn] = acc;
    }
  }
  return out;
}

// out = the sum over K blocks of 64 of (x[:, kb] @ w[kb, :]) * s[kb]: each block's product
// scaled before it is added (per-block scales, as block-scaled fp8 matmuls apply them).
// The GEMM templates run it with their K-scale mainloop: each block into a part
// accumulator, added times s[kb] (a row factor that reads neither tm nor tn).
HELION_KERNEL Tensor dot_kscale(const Tensor& x, const Tensor& w, const Tensor& s) {
  auto [m, k] = x.shape<2>();
  auto [k2, n] = w.shape<2>();
  HELION_CHECK(k == k2, "dot_kscale: inner dimensions differ");
  HELION_CHECK(s.dim() == 1 && s.size(0) == (k + 63) / 64, "dot_kscale: s must be [cdiv(k, 64)]");
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n})) {
    auto acc = hl::zeros({tm, tn}, hl::f32);
    for (auto tk : hl::tile(k, hl::block_size(64)))
      acc = acc + hl::dot(x[tm, tk], w[tk, tn]) * s[tk.id()];
    out[tm, tn] = acc;
  }
  return out;
}
