//===- TuneHarness.cpp - The benchmark program helionc tune builds ---------===//
//
// For one kernel and one --args shape, `helionc tune` writes the candidates of a batch
// as the entries of one host file (entry 0 is always the default config) and this
// program around it. Run as `harness FIRST LAST REPS`, it makes seeded random inputs,
// runs entry 0 for the reference outputs, then for each entry in [FIRST, LAST] forces
// it (helion::rt::forcedShapeEntry), runs it on fresh NaN-poisoned outputs, compares
// with the reference (tolerance by dtype), and times it with CUDA events (L2 flushed
// between runs, median of REPS). One line per entry on stdout:
//   begin E
//   result E ok|mismatch|error MEDIAN_MS FIRST_CALL_MS MAX_ERR [message]
//   rate E TFLOPS TFLOP/s      (after an ok result, for a kernel whose work is counted)
// The tolerance is by dtype, wider for tensor-core kernels (HarnessOptions).
// A crash leaves a `begin` without its `result`: the tuner marks that entry failed and
// restarts the program after it. HELIONC_TUNE_FAULT=crash:E,hang:E,wrong:E (a test hook)
// makes entry E crash, hang, or corrupt its first output, to show the tuner survives.
//===----------------------------------------------------------------------===//
#include "Tune.h"

#include <fmt/format.h>

#include <sstream>

namespace helion::tool {

namespace {

std::string dtypeName(ir::ScalarType t) {
  switch (t) {
  case ir::ScalarType::F16: return "helion::DType::f16";
  case ir::ScalarType::BF16: return "helion::DType::bf16";
  case ir::ScalarType::F32: return "helion::DType::f32";
  case ir::ScalarType::F64: return "helion::DType::f64";
  case ir::ScalarType::I8: return "helion::DType::i8";
  case ir::ScalarType::I32: return "helion::DType::i32";
  case ir::ScalarType::I64: return "helion::DType::i64";
  case ir::ScalarType::B8: return "helion::DType::b8";
  case ir::ScalarType::U8: return "helion::DType::u8";
  case ir::ScalarType::F8E4M3: return "helion::DType::f8e4m3";
  case ir::ScalarType::F8E5M2: return "helion::DType::f8e5m2";
  }
  return "helion::DType::f32";
}

std::string scalarLiteral(const tune::ScalarArg& v) {
  if (auto b = std::get_if<bool>(&v))
    return *b ? "true" : "false";
  if (auto i = std::get_if<int64_t>(&v))
    return fmt::format("int64_t({})", *i);
  return fmt::format("{:.17g}", std::get<double>(v));
}

// The part of the harness that does not depend on the kernel.
const char* const kHarnessBody = R"(
namespace {

using helion::DType;
using helion::Tensor;

const helion::DeviceBackend* realBackend = nullptr;

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool isFloat(DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64; }

/// Seeded inputs: floats uniform in [-2, 2], integers in [0, hi) (index tensors must
/// index: hi is the smallest size of the float tensors' dims), bools half true.
Tensor makeInput(std::vector<int64_t> sizes, DType dt, uint64_t seed, int64_t hi) {
  Tensor t = helion::empty(sizes, dt);
  const int64_t n = t.numel();
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n / 65536 + 1));
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
  for (int64_t i = n * w / workers, end = n * (w + 1) / workers; i < end; ++i) {
    uint64_t r = mix(seed * 0x9e3779b97f4a7c15ull + uint64_t(i));
    double u = double(r >> 11) * 0x1.0p-53;
    switch (dt) {
    case DType::f32: t.data_ptr<float>()[i] = float(4 * u - 2); break;
    case DType::f64: t.data_ptr<double>()[i] = 4 * u - 2; break;
    case DType::f16: t.data_ptr<helion::Half>()[i] = helion::Half(float(4 * u - 2)); break;
    case DType::bf16: t.data_ptr<helion::BFloat16>()[i] = helion::BFloat16(float(4 * u - 2)); break;
    case DType::i64: t.data_ptr<int64_t>()[i] = int64_t(r % uint64_t(hi)); break;
    case DType::i32: t.data_ptr<int32_t>()[i] = int32_t(r % uint64_t(hi)); break;
    case DType::i8: t.data_ptr<int8_t>()[i] = int8_t(r % uint64_t(hi < 127 ? hi : 127)); break;
    case DType::b8: t.data_ptr<bool>()[i] = (r & 1) != 0; break;
    case DType::u8: t.data_ptr<uint8_t>()[i] = uint8_t(r % uint64_t(hi < 255 ? hi : 255)); break;
    case DType::f8e4m3:
    case DType::f8e5m2:
      helion::detail::storeFloat(static_cast<char*>(t.data_ptr()) + i, dt, 4 * u - 2);
      break;
    }
  }
    });
  for (auto& th : threads)
    th.join();
  return t.to(helion::Device::cuda());
}

