//===- FrontendDevDriver.cpp - Try the frontend from the command line -----===//
//
//   helionc-frontend-dev compile FILE --emit ir [--kernel NAME] [-I DIR] [-- clang args]
//
// Prints ir::printKernel for each kernel (or the one named), diagnostics on
// stderr, exit 1 on error. It uses the source tree's helion/hl.h, or the mock in
// test/lit/Inputs/mock while the real header is not there.
//===----------------------------------------------------------------------===//
#include "helion/Frontend/Frontend.h"
#include "helion/IR/Printer.h"

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
  using namespace helion;
  std::string file, kernelName, emit = "ir";
  frontend::ParseOptions options;
  options.includeDir = HELIONC_SOURCE_INCLUDE_DIR;
  if (!std::filesystem::exists(options.includeDir + "/helion/hl.h"))
    options.includeDir = HELIONC_MOCK_INCLUDE_DIR;
  DiagnosticEngine diags(std::cerr);
  diags.setColor(stderrWantsColor());
  int i = 1;
  if (i < argc && std::string(argv[i]) == "compile")
    ++i;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      for (++i; i < argc; ++i)
        options.clangArgs.push_back(argv[i]);
    } else if (a == "--emit" && i + 1 < argc) {
      emit = argv[++i];
    } else if (a == "--kernel" && i + 1 < argc) {
      kernelName = argv[++i];
    } else if (a == "-I" && i + 1 < argc) {
      options.includeDir = argv[++i];
    } else if (file.empty() && a[0] != '-') {
      file = a;
    } else {
      std::cerr << "usage: helionc-frontend-dev compile FILE --emit ir [--kernel NAME] "
                   "[-I DIR] [-- clang args]\n";
      return 2;
    }
  }
  if (file.empty() || emit != "ir") {
    std::cerr << "helionc-frontend-dev: error: expected a FILE and --emit ir\n";
    return 2;
  }
  auto result = frontend::parseKernels(file, options, diags);
  if (!result)
    return 1;
  bool found = false;
  for (const frontend::ParsedKernel& k : result->kernels) {
    if (!kernelName.empty() && k.kernel.name != kernelName)
      continue;
    found = true;
    std::cout << ir::printKernel(k.kernel);
  }
  if (!kernelName.empty() && !found) {
    diags.error("no kernel named '" + kernelName + "' in '" + file + "'");
    return 1;
  }
  return 0;
}
