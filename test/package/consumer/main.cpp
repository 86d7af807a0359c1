// The consumer's program. Its kernel files are compiled two ways: here as plain C++
// (ref mode, on the CPU), and by helionc_add_kernels into generated host code linked
// into this program (run when there is a GPU). Each result is checked against a plain
// loop; the exit status is 0 when all match, 1 otherwise.
#include <helion/hl.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/Driver.h>

#include "kernels/scale_factor.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

// Ref mode: the kernel files as they are, in a namespace of their own (the generated
// functions below have the same names). Their own #includes were included above, so
// they add nothing inside the namespace.
namespace ref {
#include "kernels/add.cpp"
#include "kernels/scale.cpp"
#include "kernels/shifted/add.cpp"
} // namespace ref

// Defined by the generated kernels/*.helion.cpp.
helion::Tensor add(const helion::Tensor& x, const helion::Tensor& y);
helion::Tensor add_shifted(const helion::Tensor& x, const helion::Tensor& y);
helion::Tensor scale(const helion::Tensor& x);

namespace {

using helion::Tensor;

constexpr int64_t kRows = 37, kCols = 50; // not a multiple of any block size

const float* values(const Tensor& t) { return static_cast<const float*>(t.data_ptr()); }

Tensor input(int seed) {
  Tensor t = helion::empty({kRows, kCols}, helion::DType::f32);
  float* v = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i)
    v[i] = static_cast<float>((i * 7 + seed) % 13 - 6) * 0.5f;
  return t;
}

/// Whether `got` (a CPU f32 tensor of the inputs' shape) holds expected(i) at each i.
bool check(const std::string& what, const Tensor& got,
           const std::function<double(int64_t)>& expected) {
  if (got.sizes() != std::vector<int64_t>{kRows, kCols}) {
    std::printf("FAIL %s: wrong shape\n", what.c_str());
    return false;
  }
  Tensor c = got.contiguous();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (std::abs(values(c)[i] - expected(i)) > 1e-6) {
      std::printf("FAIL %s: element %lld is %g, expected %g\n", what.c_str(),
                  static_cast<long long>(i), values(c)[i], expected(i));
      return false;
    }
  std::printf("ok %s\n", what.c_str());
  return true;
}

} // namespace

int main() {
  // The kernel images helionc_add_kernels embedded (ARCHS), one "aot: PROGRAM ARCH BYTES
  // NAME" line each; none without ARCHS.
  std::string images = helion_rt_aot_images();
  for (std::size_t at = 0, end; (end = images.find('\n', at)) != std::string::npos; at = end + 1)
    std::printf("aot: %s\n", images.substr(at, end - at).c_str());
  Tensor x = input(1), y = input(4);
  auto sum = [&](int64_t i) { return double(values(x)[i]) + values(y)[i]; };
  auto scaled = [&](int64_t i) { return values(x)[i] * CONSUMER_SCALE; };
  bool ok = check("scale, ref mode", ref::scale(x), scaled);
  ok &= check("add, ref mode", ref::add(x, y), sum);
  ok &= check("add_shifted, ref mode", ref::add_shifted(x, y),
              [&](int64_t i) { return sum(i) + 1; });
  if (helion::rt::driverAvailable() && helion::rt::deviceCount() > 0) {
    auto gpu = [](const Tensor& t) { return t.to(helion::Device::cuda()); };
    ok &= check("scale, GPU", scale(gpu(x)).cpu(), scaled);
    ok &= check("add, GPU", add(gpu(x), gpu(y)).cpu(), sum);
    ok &= check("add_shifted, GPU", add_shifted(gpu(x), gpu(y)).cpu(),
                [&](int64_t i) { return sum(i) + 1; });
  } else {
    std::printf("no CUDA device: the generated kernels are linked, not run\n");
  }
  return ok ? 0 : 1;
}
