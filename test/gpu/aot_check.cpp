//===- aot_check.cpp - Embedded images, streams and CUDA graphs on the GPU --===//
//
// Built by scripts/aot_gpu_check.sh twice from the same kernels (examples/add.cpp,
// softmax, matmul and test/gpu/kernels/add_into.cpp): once over host files with
// images embedded for this GPU (run with HELIONC_REQUIRE_AOT=1 and NVRTC pointed
// nowhere), once over plain ones (NVRTC at each kernel's first call, disk cache off).
//
//   aot_check LABEL OUT.json
//
// In one process, in order:
//   1. first-call latency of each kernel (the call and a stream synchronize, wall
//      clock; the driver and context are up before), then a warm call's;
//   2. results against float64 references on the CPU (fresh random inputs);
//   3. a user stream (non-blocking): a host callback sleeps 300 ms on it, add_into is
//      called on it, and a copy on another stream right after still sees the
//      poisoned output; after the stream finishes, the right one;
//   4. a CUDA graph: add_into, softmax and matmul captured on the stream (global
//      capture mode), the inputs changed, the graph replayed three times, the outputs
//      checked against the new inputs;
//   5. with HELIONC_REQUIRE_AOT set, a call with no embedded image (add in f16) must
//      throw the error that names it;
//   6. whether NVRTC was loaded (the runtime's flag and /proc/self/maps).
// Prints each check and writes the figures as one JSON object; exit 1 on a failure.
//===----------------------------------------------------------------------===//
#include <helion/hl.h>
#include <helion/hl/dlpack.h>
#include <helion/runtime/CApi.h>
#include <helion/runtime/Compile.h>
#include <helion/runtime/Generated.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace k_add {
#include "add.helion.cpp"
}
namespace k_softmax {
#include "softmax.helion.cpp"
}
namespace k_matmul {
#include "matmul.helion.cpp"
}
namespace k_add_into {
#include "add_into.helion.cpp"
}

using helion::DType;
using helion::Tensor;

namespace {

int failures = 0;
std::ostringstream json;
std::vector<std::string> checkLines;

void check(bool ok, const std::string& what, const std::string& detail = "") {
  std::printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what.c_str(), detail.empty() ? "" : ": ",
              detail.c_str());
  failures += !ok;
  checkLines.push_back("\"" + what + "\": " + (ok ? "true" : "false"));
}

void cudaOk(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("FAIL %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// A CPU tensor of Normal(0, 1) values (rounded to `dt`) and the values as doubles.
Tensor randn(std::vector<int64_t> sizes, DType dt, std::vector<double>& values, uint64_t seed) {
  Tensor h = helion::empty(sizes, dt);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  values.resize(h.numel());
  for (int64_t i = 0; i < h.numel(); ++i) {
    double v = nd(g);
    if (dt == DType::bf16) {
      h.data_ptr<helion::BFloat16>()[i] = helion::BFloat16(v);
      v = double(h.data_ptr<helion::BFloat16>()[i]);
    } else if (dt == DType::f16) {
      h.data_ptr<helion::Half>()[i] = helion::Half(v);
      v = double(h.data_ptr<helion::Half>()[i]);
    } else {
      h.data_ptr<float>()[i] = float(v);
      v = double(h.data_ptr<float>()[i]);
    }
    values[i] = v;
  }
  return h;
}

std::vector<double> toHost(const Tensor& d) {
  Tensor h = d.to(helion::Device::cpu());
  std::vector<double> out(h.numel());
  for (int64_t i = 0; i < h.numel(); ++i)
    out[i] = h.dtype() == DType::bf16  ? double(h.data_ptr<helion::BFloat16>()[i])
             : h.dtype() == DType::f16 ? double(h.data_ptr<helion::Half>()[i])
                                       : double(h.data_ptr<float>()[i]);
  return out;
}

/// max |got - want| / (max |want| + 1); inf when a value is NaN.
double relError(const std::vector<double>& got, const std::vector<double>& want) {
  double err = 0, scale = 1;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i]))
      return INFINITY;
    err = std::max(err, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]) + 1);
  }
  return err / scale;
}

std::vector<double> addRef(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = double(float(x[i] + y[i]));
  return out;
}

std::vector<double> softmaxRef(const std::vector<double>& x, int64_t m, int64_t n) {
  std::vector<double> out(x.size());
  for (int64_t r = 0; r < m; ++r) {
    double mx = -INFINITY, sum = 0;
    for (int64_t c = 0; c < n; ++c)
      mx = std::max(mx, x[r * n + c]);
    for (int64_t c = 0; c < n; ++c)
      sum += std::exp(x[r * n + c] - mx);
    for (int64_t c = 0; c < n; ++c)
      out[r * n + c] = std::exp(x[r * n + c] - mx) / sum;
  }
  return out;
}

