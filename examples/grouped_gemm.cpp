// Grouped (jagged, MoE-style) matrix product: the rows of `a` are G groups packed
// back to back, group g being rows offsets[g] .. offsets[g + 1] - 1 (offsets: G + 1
// nondecreasing int32 or int64 entries, offsets[0] = 0, offsets[G] = total_m), and
// each group is multiplied by its own matrix b[g]:
//   out[offsets[g] : offsets[g + 1]] = a[offsets[g] : offsets[g + 1]] @ b[g]
// (torch._grouped_mm(a, b, offs=offsets[1:]), or a loop of torch.mm per group),
// accumulated in float32. An empty group writes nothing. The CUDA backend runs
// this loop nest as the grouped form of the matmul template (docs/gemm.md).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor grouped_gemm(const Tensor& a, const Tensor& b, const Tensor& offsets) {
  auto [total_m, k] = a.shape<2>();
  auto [groups, k2, n] = b.shape<3>();
  HELION_CHECK(k == k2, "grouped_gemm: inner dimensions differ");
  HELION_CHECK(offsets.dim() == 1 && offsets.size(0) == groups + 1,
               "grouped_gemm: offsets must be 1-D with one entry per group plus one");
  Tensor out = helion::empty({total_m, n}, a.dtype(), a.device());
  for (auto g : hl::grid(groups)) {
    auto start = offsets[g];  // 0-d integer blocks: this group's rows
    auto end = offsets[g + 1];
    for (auto tm : hl::tile(start, end)) {
      for (auto tn : hl::tile(n)) {
        auto acc = hl::zeros({tm, tn}, hl::f32);
        for (auto tk : hl::tile(k)) {
          acc = hl::dot(a[tm, tk], b[g, tk, tn], acc);
        }
        out[tm, tn] = acc;  // stores cast to the destination's dtype
      }
    }
  }
  return out;
}
