// Helpers shared by the ref-mode tests: seeded random tensors, reading any tensor
// back as doubles, and closeness checks that report the worst element.
#pragma once

#include <helion/hl.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace reftest {

/// A fresh seed per run (printed by the caller with INFO so a failure can be replayed).
inline uint64_t freshSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

/// Uniform values in [lo, hi) stored as `dtype` (rounded to nearest even).
inline helion::Tensor randomTensor(const std::vector<int64_t>& sizes, helion::DType dtype,
                                   std::mt19937_64& rng, double lo = -1.0, double hi = 1.0) {
  helion::Tensor t = helion::empty(sizes, dtype);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (int64_t k = 0; k < t.numel(); ++k)
    helion::detail::storeFloat(p + k * t.element_size(), dtype, dist(rng));
  return t;
}

/// Integers in [0, n) stored as `dtype`.
inline helion::Tensor randomIndices(const std::vector<int64_t>& sizes, int64_t n,
                                    helion::DType dtype, std::mt19937_64& rng) {
  helion::Tensor t = helion::empty(sizes, dtype);
  std::uniform_int_distribution<int64_t> dist(0, n - 1);
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (int64_t k = 0; k < t.numel(); ++k)
    helion::detail::storeInt(p + k * t.element_size(), dtype, dist(rng));
  return t;
}

/// Every element in row-major order as a double, whatever the strides and dtype.
inline std::vector<double> values(const helion::Tensor& t) {
  std::vector<double> out;
  std::vector<int64_t> index(t.dim(), 0);
  const auto* base = static_cast<const unsigned char*>(t.data_ptr());
  for (int64_t k = 0; k < t.numel(); ++k) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d)
      offset += index[d] * t.stride(d);
    out.push_back(helion::detail::loadFloat(base + offset * t.element_size(), t.dtype()));
    for (int64_t d = t.dim(); d-- > 0;) {
      if (++index[d] < t.size(d))
        break;
      index[d] = 0;
    }
  }
  return out;
}

/// Tolerances per output dtype: an f16/bf16 output carries one rounding of its own.
struct Tolerance {
  double rtol, atol;
};
inline Tolerance toleranceFor(helion::DType d, double f32Tol = 1e-5) {
  switch (d) {
  case helion::DType::f16: return {2e-3, 2e-3};
  case helion::DType::bf16: return {1.6e-2, 1.6e-2};
  default: return {f32Tol, f32Tol};
  }
}

/// Checks |actual - expected| <= atol + rtol * |expected| everywhere (NaN fails) and
/// reports the worst element.
inline void requireClose(const std::vector<double>& actual, const std::vector<double>& expected,
                         Tolerance tol) {
  REQUIRE(actual.size() == expected.size());
  size_t worst = 0;
  double worstExcess = -1;
  size_t bad = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    double err = std::fabs(actual[i] - expected[i]);
    double allowed = tol.atol + tol.rtol * std::fabs(expected[i]);
    double excess = std::isnan(err) ? INFINITY : err - allowed;
    if (excess > 0)
      ++bad;
    if (excess > worstExcess || i == 0) {
      worstExcess = excess;
      worst = i;
    }
  }
  std::ostringstream msg;
  if (!actual.empty())
    msg << bad << " of " << actual.size() << " elements out of tolerance; worst at " << worst
        << ": got " << actual[worst] << ", expected " << expected[worst];
  INFO(msg.str());
  CHECK(bad == 0);
}

/// Bitwise-equal outputs (for kernels whose results must not depend on block size).
inline void requireIdentical(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differing += !(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])));
  INFO(differing << " of " << a.size() << " elements differ between block sizes");
  CHECK(differing == 0);
}

inline const char* name(helion::DType d) { return helion::dtype_name(d).data(); }

} // namespace reftest
