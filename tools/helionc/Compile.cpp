//===- Compile.cpp - helionc compile ---------------------------------------===//
#include "Driver.h"
#include "helion/CodeGen/HostRewriter.h"
#include "helion/IR/Printer.h"
#include "helion/runtime/Compile.h"
#include "helion/runtime/Layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

namespace helion::tool {
namespace {

struct CompileOptions {
  InputOptions in;
  std::string config;
  std::string outDir;
  std::string arch = "sm_90a";
  std::string emit;
  std::vector<std::string> printAfter;
  std::string dtype = "f32";
  int64_t sizeHint = 4096;
  int64_t specialize = 64; ///< value of each hl::specialize'd scalar in --emit cubin/ptx
};

/// The file and line:column of byte `byte` (1-based, as nlohmann counts it) of `text`.
ir::SourceLoc jsonErrorLoc(const std::string& file, const std::string& text, size_t byte) {
  ir::SourceLoc loc{file, 1, 1};
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (the location is reported Clang-style instead).
/// Long enough for any of nlohmann's own messages; what is cut is the echo of the
/// input ("last read: '<a megabyte of string>'").
std::string jsonErrorText(const nlohmann::json::parse_error& e) {
  constexpr size_t kMax = 160;
  std::string what = e.what();
  size_t colon = what.find(": ");
  std::string text = colon == std::string::npos ? what : what.substr(colon + 2);
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

/// The first kMaxConfigErrors of `errors`, then a note of how many more there are.
void reportConfigErrors(const std::vector<std::string>& errors, DiagnosticEngine& diags) {
  constexpr size_t kMaxConfigErrors = 20;
  for (size_t i = 0; i < errors.size() && i < kMaxConfigErrors; ++i)
    diags.error(errors[i]);
  if (errors.size() > kMaxConfigErrors)
    diags.report(Severity::Note, {},
                 std::to_string(errors.size() - kMaxConfigErrors) + " more errors not shown");
}

std::optional<config::ConfigFile> loadConfig(const CompileOptions& o,
                                             const config::ConfigSpec& spec,
                                             DiagnosticEngine& diags) {
  if (o.config.empty())
    return config::ConfigFile{{config::ShapedConfig{{}, spec.defaultConfig()}}};
  std::string why;
  std::optional<std::string> text = readFile(o.config, &why);
  if (!text) {
    diags.error(why);
    return std::nullopt;
  }
  std::optional<nlohmann::json> j;
  std::vector<std::string> errors;
  try {
    j = config::parseJsonText(*text, o.config, errors);
  } catch (const nlohmann::json::parse_error& e) {
    diags.error(jsonErrorLoc(o.config, *text, e.byte), "invalid JSON: " + jsonErrorText(e));
    return std::nullopt;
  }
  reportConfigErrors(errors, diags); // duplicate keys
  if (!j)
    return std::nullopt;
  auto file = config::parseConfigFile(*j, spec, o.config);
  reportConfigErrors(file.errors, diags);
  if (!file.ok())
    return std::nullopt;
  return *file.value;
}

/// Shape keys may name the kernel's own tensor parameters only: the launcher picks
/// an entry from them before the host code has made anything else.
bool checkShapeKeys(const config::ConfigFile& file, const ir::Kernel& k, const std::string& path,
                    DiagnosticEngine& diags) {
  std::string allowed;
  for (const ir::Param& p : k.params)
    if (p.kind == ir::Param::Kind::Tensor && !p.captured)
      allowed += (allowed.empty() ? "" : ", ") + p.name;
  std::vector<std::string> errors;
  for (size_t e = 0; e < file.entries.size(); ++e)
    for (const auto& [name, sizes] : file.entries[e].shapes) {
      auto p = std::find_if(k.params.begin(), k.params.end(),
                            [&](const ir::Param& q) { return q.name == name; });
      if (p == k.params.end() || p->kind != ir::Param::Kind::Tensor || p->captured)
        errors.push_back(path + ": kernel '" + k.name + "', entry " + std::to_string(e) +
                         ": shapes names '" + name.substr(0, 64) +
                         "', which is not a tensor parameter of the kernel (" +
                         (allowed.empty() ? "it has none" : allowed) + ")");
      else if (p->rank >= 0 && static_cast<int>(sizes.size()) != p->rank)
        errors.push_back(path + ": kernel '" + k.name + "', entry " + std::to_string(e) +
                         ": shapes gives '" + name + "' " + std::to_string(sizes.size()) +
                         " sizes, but it has rank " + std::to_string(p->rank));
    }
  reportConfigErrors(errors, diags);
  return errors.empty();
}

/// Tensors read as indices (gathers) are integers; the others take --dtype.
std::vector<bool> indexTensors(const ir::Kernel& k) {
  std::vector<bool> isIndex(k.params.size(), false);
  std::map<int, int> varFromParam;
  std::function<void(const ir::Expr&, bool)> see = [&](const ir::Expr& e, bool asIndex) {
    if (asIndex && e.kind == ir::ExprKind::Load)
      isIndex[e.param] = true;
    if (asIndex && e.kind == ir::ExprKind::Var && varFromParam.count(e.var))
      isIndex[varFromParam[e.var]] = true;
    for (const auto& op : e.operands)
      see(*op, asIndex);
    for (const auto& i : e.indices)
      if (i.value)
        see(*i.value, e.kind == ir::ExprKind::Load);
  };
  std::function<void(const std::vector<ir::StmtRef>&)> walk = [&](const auto& body) {
    for (const auto& s : body) {
      if (s->kind == ir::StmtKind::Let && s->value->kind == ir::ExprKind::Load)
        varFromParam[s->var] = s->value->param;
      if (s->value)
        see(*s->value, false);
      for (const auto& i : s->indices)
        if (i.value)
          see(*i.value, true);
      walk(s->body);
    }
  };
  walk(k.body);
  return isIndex;
}

std::string instantiation(const ir::Kernel& k, const codegen::EmittedKernel& ek,
                          const CompileOptions& o) {
  std::vector<bool> isIndex = indexTensors(k);
  auto dtype = ir::parseScalarType(o.dtype).value_or(ir::ScalarType::F32);
  // A matmul holds an sm90 and an sm80 kernel; below sm_90a only the latter runs,
  // and tma_store (TMA_STORE = 1) needs sm_90a. f32 operands run as tf32 on the
  // sm80 kernel everywhere (MatmulLauncher.cpp).
  const bool sm90 = ek.matmul && ek.matmul->sm90 && o.arch.rfind("sm_90", 0) == 0 &&
                    dtype != ir::ScalarType::F32;
  // Flash attention with an sm90 config likewise keeps its sm80 kernel for older GPUs.
  const bool attentionSm80 =
      ek.attention && ek.attention->sm90 && o.arch.rfind("sm_90", 0) != 0;
  std::string name = (ek.matmul && !sm90       ? ek.matmul->sm80KernelName
                      : attentionSm80          ? ek.attention->sm80KernelName
                                               : ek.kernelName) +
                     "<";
  bool first = true;
  // VEC as the host's helion::rt::vectorWidth picks it for aligned, contiguous
  // tensors: the config's vector_bytes (16 when auto) over the first tensor's size.
  std::optional<ir::ScalarType> firstType;
  for (const auto& t : ek.templateArgs)
    if (t.kind == codegen::TemplateArg::Kind::DType && !firstType)
      firstType = isIndex[t.index] ? ir::ScalarType::I64 : dtype;
  for (const auto& t : ek.templateArgs) {
    name += first ? "" : ", ";
    first = false;
    switch (t.kind) {
    case codegen::TemplateArg::Kind::DType:
      name += codegen::deviceTypeName(isIndex[t.index] ? ir::ScalarType::I64 : dtype);
      break;
    case codegen::TemplateArg::Kind::ReductionDim: {
      // What the launcher picks for an extent of --size-hint.
      name += std::to_string(helion::rt::reductionExtent(o.sizeHint, ek.numThreads));
      break;
    }
    case codegen::TemplateArg::Kind::VectorWidth:
      name += std::to_string(
          std::max(1, ek.maxVectorBytes / ir::scalarTypeBytes(firstType.value_or(dtype))));
      break;
    case codegen::TemplateArg::Kind::Specialized: name += std::to_string(o.specialize); break;
    case codegen::TemplateArg::Kind::EpilogueForm:
      name += sm90 && ek.matmul->tmaStoreParam >= 0 ? "1" : "0";
      break;
    case codegen::TemplateArg::Kind::ExactAxes: name += "0"; break; // every bounds check kept
    }
  }
  return name + ">";
}

bool writeFile(const std::filesystem::path& path, const std::string& text, DiagnosticEngine& diags) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path().empty() ? "." : path.parent_path(), ec);
  if (ec) {
    diags.error("cannot create directory '" + path.parent_path().string() + "': " + ec.message());
    return false;
  }
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    if (!f) {
      diags.error("cannot write '" + path.string() + "'");
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    diags.error("cannot write '" + path.string() + "': " + ec.message());
    return false;
  }
  return true;
}

/// HELIONC_NVRTC_TIMEOUT in seconds (default kDefaultNvrtcTimeout, 0: no limit), or
/// nullopt and an error when it is not a number >= 0.
std::optional<double> nvrtcTimeout(DiagnosticEngine& diags) {
  constexpr double kDefaultNvrtcTimeout = 120;
  const char* text = std::getenv("HELIONC_NVRTC_TIMEOUT");
  if (!text || !*text)
    return kDefaultNvrtcTimeout;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds >= 0) || seconds > 1e9) {
    diags.error(fmt::format("HELIONC_NVRTC_TIMEOUT: expected a number of seconds >= 0, got '{}'",
                            std::string(text).substr(0, 60)));
    return std::nullopt;
  }
  return seconds;
}

