//===- nvrtc_time.cpp - NVRTC time per kernel, through helion::rt::compile -===//
//
// Compiles each (label, .cu file, name expression) triple with the runtime's own
// compile() (same options, embedded device library, disk cache off) REPS times
// in one process and reports the minimum and median per kernel as process CPU
// and wall milliseconds. CPU time is the figure to compare on a shared machine:
// other processes stretch wall time, much less this process's CPU time. The
// first compile of the process (NVRTC's one-time set-up) is reported apart.
//
//   nvrtc_time [--reps N] [--arch sm_90a] [--json FILE] LABEL FILE.cu EXPR [LABEL FILE.cu EXPR]...
//
// Built by benchmarks/nvrtc_time.sh against a build's libhelion_runtime.a.
//===----------------------------------------------------------------------===//
#include "helion/runtime/Compile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

double cpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double wallMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

struct Sample {
  double wall, cpu;
};

struct Result {
  std::string label, expr;
  std::size_t cubinBytes = 0;
  std::vector<Sample> warm;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double minimum(const std::vector<double> &v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

int usage() {
  std::cerr << "usage: nvrtc_time [--reps N] [--arch ARCH] [--json FILE] LABEL FILE.cu EXPR...\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  int reps = 5;
  std::string arch = "sm_90a", json;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (a == "--arch" && i + 1 < argc)
      arch = argv[++i];
    else if (a == "--json" && i + 1 < argc)
      json = argv[++i];
    else
      rest.push_back(a);
  }
  if (rest.empty() || rest.size() % 3 != 0 || reps < 1)
    return usage();
  setenv("HELIONC_NO_CACHE", "1", 1);

  std::vector<helion::rt::CompileRequest> requests;
  for (std::size_t i = 0; i < rest.size(); i += 3) {
    std::ifstream file(rest[i + 1]);
    if (!file) {
      std::cerr << "nvrtc_time: cannot read " << rest[i + 1] << "\n";
      return 1;
    }
    std::stringstream text;
    text << file.rdbuf();
    helion::rt::CompileRequest request;
    request.source = text.str();
    request.programName = rest[i] + ".cu";
    request.nameExpressions = {rest[i + 2]};
    request.arch = arch;
    requests.push_back(request);
  }
  auto time = [](const helion::rt::CompileRequest &request, std::size_t &cubinBytes) {
    double w0 = wallMs(), c0 = cpuMs();
    helion::rt::CompiledProgram program = helion::rt::compile(request);
    cubinBytes = program.cubin.size();
    return Sample{wallMs() - w0, cpuMs() - c0};
  };

  std::vector<Result> results;
  Sample first{};
  try {
    std::size_t bytes = 0;
    first = time(requests[0], bytes); // NVRTC's one-time set-up in this process
    for (std::size_t k = 0; k < requests.size(); ++k) {
      Result r{rest[3 * k], rest[3 * k + 2]};
      for (int rep = 0; rep < reps; ++rep)
        r.warm.push_back(time(requests[k], r.cubinBytes));
      results.push_back(r);
    }
  } catch (const std::exception &e) {
    std::cerr << "nvrtc_time: " << e.what() << "\n";
    return 1;
  }

  std::printf("%-22s %8s %8s %9s %9s %8s\n", "kernel", "cpu min", "cpu med", "wall min", "wall med",
              "cubin");
  std::ostringstream js;
  js << "{\"arch\": \"" << arch << "\", \"nvrtc\": \"" << helion::rt::nvrtcVersion()
     << "\", \"reps\": " << reps << ", \"first_compile_cpu_ms\": " << first.cpu
     << ", \"first_compile_wall_ms\": " << first.wall << ", \"kernels\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    std::vector<double> cpu, wall;
    for (const Sample &s : r.warm) {
      cpu.push_back(s.cpu);
      wall.push_back(s.wall);
    }
    std::printf("%-22s %8.1f %8.1f %9.1f %9.1f %8zu\n", r.label.c_str(), minimum(cpu), median(cpu),
                minimum(wall), median(wall), r.cubinBytes);
    js << (i ? ", " : "") << "{\"kernel\": \"" << r.label << "\", \"expr\": \"" << r.expr
       << "\", \"cpu_ms_min\": " << minimum(cpu) << ", \"cpu_ms_median\": " << median(cpu)
       << ", \"wall_ms_min\": " << minimum(wall) << ", \"wall_ms_median\": " << median(wall)
       << ", \"cubin_bytes\": " << r.cubinBytes << "}";
  }
  js << "]}\n";
  std::printf("first compile in the process (NVRTC set-up included): %.1f ms CPU, %.1f ms wall\n",
              first.cpu, first.wall);
  if (!json.empty())
    std::ofstream(json) << js.str();
  return 0;
}
