// Jagged (varlen) row sums: row r of a jagged tensor is values[offsets[r] : offsets[r+1], :]
// (int64 offsets, nondecreasing, offsets[0] = 0), and out[r, :] is the sum of its rows
// (as torch.segment_reduce or a loop of values[a:b].sum(0); an empty row sums to 0).
// The inner loop's bounds are values the kernel loads: hl::tile(start, end).
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor jagged_sum(const Tensor& values, const Tensor& offsets) {
  auto [total, d] = values.shape<2>();
  HELION_CHECK(offsets.dim() == 1 && offsets.size(0) >= 1,
               "jagged_sum: offsets must be 1-D with nrows + 1 entries");
  const int64_t nrows = offsets.size(0) - 1;
  Tensor out = helion::empty({nrows, d}, values.dtype(), values.device());
  for (auto [tr, td] : hl::tile({nrows, d}, hl::block_size({1, hl::tunable}))) {
    auto start = offsets[tr.begin()];  // 0-d i64 blocks: this row's bounds
    auto end = offsets[tr.begin() + 1];
    auto acc = hl::zeros({td}, hl::f32);
    for (auto tk : hl::tile(start, end))
      acc = acc + hl::sum(values[tk, td].to(hl::f32), 0);
    out[tr.begin(), td] = acc;
  }
  return out;
}