/// `:offsets(total)`: n entries rising from 0 to total, the n - 1 segments cut at
/// seeded random points (so of random lengths), as a jagged kernel's offsets.
Tensor makeOffsets(int64_t n, int64_t total, DType dt, uint64_t seed) {
  std::vector<int64_t> v(n, total);
  v[0] = 0;
  for (int64_t i = 1; i + 1 < n; ++i)
    v[i] = int64_t(mix(seed * 0x9e3779b97f4a7c15ull + uint64_t(i)) % uint64_t(total + 1));
  if (n > 2)
    std::sort(v.begin() + 1, v.end() - 1);
  Tensor t = helion::empty({n}, dt);
  for (int64_t i = 0; i < n; ++i) {
    if (dt == DType::i32)
      t.data_ptr<int32_t>()[i] = int32_t(v[i]);
    else
      t.data_ptr<int64_t>()[i] = v[i];
  }
  return t.to(helion::Device::cuda());
}

void collect(const Tensor& t, std::vector<Tensor>& out) { out.push_back(t); }
template <class... T> void collect(const std::tuple<T...>& t, std::vector<Tensor>& out) {
  std::apply([&](const auto&... e) { (collect(e, out), ...); }, t);
}
template <class T> void collect(const T&, std::vector<Tensor>&) {}

double get(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
  case DType::f32: return t.data_ptr<float>()[i];
  case DType::f64: return t.data_ptr<double>()[i];
  case DType::f16: return double(t.data_ptr<helion::Half>()[i]);
  case DType::bf16: return double(t.data_ptr<helion::BFloat16>()[i]);
  case DType::i64: return double(t.data_ptr<int64_t>()[i]);
  case DType::i32: return double(t.data_ptr<int32_t>()[i]);
  case DType::i8: return double(t.data_ptr<int8_t>()[i]);
  case DType::b8: return t.data_ptr<bool>()[i] ? 1 : 0;
  default: return helion::detail::loadFloat(static_cast<const char*>(t.data_ptr()) + i, t.dtype());
  }
}

/// max over i in [0, n) of f(i), on every core (outputs have up to ~10^8 elements).
template <class F> double parallelMax(int64_t n, F f) {
  const int64_t workers = std::max<int64_t>(1, std::min<int64_t>(std::thread::hardware_concurrency(), n / 65536 + 1));
  std::vector<double> part(workers, 0);
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      double m = 0;
      for (int64_t i = n * w / workers, e = n * (w + 1) / workers; i < e; ++i) {
        double v = f(i);
        if (!(v <= m))
          m = std::isnan(v) ? INFINITY : v;
      }
      part[w] = m;
    });
  for (auto& t : threads) t.join();
  return *std::max_element(part.begin(), part.end());
}

double tolerance(DType t) {
  if (kTensorCore) // tf32 operands for f32, another K order, attention's P rounded to 16 bits
    return t == DType::f32 ? 2e-2 : t == DType::f64 ? 1e-9 : t == DType::f16 ? 2e-2
         : t == DType::bf16 ? 5e-2 : 0;
  return t == DType::f32 ? 1e-4 : t == DType::f64 ? 1e-9 : t == DType::f16 ? 1e-2
       : t == DType::bf16 ? 3e-2 : 0;
}

