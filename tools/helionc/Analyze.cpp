//===- Analyze.cpp - Parse and run the analysis passes ---------------------===//
#include "Driver.h"
#include "helion/IR/DotShape.h"
#include "helion/IR/Printer.h"
#include "helion/Support/InstallPaths.h"
#include "helion/Transforms/Passes.h"
#include "helion/runtime/Compile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>

namespace helion::tool {

std::optional<std::string> readFile(const std::string& path, std::string* why) {
  namespace fs = std::filesystem;
  auto fail = [&](std::string reason) -> std::optional<std::string> {
    if (why)
      *why = std::move(reason);
    return std::nullopt;
  };
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (status.type() == fs::file_type::not_found)
    return fail("no such file or directory: '" + path + "'");
  if (status.type() == fs::file_type::directory)
    return fail("'" + path + "' is a directory, expected a file");
  if (ec)
    return fail("cannot read '" + path + "': " + ec.message());
  if (status.type() != fs::file_type::regular)
    return fail("'" + path + "' is not a regular file");
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return fail("cannot read '" + path + "': permission denied or unreadable");
  std::ostringstream text;
  text << f.rdbuf();
  return text.str();
}

namespace {

/// True when the environment variable `name` is set to anything but "" or "0".
bool envFlag(const char* name) {
  const char* value = std::getenv(name);
  return value && *value && std::string_view(value) != "0";
}

} // namespace

void addInputOptions(CLI::App& app, InputOptions& in) {
  // A missing file is an error in the input (exit 1), not a usage error: see analyze().
  app.add_option("file", in.file, "the kernel source file")->required();
  app.add_option("--kernel", in.kernel, "only this HELION_KERNEL function");
  app.add_option("clang-args", in.clangArgs, "arguments for Clang after `--` (-D, -I, ...)");
  app.positionals_at_end(false);
}

std::optional<std::vector<AnalyzedKernel>> analyze(const InputOptions& in,
                                                   const ir::PipelineOptions& pipeline,
                                                   std::string* fileText, DiagnosticEngine& diags,
                                                   std::vector<std::string>* filesRead) {
  std::string why;
  if (!readFile(in.file, &why)) {
    diags.error(why);
    return std::nullopt;
  }
  frontend::ParseOptions po;
  po.clangArgs = in.clangArgs;
  po.includeDir = helionIncludeDir();
  if (po.includeDir.empty()) {
    diags.error("cannot find <helion/hl.h>: expected it in '" +
                (std::filesystem::path(executableDir()).parent_path() / "include").string() +
                "' (set HELIONC_HL_INCLUDE to the directory that holds helion/hl.h)");
    return std::nullopt;
  }
  // hl.h precompiled, beside the NVRTC cache (README, "From your build").
  if (!envFlag("HELIONC_NO_PCH"))
    po.pchDir = (rt::cacheDirectory() / "pch").string();
  po.pchLog = envFlag("HELIONC_PCH_LOG");
  auto parsed = frontend::parseKernels(in.file, po, diags);
  if (!parsed)
    return std::nullopt;
  if (fileText)
    *fileText = parsed->text;
  if (filesRead)
    *filesRead = parsed->filesRead;
  std::vector<AnalyzedKernel> out;
  bool found = false, stopped = false;
  for (frontend::ParsedKernel& pk : parsed->kernels) {
    if (!in.kernel.empty() && pk.kernel.name != in.kernel)
      continue;
    found = true;
    // HELIONC_GENERAL_DOTS=1: every hl::dot on the general lowering, even where a template
    // matches (to measure that lowering against the templates; docs/gemm.md).
    if (envFlag("HELIONC_GENERAL_DOTS"))
      pk.kernel.generalDots = true;
    ir::PassContext ctx{diags, nullptr};
    // A kernel with errors stops its own pipeline; the file's other kernels still run,
    // so one compile reports the errors of every kernel.
    bool stoppedHere = false;
    std::optional<ir::Kernel> k = ir::runPipeline(pk.kernel, false, ctx, pipeline, &stoppedHere);
    // A loop that has the matmul's shape but that the GEMM templates do not take in every
    // detail (an epilogue with a reduction, ...) runs its dots on the general lowering,
    // with a warning that says why, rather than failing.
    Diagnostic notTaken{};
    if (k && !stoppedHere && !k->generalDots && ir::dotTemplate(*k) == ir::DotTemplate::Matmul &&
        !ir::matmulTemplateTakes(*k, &notTaken)) {
      diags.warning(notTaken.loc, "the GEMM templates do not take this matmul (" +
                                      notTaken.message +
                                 "): its dots run on the general hl::dot lowering, which is "
                                 "slower");
      pk.kernel.generalDots = true;
      k = ir::runPipeline(pk.kernel, false, ctx, pipeline, &stoppedHere);
    }
    stopped |= stoppedHere;
    if (!k || stoppedHere)
      continue;
    AnalyzedKernel ak{std::move(pk), *k, config::ConfigSpec::fromKernel(*k)};
    out.push_back(std::move(ak));
  }
  if (!in.kernel.empty() && !found) {
    diags.error(ir::SourceLoc{in.file, 0, 0}, "no HELION_KERNEL function named '" + in.kernel + "'");
    return std::nullopt;
  }
  if (diags.hasErrors())
    return std::nullopt;
  if (out.empty() && !stopped) {
    diags.warning(ir::SourceLoc{in.file, 0, 0}, "no HELION_KERNEL function found");
  }
  return out;
}

} // namespace helion::tool