/// --emit cubin/ptx of one kernel: NVRTC, then the file (or the PTX on stdout) and a
/// summary line. Runs in a child process (runInChild): 0 or 1, errors printed.
int compileToDevice(const ir::Kernel& kernel, const codegen::EmittedKernel& emitted,
                    const std::string& stem, const CompileOptions& o, DiagnosticEngine& diags) {
  rt::CompileRequest req;
  req.source = emitted.source;
  req.programName = stem + "." + kernel.name + ".cu";
  req.nameExpressions = {instantiation(kernel, emitted, o)};
  req.arch = o.arch;
  req.wantPtx = o.emit == "ptx";
  try {
    rt::CompiledProgram p = rt::compile(req);
    std::string ptx;
    if (req.wantPtx) {
      ptx = "// " + req.nameExpressions[0] + " (" + o.arch + ")\n// mangled: " +
            p.loweredNames[req.nameExpressions[0]] + "\n" + p.ptx;
      if (o.outDir.empty()) { // no -o: the PTX is the output
        std::cout << ptx;
        return 0;
      }
    }
    std::filesystem::path out = std::filesystem::path(o.outDir.empty() ? "." : o.outDir) /
                                (stem + "." + kernel.name + (req.wantPtx ? ".ptx" : ".cubin"));
    if (!writeFile(out, req.wantPtx ? ptx : p.cubin, diags))
      return 1;
    std::cout << out.string() << ": " << req.nameExpressions[0] << " (" << o.arch << ", "
              << (req.wantPtx ? p.ptx.size() : p.cubin.size())
              << (req.wantPtx ? " bytes of PTX" : " bytes") << ", NVRTC "
              << static_cast<int>(p.seconds * 1000) << " ms" << (p.cacheHit ? ", cached" : "")
              << ")\n";
  } catch (const std::exception& e) {
    diags.error(ir::SourceLoc{o.in.file, 0, 0},
                "NVRTC failed for kernel '" + kernel.name + "': " + e.what());
    return 1;
  }
  return 0;
}