// The check of error() below on the GPU: copying a 2 GB input back and comparing it on
// the host took ~2 s per candidate. Non-negative doubles order as their bit patterns,
// so the maximum is an atomicMax on them.
const char kErrorSource[] = R"HELIONC_ERR(#include "helion/device.cuh"
namespace hd = helion::dev;
__device__ double to_d(double v) { return v; }
__device__ double to_d(float v) { return v; }
__device__ double to_d(long long v) { return double(v); }
__device__ double to_d(int v) { return double(v); }
__device__ double to_d(signed char v) { return double(v); }
__device__ double to_d(bool v) { return v ? 1.0 : 0.0; }
template <class T> __device__ double to_d(T v) { return double(hd::to_float(v)); }
__device__ double inf_d() { return __longlong_as_double(0x7ff0000000000000ll); }
template <class T>
__global__ void max_error(const T* got, const T* want, long long n, double tol, double floor,
                          unsigned long long* out) {
  double m = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    double w = to_d(want[i]), err = fabs(to_d(got[i]) - w);
    double allowed = tol * (fabs(w) + floor);
    double v = allowed > 0 ? err / allowed : (err == 0 ? 0.0 : inf_d());
    if (!(v <= m))
      m = v != v ? inf_d() : v; // NaN fails

  }
  for (int o = 16; o > 0; o /= 2)
    m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0)
    atomicMax(out, (unsigned long long)__double_as_longlong(m));
}
)HELIONC_ERR";

/// error() on the GPU, for contiguous device tensors of one dtype and size; NaN when it
/// cannot run there (the caller falls back to the host).
double deviceError(const Tensor& got, const Tensor& want, double scale) {
  if (got.device().type != helion::DeviceType::CUDA || want.device().type != helion::DeviceType::CUDA ||
      !got.is_contiguous() || !want.is_contiguous() || got.dtype() != want.dtype())
    return NAN;
  const std::string name = std::string("max_error<") + helion::rt::deviceTypeName(got.dtype()) + ">";
  const helion::rt::Kernel& k = helion::rt::loadKernel({"tune_error.cu", kErrorSource, name, {}});
  Tensor out = helion::empty({1}, DType::i64, helion::Device::cuda());
  helion::rt::cudaMemset(out.data_ptr(), 0, 0, 8);
  const void* g = got.data_ptr();
  const void* w = want.data_ptr();
  long long n = want.numel();
  double tol = tolerance(got.dtype()), floor = std::max(1.0, scale / 16);
  void* result = out.data_ptr();
  void* args[] = {&g, &w, &n, &tol, &floor, &result};
  unsigned blocks = static_cast<unsigned>(std::clamp<long long>((n + 255) / 256, 1, 1056));
  if (n > 0)
    helion::rt::launch(k, helion::rt::Dim3(blocks), helion::rt::Dim3(256), 0, args);
  int64_t bits = out.cpu().data_ptr<int64_t>()[0];
  double m;
  std::memcpy(&m, &bits, sizeof m);
  return m;
}

/// The largest error of `got` against `want` in units of the dtype's tolerance:
/// |got - want| / (tol * (|want| + max(1, max|want| / 16))); <= 1 passes, NaN fails.
/// On the GPU against `wantDevice` when it can, else on the host against `want`.
double error(const Tensor& gotDevice, const Tensor& wantDevice, const Tensor& want, double scale) {
  if (gotDevice.sizes() != want.sizes() || gotDevice.dtype() != want.dtype())
    return INFINITY;
  double onDevice = deviceError(gotDevice, wantDevice, scale);
  if (!std::isnan(onDevice))
    return onDevice;
  Tensor got = gotDevice.cpu();
  double tol = tolerance(got.dtype());
  return parallelMax(want.numel(), [&](int64_t i) {
    double w = get(want, i), g = get(got, i);
    double err = std::abs(g - w);
    double allowed = tol * (std::abs(w) + std::max(1.0, scale / 16));
    return allowed > 0 ? err / allowed : (err == 0 ? 0.0 : double(INFINITY));
  });
}

/// A device copy of device tensor `t` (kernels may write their tensor arguments, so
/// every entry starts from the same inputs).
Tensor freshCopy(const Tensor& t) {
  Tensor out = helion::empty(t.sizes(), t.dtype(), helion::Device::cuda());
  if (t.numel())
    helion::rt::cudaCopyDeviceToDevice(out.data_ptr(), 0, t.data_ptr(), 0,
                                       size_t(t.numel() * t.element_size()));
  return out;
}

/// The fault HELIONC_TUNE_FAULT asks of entry `e` ("crash", "hang", "wrong" or "").
std::string faultFor(int e) {
  const char* spec = std::getenv("HELIONC_TUNE_FAULT");
  if (!spec)
    return "";
  std::string s = spec;
  size_t at = 0;
  while (at < s.size()) {
    size_t comma = s.find(',', at);
    std::string item = s.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t colon = item.find(':');
    if (colon != std::string::npos && std::atoi(item.c_str() + colon + 1) == e)
      return item.substr(0, colon);
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  return "";
}

} // namespace

// -- kernel glue --

