// Every construct of the language in HELION_KERNEL functions, run in ref mode. The
// refmode_coverage_compilers test builds this file with g++ and clang++-19
// (-std=c++23) and runs both binaries; main returns non-zero on a wrong result.
#include <helion/hl.h>

#include <cstdio>
#include <tuple>

using helion::Tensor;

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::printf("FAIL: %s\n", what);
    ++failures;
  }
}
double at(const Tensor& t, int64_t k) {
  return helion::detail::loadFloat(static_cast<const char*>(t.data_ptr()) + k * t.element_size(),
                                   t.dtype());
}
} // namespace

// Pointwise, creation, views, reductions, where, .to, tile(begin, end), scalars.
HELION_KERNEL Tensor pointwise(const Tensor& x, double alpha, int64_t shift, bool flag) {
  auto [m, n] = x.shape<2>();
  HELION_CHECK(n > 0, "pointwise: empty rows in {}", x.sizes());
  Tensor out = helion::empty({m, n}, hl::f32, x.device());
  for (auto tm : hl::tile(0, m)) {
    auto v = x[tm, hl::all].to(hl::f32);
    auto a = hl::exp(v) + hl::log(hl::abs(v) + 1) - hl::sqrt(hl::abs(v)) * hl::rsqrt(v * v + 1);
    auto b = hl::tanh(v) / 2 + hl::sigmoid(-v) * alpha + shift;
    auto c = hl::where(v > 0.5, hl::maximum(a, b), hl::minimum(a, 1.0));
    auto d = flag ? c : -c;
    auto r = d - hl::mean(d, 1, true) + hl::amax(d, 1)[hl::all, hl::newaxis] * 0 +
             hl::amin(d, -1, true) * 0 + hl::sum(d, 1, false)[hl::all, hl::newaxis] * 0;
    auto z = hl::zeros({tm, n}, hl::f32) + hl::full({tm, 1}, 0.0, hl::f32) +
             hl::arange(n).to(hl::f32)[hl::newaxis, hl::all] * 0;
    out[tm, hl::all] = (r + z).transpose(0, 1).transpose(1, 0).reshape({tm, n});
  }
  return out;
}

// tile({m, n}, block_size), register_block_size, specialize, grid, tile ids/indices,
// integer subscripts, compound assignment.
HELION_KERNEL std::tuple<Tensor, Tensor> tiles(const Tensor& x) {
  auto [m, n] = x.shape<2>();
  int64_t bn = hl::register_block_size(n);
  int64_t bm = hl::register_block_size(1, 8);
  int64_t ns = hl::specialize(n);
  Tensor ids = helion::zeros({m, ns}, hl::i64, x.device());
  Tensor rows = helion::empty({m}, hl::f32, x.device());
  for (auto [tm, tn] : hl::tile({m, n}, hl::block_size({bm, bn}))) {
    auto i = tm.index()[hl::all, hl::newaxis] * n + tn.index()[hl::newaxis, hl::all];
    ids[tm, tn] = i + tm.id() * 0 + tn.block_size() * 0 + (tm.end() - tm.begin()) * 0;
  }
  for (int64_t i : hl::grid(m)) {
    auto acc = hl::zeros({1}, hl::f32);
    for (auto tn : hl::tile(n, hl::block_size(hl::tunable)))
      acc += hl::sum(x[i, tn].to(hl::f32), 0)[hl::newaxis];
    rows[hl::Tile(i, i + 1, 1, i)] = acc;
  }
  return {ids, rows};
}

// Gathers: a subscript with an index block, hl::load / hl::store with masks.
HELION_KERNEL void gathers(const Tensor& table, const Tensor& idx, Tensor& out) {
  auto [n] = idx.shape<1>();
  auto [v, e] = table.shape<2>();
  for (auto tb : hl::tile(n)) {
    auto rows = table[idx[tb], hl::all];  // [tb, e]
    auto first = hl::load(table, {idx[tb], 0});
    auto ok = idx[tb] < v - 1;
    auto next = hl::load(table, {idx[tb] + 1, 0}, ok);
    out[tb, hl::all] = rows * 0 + (first + next)[hl::all, hl::newaxis];
    hl::store(out, {tb.index(), 0}, first * 0 - 1, ok == false);
  }
}

// Matrix products: dot(a, b), dot(a, b, acc), addmm on 2-D and batched 3-D blocks.
HELION_KERNEL Tensor products(const Tensor& a, const Tensor& b) {
  auto [bt, m, k] = a.shape<3>();
  auto n = b.size(2);
  Tensor out = helion::empty({bt, m, n}, a.dtype(), a.device());
  for (auto [tb, tm, tn] : hl::tile({bt, m, n}, hl::block_size({1, 16, 16}))) {
    auto acc = hl::zeros({tb, tm, tn}, hl::f32);
    for (auto tk : hl::tile(k)) {
      acc = hl::dot(a[tb, tm, tk], b[tb, tk, tn], acc);
      auto two = hl::addmm(hl::zeros({tm, tn}), a[tb, tm, tk][0], b[tb, tk, tn][0]);
      auto one = hl::dot(a[tb, tm, tk][0], b[tb, tk, tn][0]);
      acc = acc + (two - one)[hl::newaxis] * 0;
    }
    out[tb, tm, tn] = acc;
  }
  return out;
}