int runCompile(const CompileOptions& o) {
  DiagnosticEngine diags(std::cerr);
  diags.setColor(stderrWantsColor());
  std::string text;
  auto kernels = analyze(o.in, o.printAfter, &text, diags);
  if (!kernels)
    return 1;
  if (o.emit == "ir") {
    for (const AnalyzedKernel& k : *kernels)
      std::cout << ir::printKernel(k.parsed.kernel);
    return 0;
  }
  // Every entry of a kernel's config file is compiled; entry 0 is the one --emit
  // cuda/cubin/ptx show, the generated launcher picks among all of them by shape.
  std::vector<std::vector<codegen::EmittedKernel>> emittedAll;
  std::vector<config::ConfigFile> files;
  for (const AnalyzedKernel& k : *kernels) {
    auto file = loadConfig(o, k.spec, diags);
    if (!file || !checkShapeKeys(*file, k.typed, o.config, diags))
      return 1;
    std::vector<codegen::EmittedKernel> entries;
    for (const config::ShapedConfig& entry : file->entries) {
      codegen::EmitOptions eo;
      eo.sourceFile = o.in.file;
      eo.configJson = config::formatConfig(entry.config, k.spec);
      auto ek = codegen::emitCuda(k.typed, entry.config, eo, diags);
      if (!ek) {
        if (file->entries.size() > 1) // which of several configs
          diags.report(Severity::Note, {},
                       fmt::format("in entry {} of '{}' for kernel '{}': {}", entries.size(),
                                   o.config, k.typed.name, eo.configJson));
        return 1;
      }
      entries.push_back(std::move(*ek));
    }
    files.push_back(std::move(*file));
    emittedAll.push_back(std::move(entries));
  }
  std::vector<codegen::EmittedKernel> emitted;
  for (const auto& entries : emittedAll)
    emitted.push_back(entries.front());
  std::string stem = std::filesystem::path(o.in.file).stem().string();
  std::vector<codegen::HostKernel> hosts;
  for (size_t i = 0; i < kernels->size(); ++i) {
    const AnalyzedKernel& k = (*kernels)[i];
    for (size_t e = 0; e < files[i].entries.size(); ++e) {
      const config::ShapedConfig& entry = files[i].entries[e];
      codegen::HostKernel hk{&k.typed, &k.parsed.host, &emittedAll[i][e], {}, entry.shapes};
      size_t tunable = 0;
      for (const auto& b : k.typed.blockSizes)
        hk.registerBlockSizes.push_back(b.fixed ? *b.fixed
                                                : (tunable < entry.config.blockSizes.size()
                                                       ? entry.config.blockSizes[tunable++]
                                                       : 64));
      hosts.push_back(hk);
    }
  }
  if (o.emit == "cuda") {
    for (const auto& ek : emitted)
      std::cout << ek.source;
    return 0;
  }
  if (o.emit == "host") {
    std::cout << codegen::rewriteHost(std::filesystem::path(o.in.file).filename().string(), text,
                                      hosts);
    return 0;
  }
  if (o.emit == "cubin" || o.emit == "ptx") {
    std::optional<double> limit = nvrtcTimeout(diags);
    if (!limit)
      return 1;
    for (size_t i = 0; i < emitted.size(); ++i) {
      const std::string& name = (*kernels)[i].typed.name;
      ChildResult r = runInChild(
          [&] { return compileToDevice((*kernels)[i].typed, emitted[i], stem, o, diags); }, *limit);
      ir::SourceLoc at{o.in.file, 0, 0};
      if (r.kind == ChildResult::Kind::TimedOut)
        diags.error(at, fmt::format("NVRTC did not finish in {} s for kernel '{}' (the limit is "
                                    "HELIONC_NVRTC_TIMEOUT seconds; lower the config's block "
                                    "sizes or raise num_warps)",
                                    *limit, name));
      else if (r.kind == ChildResult::Kind::Signaled && r.code != SIGPIPE) // not `| head`
        diags.error(at, fmt::format("NVRTC crashed (signal {}: {}) for kernel '{}'", r.code,
                                    strsignal(r.code), name));
      if (r.kind != ChildResult::Kind::Exited || r.code != 0)
        return 1;
    }
    return 0;
  }
  std::filesystem::path dir = o.outDir.empty() ? "." : o.outDir;
  if (!writeFile(dir / (stem + ".helion.cpp"),
                 codegen::rewriteHost(std::filesystem::path(o.in.file).filename().string(), text,
                                      hosts),
                 diags))
    return 1;
  for (size_t i = 0; i < emittedAll.size(); ++i)
    for (size_t e = 0; e < emittedAll[i].size(); ++e)
      if (!writeFile(dir / (stem + "." + (*kernels)[i].typed.name +
                            (e ? "." + std::to_string(e) : std::string()) + ".cu"),
                     emittedAll[i][e].source, diags))
        return 1;
  return 0;
}

} // namespace