std::vector<double> matmulRef(const std::vector<double>& a, const std::vector<double>& b,
                              int64_t m, int64_t n, int64_t k) {
  std::vector<double> out(m * n, 0);
  std::vector<std::thread> threads;
  const int workers = std::max(1u, std::thread::hardware_concurrency());
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t i = w; i < m; i += workers)
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < n; ++j)
            out[i * n + j] += a[i * k + kk] * b[kk * n + j];
    });
  for (auto& t : threads)
    t.join();
  return out;
}

bool nvrtcMapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libnvrtc") != std::string::npos)
      return true;
  return false;
}

void sleepCallback(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

} // namespace

int main(int argc, char** argv) {
  const std::string label = argc > 1 ? argv[1] : "run";
  const std::string jsonPath = argc > 2 ? argv[2] : "";
  const auto cuda = helion::Device::cuda(0);
  // The driver, the primary context and the CUDA runtime up before any timing.
  cudaOk(cudaFree(nullptr), "cudaFree(0)");
  const helion::rt::DeviceInfo& dev = helion::rt::deviceInfo();
  cudaStream_t s = nullptr, other = nullptr;
  cudaOk(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaOk(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreate");
  std::printf("%s on %s (%s), stream %p\n", label.c_str(), dev.name.c_str(),
              helion::rt::archFor(0).c_str(), static_cast<void*>(s));

  const int64_t n = 1 << 20, sm = 1024, sn = 4096, mm = 1024;
  std::vector<double> vx, vy, vs, va, vb;
  Tensor x, y, xs, a, b, out;
  {
    helion::rt::StreamGuard on(s); // the copies go to the stream too
    x = randn({n}, DType::f32, vx, 1).to(cuda);
    y = randn({n}, DType::f32, vy, 2).to(cuda);
    xs = randn({sm, sn}, DType::f32, vs, 3).to(cuda);
    a = randn({mm, mm}, DType::bf16, va, 4).to(cuda);
    b = randn({mm, mm}, DType::bf16, vb, 5).to(cuda);
    out = helion::empty({n}, DType::f32, cuda);
  }
  cudaOk(cudaStreamSynchronize(s), "inputs");

  // 1. First calls, then warm ones.
  std::map<std::string, std::function<void()>> calls = {
      {"add", [&] { k_add::add(x, y, s); }},
      {"softmax", [&] { k_softmax::softmax(xs, s); }},
      {"matmul", [&] { k_matmul::matmul(a, b, s); }},
      {"add_into", [&] { k_add_into::add_into(x, y, out, s); }},
  };
  const char* order[] = {"add", "softmax", "matmul", "add_into"};
  std::map<std::string, double> first, warm;
  for (const char* name : order) {
    double t0 = seconds();
    calls[name]();
    cudaOk(cudaStreamSynchronize(s), name);
    first[name] = (seconds() - t0) * 1e3;
    t0 = seconds();
    calls[name]();
    cudaOk(cudaStreamSynchronize(s), name);
    warm[name] = (seconds() - t0) * 1e3;
    std::printf("%-8s first call %9.3f ms, warm %7.3f ms%s\n", name, first[name], warm[name],
                helion::rt::nvrtcLoaded() ? " (NVRTC loaded by now)" : "");
  }

  // 2. Results.
  {
    helion::rt::StreamGuard on(s);
    double e = relError(toHost(k_add::add(x, y)), addRef(vx, vy));
    check(e <= 1e-6, "add f32 matches", "rel " + std::to_string(e));
    e = relError(toHost(k_softmax::softmax(xs)), softmaxRef(vs, sm, sn));
    check(e <= 1e-5, "softmax f32 matches", "rel " + std::to_string(e));
    e = relError(toHost(k_matmul::matmul(a, b)), matmulRef(va, vb, mm, mm, mm));
    check(e <= 1e-2, "matmul bf16 matches", "rel " + std::to_string(e));
  }

  // 3. The user stream: add_into waits behind a sleeping host callback on `s`.
  std::vector<float> host(n);
  cudaOk(cudaMemsetAsync(out.data_ptr(), 0xFF, n * 4, s), "poison");
  cudaOk(cudaLaunchHostFunc(s, sleepCallback, nullptr), "cudaLaunchHostFunc");
  k_add_into::add_into(x, y, out, s);
  cudaOk(cudaMemcpyAsync(host.data(), out.data_ptr(), n * 4, cudaMemcpyDeviceToHost, other),
         "copy on another stream");
  cudaOk(cudaStreamSynchronize(other), "other stream");
  check(std::isnan(host[0]) && std::isnan(host[n - 1]),
        "the kernel waits behind earlier work on its stream");
  cudaOk(cudaStreamSynchronize(s), "user stream");
  double e = relError(toHost(out), addRef(vx, vy));
  check(e <= 1e-6, "add_into on a user stream matches", "rel " + std::to_string(e));

  // 4. A CUDA graph. Outputs allocated inside the capture come from blocks the warm
  // calls freed on this stream (no cuMemAlloc) and stay alive with the graph.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  Tensor gsoft, gmm;
  std::string captureError;
  cudaOk(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  try {
    k_add_into::add_into(x, y, out, s);
    gsoft = k_softmax::softmax(xs, s);
    gmm = k_matmul::matmul(a, b, s);
  } catch (const std::exception& ex) {
    captureError = ex.what();
  }
  cudaError_t endCapture = cudaStreamEndCapture(s, &graph);
  check(captureError.empty() && endCapture == cudaSuccess, "kernels captured in a CUDA graph",
        captureError.empty() ? cudaGetErrorString(endCapture) : captureError);
  if (captureError.empty() && endCapture == cudaSuccess) {
    cudaOk(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    size_t nodes = 0;
    cudaOk(cudaGraphGetNodes(graph, nullptr, &nodes), "cudaGraphGetNodes");
    // New inputs, written on the stream, then three replays.
    std::vector<double> vx2, vs2, va2;
    {
      helion::rt::StreamGuard on(s);
      Tensor x2 = randn({n}, DType::f32, vx2, 11), s2 = randn({sm, sn}, DType::f32, vs2, 13);
      Tensor a2 = randn({mm, mm}, DType::bf16, va2, 14);
      cudaOk(cudaMemcpyAsync(x.data_ptr(), x2.data_ptr(), n * 4, cudaMemcpyHostToDevice, s), "x");
      cudaOk(cudaMemcpyAsync(xs.data_ptr(), s2.data_ptr(), sm * sn * 4, cudaMemcpyHostToDevice, s),
             "xs");
      cudaOk(cudaMemcpyAsync(a.data_ptr(), a2.data_ptr(), mm * mm * 2, cudaMemcpyHostToDevice, s),
             "a");
      cudaOk(cudaStreamSynchronize(s), "new inputs");
    }
    for (int r = 0; r < 3; ++r)
      cudaOk(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
    cudaOk(cudaStreamSynchronize(s), "graph replays");
    helion::rt::StreamGuard on(s);
    double e1 = relError(toHost(out), addRef(vx2, vy));
    double e2 = relError(toHost(gsoft), softmaxRef(vs2, sm, sn));
    double e3 = relError(toHost(gmm), matmulRef(va2, vb, mm, mm, mm));
    check(e1 <= 1e-6 && e2 <= 1e-5 && e3 <= 1e-2,
          "graph replays (" + std::to_string(nodes) + " nodes) compute the new inputs",
          "rel " + std::to_string(e1) + ", " + std::to_string(e2) + ", " + std::to_string(e3));
  }

  // 5. HELIONC_REQUIRE_AOT: a missing instantiation is an error naming it.
  if (helion::rt::aotRequired()) {
    std::string what;
    try {
      helion::rt::StreamGuard on(s);
      Tensor h = helion::empty({1024}, DType::f16, cuda);
      k_add::add(h, h);
    } catch (const std::exception& ex) {
      what = ex.what();
    }
    check(what.find("HELIONC_REQUIRE_AOT is set and kernel 'add_kernel<hd::f16") !=
              std::string::npos,
          "HELIONC_REQUIRE_AOT names a missing instantiation", what.substr(0, 160));
  }

  // 6. NVRTC.
  const bool loaded = helion::rt::nvrtcLoaded(), mapped = nvrtcMapped();
  std::printf("NVRTC loaded: %s, mapped: %s\n", loaded ? "yes" : "no", mapped ? "yes" : "no");
  const std::string images = helion_rt_aot_images();
  const int64_t imageCount = std::count(images.begin(), images.end(), '\n');
  std::printf("embedded images: %lld\n", static_cast<long long>(imageCount));

  json << "{\"label\": \"" << label << "\", \"device\": \"" << dev.name << "\", \"arch\": \""
       << helion::rt::archFor(0) << "\", \"first_call_ms\": {";
  for (size_t i = 0; i < 4; ++i)
    json << (i ? ", " : "") << "\"" << order[i] << "\": " << first[order[i]];
  json << "}, \"warm_call_ms\": {";
  for (size_t i = 0; i < 4; ++i)
    json << (i ? ", " : "") << "\"" << order[i] << "\": " << warm[order[i]];
  json << "}, \"nvrtc_loaded\": " << (loaded ? "true" : "false")
       << ", \"nvrtc_mapped\": " << (mapped ? "true" : "false")
       << ", \"embedded_images\": " << imageCount << ", \"checks\": {";
  for (size_t i = 0; i < checkLines.size(); ++i)
    json << (i ? ", " : "") << checkLines[i];
  json << "}, \"failures\": " << failures << "}\n";
  if (!jsonPath.empty())
    std::ofstream(jsonPath) << json.str();
  if (exec)
    cudaGraphExecDestroy(exec);
  if (graph)
    cudaGraphDestroy(graph);
  return failures ? 1 : 0;
}
