// Integer arithmetic of the language: bitwise `& | ^ ~`, shifts and `%` on integer
// tensors (i32, i64). Hashes each value into one of `buckets` buckets (a feature-
// hashing step): mix the bits, keep 31 of them, take the remainder.
#include <helion/hl.h>

using helion::Tensor;

HELION_KERNEL Tensor hash_bucket(const Tensor& x, int64_t buckets) {
  HELION_CHECK(buckets > 0, "hash_bucket: buckets must be positive, got {}", buckets);
  Tensor out = helion::empty_like(x);
  for (auto tile : hl::tile(out.sizes())) {
    auto v = x[tile];
    auto h = v ^ (v >> 7);
    h = (h << 3) ^ ~h;
    h = (h | 1) & 0x7fffffff;
    out[tile] = h % buckets;
  }
  return out;
}