void registerCompile(CLI::App& app) {
  auto o = std::make_shared<CompileOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compile", "compile the HELION_KERNEL functions of a file to CUDA and rewrite its host code");
  addInputOptions(*cmd, o->in);
  cmd->add_option("--config", o->config, "config JSON (default: each kernel's default config)");
  cmd->add_option("-o,--output-dir", o->outDir, "where to write FILE.helion.cpp and the .cu files");
  cmd->add_option("--arch", o->arch, "GPU architecture for --emit cubin/ptx (sm_90a, sm_80, ...)");
  cmd->add_option("--emit", o->emit,
                  "print one stage instead of writing files: ir (after the frontend), cuda, host, "
                  "cubin (compiled with NVRTC, written to -o), or ptx (NVRTC's PTX of the "
                  "cubin instantiation: written to -o as FILE.KERNEL.ptx, else printed)")
      ->check(CLI::IsMember({"ir", "cuda", "host", "cubin", "ptx"}));
  cmd->add_option("--print-after", o->printAfter,
                  "print the IR after a pass (frontend, infer-types, hoist-blocks, or all)")
      ->check(CLI::IsMember({"frontend", "infer-types", "hoist-blocks", "all"}));
  cmd->add_option("--dtype", o->dtype, "tensor dtype of the --emit cubin/ptx instantiation")
      ->check(CLI::IsMember({"f16", "bf16", "f32", "f64"}));
  cmd->add_option("--size-hint", o->sizeHint,
                  "reduction extent of the --emit cubin/ptx instantiation");
  cmd->add_option("--specialize", o->specialize,
                  "value of each hl::specialize'd scalar (a head dim) in the --emit cubin/ptx "
                  "instantiation");
  cmd->callback([o] {
    int rc = runCompile(*o);
    if (rc != 0)
      std::exit(rc);
  });
}

} // namespace helion::tool
