//===- harness.h - Shared code of the generated fuzz harnesses -------------===//
//
// fuzz.py writes one harness .cpp per batch of generated kernels. In ref mode
// (HELION_FUZZ_GPU undefined) it runs every kernel on the CPU under two block
// sizes and checks that the results agree (ref mode's results must not depend on
// block sizes). With HELION_FUZZ_GPU it runs the ref-mode kernel (the original
// source) and the compiled one (the .helion.cpp of each config) on the same fresh
// random inputs, outputs poisoned (NaN), and compares with a tolerance by dtype
// (or one per output: the attention template's out and lse).
// A harness calls each kernel qualified (refk::k_5, v0::k_5) with its arguments by
// position, from locals named after the parameters' roles (in_x0, in_s): a kernel whose
// parameters gen_names.py renamed (pid, M, R, ...) meets none of these names.
// Each line printed is `ok|FAIL CASE SHAPE detail`; main returns 1 on a failure.
//===----------------------------------------------------------------------===//
#pragma once
#include <helion/hl.h>
#ifdef HELION_FUZZ_GPU
#include <helion/hl/dlpack.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/CudaBackend.h>
#include <helion/runtime/Generated.h>

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace fuzz {

using helion::DType;
using helion::Tensor;

inline std::vector<Tensor> outs(const Tensor& t) { return {t}; }
template <class... Ts> std::vector<Tensor> outs(const std::tuple<Ts...>& t) {
  return std::apply([](const auto&... x) { return std::vector<Tensor>{x...}; }, t);
}

inline double get(const Tensor& t, int64_t i) {
  return helion::detail::loadFloat(static_cast<const char*>(t.data_ptr()) + i * t.element_size(),
                                   t.dtype());
}
inline void set(Tensor& t, int64_t i, double v) {
  helion::detail::storeFloat(static_cast<char*>(t.data_ptr()) + i * t.element_size(), t.dtype(), v);
}

struct Runner {
  std::mt19937_64 rng;
  int failures = 0, checks = 0, rejected = 0;
  FILE* log = nullptr; // JSON lines of failures

  explicit Runner(uint64_t seed) : rng(seed) {}

  /// Uniform in [-2, 2], rounded to the tensor's dtype.
  Tensor rand(std::vector<int64_t> sizes, DType dt) {
    Tensor t = helion::empty(sizes, dt);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int64_t i = 0; i < t.numel(); ++i) set(t, i, u(rng));
    return t;
  }
  /// Integers in [0, v).
  Tensor index(std::vector<int64_t> sizes, int64_t v, DType dt) {
    Tensor t = helion::empty(sizes, dt);
    std::uniform_int_distribution<int64_t> u(0, v - 1);
    for (int64_t i = 0; i < t.numel(); ++i)
      helion::detail::storeInt(static_cast<char*>(t.data_ptr()) + i * t.element_size(), dt, u(rng));
    return t;
  }

  /// g + 1 group offsets from 0 to m, nondecreasing (groups of random sizes, some
  /// empty): every row of [0, m) in exactly one group.
  Tensor offsets(int64_t g, int64_t m, DType dt) {
    std::vector<int64_t> cuts(static_cast<size_t>(g - 1));
    std::uniform_int_distribution<int64_t> u(0, m);
    for (auto& c : cuts) c = u(rng);
    std::sort(cuts.begin(), cuts.end());
    Tensor t = helion::empty({g + 1}, dt);
    auto put = [&](int64_t i, int64_t v) {
      helion::detail::storeInt(static_cast<char*>(t.data_ptr()) + i * t.element_size(), dt, v);
    };
    put(0, 0);
    for (int64_t i = 1; i < g; ++i) put(i, cuts[static_cast<size_t>(i - 1)]);
    put(g, m);
    return t;
  }

  static double tolerance(DType dt) {
    return dt == DType::f32 ? 1e-4 : dt == DType::f16 ? 1e-2 : 3e-2;
  }

  /// got vs want, element by element: |g - w| <= tol * (|w| + max(1, max|want| / 16)).
  /// Both NaN (an element neither side wrote) is a match; one NaN is not.
  void compare(const std::string& id, const std::string& shape, const std::vector<Tensor>& want,
               const std::vector<Tensor>& got, double tol) {
    compare(id, shape, want, got, std::vector<double>(want.size(), tol));
  }

  /// As above with a tolerance per output (tols[o]; the last one for the rest).
  void compare(const std::string& id, const std::string& shape, const std::vector<Tensor>& want,
               const std::vector<Tensor>& got, const std::vector<double>& tols) {
    std::string detail;
    if (want.size() != got.size())
      detail = "different number of outputs";
    for (size_t o = 0; o < want.size() && detail.empty(); ++o) {
      const double tol = tols.empty() ? 0.0 : tols[std::min(o, tols.size() - 1)];
      Tensor w = want[o].cpu(), g = got[o].cpu();
      if (w.sizes() != g.sizes() || w.dtype() != g.dtype()) {
        detail = "output " + std::to_string(o) + ": shape or dtype differs";
        break;
      }
      double scale = 1;
      for (int64_t i = 0; i < w.numel(); ++i)
        if (std::isfinite(get(w, i)))
          scale = std::max(scale, std::abs(get(w, i)) / 16);
      int64_t bad = 0, first = -1;
      double worst = 0;
      for (int64_t i = 0; i < w.numel(); ++i) {
        double a = get(w, i), b = get(g, i);
        bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                  std::abs(a - b) <= tol * (std::abs(a) + scale);
        if (!ok) {
          if (first < 0)
            first = i;
          ++bad;
          worst = std::max(worst, std::isnan(a - b) ? INFINITY : std::abs(a - b));
        }
      }
      if (bad) {
        char buf[256];
        std::snprintf(buf, sizeof buf,
                      "output %zu: %lld of %lld elements differ, first at %lld: want %g got %g, "
                      "max abs diff %g",
                      o, (long long)bad, (long long)w.numel(), (long long)first, get(w, first),
                      get(g, first), worst);
        detail = buf;
      }
    }
    report(id, shape, detail);
  }

  void report(const std::string& id, const std::string& shape, const std::string& detail) {
    ++checks;
    bool ok = detail.empty();
    failures += !ok;
    std::printf("%s %s %s %s\n", ok ? "ok" : "FAIL", id.c_str(), shape.c_str(), detail.c_str());
    if (!ok && log) {
      std::string d;
      for (char c : detail)
        d += (c == '"' || c == '\\') ? '\'' : (c == '\n' ? ' ' : c);
      std::fprintf(log, "{\"case\":\"%s\",\"shape\":\"%s\",\"detail\":\"%s\"}\n", id.c_str(),
                   shape.c_str(), d.c_str());
      std::fflush(log);
    }
    std::fflush(stdout);
  }

  /// Runs f, reporting an exception as a failure of `id`. A config that the kernel's
  /// instantiation rejects with helionc's static_assert (only known once the dtypes are:
  /// the general dot's blocks past 48 KB when its operands are staged as f32) is a
  /// diagnostic, as helionc's own rejections are: printed `rejected`, not a failure.
  template <class F> void guard(const std::string& id, const std::string& shape, F f) {
    try {
      f();
    } catch (const std::exception& e) {
      std::string what = e.what();
      if (what.find("static assertion failed with") != std::string::npos &&
          what.find("helionc: ") != std::string::npos) {
        ++rejected;
        std::printf("rejected %s %s %s\n", id.c_str(), shape.c_str(), what.substr(0, 300).c_str());
        std::fflush(stdout);
        return;
      }
      report(id, shape, "exception: " + what.substr(0, 400));
    }
  }
};