// hl::tile(x.sizes()) with x[tile], in f16 and bf16.
HELION_KERNEL Tensor scale(const Tensor& x, float s) {
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(x.sizes()))
    out[tile] = (x[tile] * s).to(x.dtype());
  return out;
}

// Jagged loop bounds (0-d blocks, a tile and a grid), scans and hl::rand.
HELION_KERNEL Tensor jagged(const Tensor& values, const Tensor& offsets, int64_t seed) {
  const int64_t rows = offsets.size(0) - 1;
  Tensor out = helion::zeros({rows, 3}, hl::f32, values.device());
  for (int64_t r : hl::grid(rows)) {
    auto start = offsets[r];
    auto acc = hl::zeros({3}, hl::f32);
    for (auto tk : hl::tile(start, offsets[r + 1]))
      acc = acc + hl::sum(hl::cumsum(values[tk], 0)[hl::all, hl::newaxis] *
                              hl::full({3}, 1.0, hl::f32)[hl::newaxis, hl::all], 0);
    for (int64_t i : hl::grid(start, start + 1))
      acc = acc + hl::cumprod(hl::rand(seed, hl::arange(3) + i), 0) * 0;
    out[r, hl::all] = acc;
  }
  return out;
}

int main() {
  try {
    for (int64_t bs : {1, 7, 64}) {
      helion::ref::ScopedBlockSize scoped(bs);
      Tensor x = helion::zeros({5, 9}, hl::f16);
      Tensor p = pointwise(x, 0.5, 2, true);
      expect(std::fabs(at(p, 0)) < 1e-6, "pointwise centres rows");

      Tensor y = helion::zeros({3, 10}, hl::bf16);
      for (int64_t k = 0; k < 30; ++k)
        helion::detail::storeFloat(static_cast<char*>(y.data_ptr()) + 2 * k, hl::bf16, k % 10);
      auto [ids, rows] = tiles(y);
      expect(at(ids, 29) == 29 && at(ids, 13) == 13, "tile ids");
      expect(at(rows, 2) == 45, "grid row sums");

      Tensor table = helion::zeros({4, 3}, hl::f32);
      for (int64_t k = 0; k < 4; ++k)
        helion::detail::storeFloat(static_cast<char*>(table.data_ptr()) + 12 * k, hl::f32, k);
      Tensor idx = helion::zeros({3}, hl::i32);
      helion::detail::storeInt(static_cast<char*>(idx.data_ptr()) + 4, hl::i32, 3);
      Tensor out = helion::zeros({3, 3}, hl::f32);
      gathers(table, idx, out);
      expect(at(out, 0) == 1 && at(out, 3) == -1 && at(out, 4) == 3, "gathers");

      Tensor a = helion::zeros({2, 20, 18}, hl::f32), b = helion::zeros({2, 18, 21}, hl::f32);
      Tensor c = products(a, b);
      expect(c.sizes() == std::vector<int64_t>({2, 20, 21}) && at(c, 7) == 0, "products");

      Tensor vals = helion::zeros({4}, hl::f32), offs = helion::zeros({3}, hl::i64);
      for (int64_t k = 0; k < 4; ++k)
        helion::detail::storeFloat(static_cast<char*>(vals.data_ptr()) + 4 * k, hl::f32, 1);
      helion::detail::storeInt(static_cast<char*>(offs.data_ptr()) + 8, hl::i64, 1);
      helion::detail::storeInt(static_cast<char*>(offs.data_ptr()) + 16, hl::i64, 4);
      Tensor j = jagged(vals, offs, 7);
      // row 1 covers values[1:4]: with one tile, cumsum 1 2 3 sums to 6; tiles of 1 give 3
      expect(at(j, 0) == 1 && (at(j, 3) == 6 || bs < 3) && at(j, 5) == at(j, 3), "jagged");

      Tensor h = scale(helion::zeros({3, 2, 5}, hl::f16), 2.0f);
      expect(h.dtype() == hl::f16 && at(h, 29) == 0, "scale");
    }
    bool threw = false;
    try {
      pointwise(helion::zeros({2, 0}, hl::f32), 1.0, 0, false);
    } catch (const helion::Error& e) {
      threw = std::string(e.what()).find("pointwise: empty rows in [2, 0]") == 0;
    }
    expect(threw, "HELION_CHECK");
  } catch (const std::exception& e) {
    std::printf("FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }
  std::printf(failures ? "coverage: FAILED\n" : "coverage: OK\n");
  return failures ? 1 : 0;
}