int main(int argc, char** argv) {
  // FIRST LAST REPS runs entries FIRST..LAST; --entries E,F,.. REPS runs the ones listed.
  std::vector<int> entries;
  int reps = 0;
  if (argc >= 4 && std::string(argv[1]) == "--entries") {
    for (const char* p = argv[2]; *p;) {
      char* end = nullptr;
      entries.push_back(static_cast<int>(std::strtol(p, &end, 10)));
      p = *end == ',' ? end + 1 : end;
      if (end == p && *p)
        break;
    }
    reps = std::atoi(argv[3]);
  } else if (argc >= 4) {
    for (int e = std::atoi(argv[1]); e <= std::atoi(argv[2]); ++e)
      entries.push_back(e);
    reps = std::atoi(argv[3]);
  } else {
    std::fprintf(stderr, "usage: %s FIRST LAST REPS | --entries E,F,... REPS\n", argv[0]);
    return 2;
  }
  realBackend = helion::device_backend(helion::DeviceType::CUDA);
  static helion::DeviceBackend poisoned = *realBackend;
  poisoned.allocate = [](std::size_t bytes, int dev) {
    void* p = realBackend->allocate(bytes, dev);
    helion::rt::cudaMemset(p, dev, 0xFF, bytes);
    return p;
  };
  auto install = [&](bool poison) {
    helion::set_device_backend(helion::DeviceType::CUDA, poison ? &poisoned : realBackend);
  };
  // Reference: entry 0, the default config.
  std::vector<Tensor> reference;
  std::vector<double> scales;
  std::vector<Tensor> referenceDevice; // the same, left on the GPU for the checks
  const std::vector<Tensor> pristine = makeInputs(); // made once: big inputs take seconds
  auto copies = [&] {
    std::vector<Tensor> in;
    for (const Tensor& t : pristine)
      in.push_back(freshCopy(t));
    return in;
  };
  {
    std::vector<Tensor> inputs = copies();
    helion::rt::forcedShapeEntry().store(0);
    install(true);
    std::vector<Tensor> outs;
    collect(callKernel(inputs), outs);
    for (const Tensor& t : inputs)
      outs.push_back(t);
    helion::rt::synchronize();
    for (const Tensor& t : outs) {
      referenceDevice.push_back(t);
      reference.push_back(t.cpu());
      const Tensor& w = reference.back();
      scales.push_back(parallelMax(w.numel(), [&](int64_t i) { return std::abs(get(w, i)); }));
    }
  }
  helion::rt::BenchmarkOptions bo;
  bo.warmupRuns = 1;
  bo.minRuns = reps;
  bo.maxRuns = reps;
  bo.targetMs = 0;
  bo.flushBytes = 256ll << 20;
  for (int e : entries) {
    std::printf("begin %d\n", e);
    std::fflush(stdout);
    try {
      helion::rt::forcedShapeEntry().store(e);
      std::vector<Tensor> inputs = copies();
      install(true);
      auto t0 = std::chrono::steady_clock::now();
      std::vector<Tensor> outs;
      collect(callKernel(inputs), outs);
      for (const Tensor& t : inputs)
        outs.push_back(t);
      helion::rt::synchronize();
      const std::string fault = faultFor(e);
      if (fault == "crash")
        std::raise(SIGSEGV);
      if (fault == "hang")
        for (;;)
          std::this_thread::sleep_for(std::chrono::seconds(1));
      if (fault == "wrong" && !outs.empty() && outs[0].numel() > 0)
        helion::rt::cudaMemset(outs[0].data_ptr(), 0, 0x3F, outs[0].element_size());
      double firstMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      double worst = 0;
      for (size_t i = 0; i < outs.size() && i < reference.size(); ++i)
        worst = std::max(worst, error(outs[i], referenceDevice[i], reference[i], scales[i]));
      if (!(worst <= 1)) {
        std::printf("result %d mismatch 0 %.3f %.3g\n", e, firstMs, worst);
        std::fflush(stdout);
        continue;
      }
      install(false);
      helion::rt::BenchmarkResult r = helion::rt::benchmark([&] { callKernel(inputs); }, bo);
      std::printf("result %d ok %.6f %.3f %.3g\n", e, r.medianMs, firstMs, worst);
      if (kFlops > 0)
        std::printf("rate %d %.1f TFLOP/s\n", e, kFlops / (r.medianMs * 1e-3) / 1e12);
    } catch (const std::exception& ex) {
      std::string msg = ex.what();
      for (char& c : msg)
        if (c == '\n') c = ' ';
      std::printf("result %d error 0 0 0 %s\n", e, msg.substr(0, 300).c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}
)";

} // namespace

std::string harnessIncludes() {
  // The host file's own includes too (its C API part), so that with the precompiled
  // header nothing is parsed twice.
  return "#include <helion/hl.h>\n#include <helion/hl/dlpack.h>\n"
         "#include <helion/runtime/CApi.h>\n#include <helion/runtime/CudaBackend.h>\n"
         "#include <helion/runtime/Generated.h>\n#include <helion/runtime/Timing.h>\n"
         "#include <algorithm>\n#include <chrono>\n#include <cmath>\n#include <cstdio>\n"
         "#include <cstdlib>\n#include <cstring>\n#include <exception>\n#include <map>\n#include <mutex>\n"
         "#include <string>\n#include <csignal>\n#include <thread>\n#include <tuple>\n"
         "#include <type_traits>\n#include <vector>\n";
}

std::string harnessSource(const ir::Kernel& k, const tune::ArgSpec& args,
                          const std::string& hostFile, const HarnessOptions& options) {
  std::ostringstream os;
  os << "// Generated by helionc tune (TuneHarness.cpp). Do not edit.\n";
  os << harnessIncludes() << "\n";
  os << "namespace candidates {\n#include \"" << hostFile << "\"\n}\n\n";
  os << "namespace {\n// Tensor-core tolerances (hl::dot); the work of one call, 0 if not counted.\n"
     << "constexpr bool kTensorCore = " << (options.tensorCore ? "true" : "false") << ";\n"
     << fmt::format("constexpr double kFlops = {:.17g};\n", options.flops) << "}\n\n";
  // Index tensors take values below the smallest dim of the float tensors.
  int64_t hi = INT64_MAX;
  for (const tune::Arg& a : args.args)
    if (a.isTensor() && ir::isFloat(a.tensor().dtype))
      for (int64_t s : a.tensor().sizes)
        hi = std::min(hi, std::max<int64_t>(1, s));
  if (hi == INT64_MAX)
    hi = 16;
  os << "static std::vector<helion::Tensor> makeInputs() {\n  std::vector<helion::Tensor> t;\n";
  int n = 0;
  for (const tune::Arg& a : args.args) {
    if (!a.isTensor())
      continue;
    if (a.tensor().offsetsTotal) {
      os << "  t.push_back(makeOffsets(" << a.tensor().sizes[0] << ", "
         << *a.tensor().offsetsTotal << ", " << dtypeName(a.tensor().dtype) << ", "
         << (++n * 1000003) << "));\n";
      continue;
    }
    os << "  t.push_back(makeInput({";
    for (size_t i = 0; i < a.tensor().sizes.size(); ++i)
      os << (i ? ", " : "") << a.tensor().sizes[i];
    os << "}, " << dtypeName(a.tensor().dtype) << ", " << (++n * 1000003) << ", " << hi
       << "));\n";
  }
  os << "  return t;\n}\n\n";
  // The call, in parameter order (bindArgs ordered them). Tensors are the program's
  // own (a kernel may write its Tensor& parameters); a kernel that returns nothing
  // gives 0, which collect() skips like any non-tensor.
  os << "static auto callKernel(std::vector<helion::Tensor>& t) {\n"
     << "  auto call = [&] { return candidates::" << k.name << "(";
  int tensor = 0;
  bool firstArg = true;
  for (const tune::Arg& a : args.args) {
    os << (firstArg ? "" : ", ");
    firstArg = false;
    if (a.isTensor())
      os << "t[" << tensor++ << "]";
    else
      os << scalarLiteral(a.scalar());
  }
  os << "); };\n"
     << "  if constexpr (std::is_void_v<decltype(call())>) {\n    call();\n    return 0;\n  } else {\n"
     << "    return call();\n  }\n}\n";
  // The glue goes between the helpers it calls and main, which calls it.
  std::string body = kHarnessBody;
  const std::string marker = "// -- kernel glue --\n";
  std::string head = os.str();
  size_t glue = head.find("static std::vector<helion::Tensor> makeInputs()");
  size_t split = body.find(marker);
  return head.substr(0, glue) + body.substr(0, split) + head.substr(glue) + "\n" +
         body.substr(split + marker.size());
}

} // namespace helion::tool