#ifdef HELION_FUZZ_GPU
inline Tensor gpu(const Tensor& t) { return t.to(helion::Device::cuda()); }
/// Every new device allocation filled with 0xFF bytes (NaN for floats): an output
/// element the kernel forgets to write fails the comparison.
inline void poisonDeviceAllocations() {
  static const helion::DeviceBackend* real = helion::device_backend(helion::DeviceType::CUDA);
  static helion::DeviceBackend poisoned = *real;
  poisoned.allocate = [](std::size_t bytes, int dev) {
    void* p = real->allocate(bytes, dev);
    helion::rt::cudaMemset(p, dev, 0xFF, bytes);
    return p;
  };
  helion::set_device_backend(helion::DeviceType::CUDA, &poisoned);
}
#endif

inline std::string shapeStr(int64_t m, int64_t n, int64_t v) {
  return std::to_string(m) + "x" + std::to_string(n) + "/v" + std::to_string(v);
}
/// The attention template's shapes: q [b, m, d], k and v [b, n, d].
inline std::string shapeStr(int64_t m, int64_t n, int64_t, int64_t b, int64_t d) {
  return std::to_string(b) + "x" + std::to_string(m) + "x" + std::to_string(n) + "/d" +
         std::to_string(d);
}

} // namespace fuzz
