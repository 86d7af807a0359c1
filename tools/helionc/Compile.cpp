//===- Compile.cpp - helionc compile ---------------------------------------===//
#include "CompileConfig.h"
#include "DeviceCompile.h"
#include "InstantiationChecks.h"
#include "Driver.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Config/DefaultEntries.h"
#include "helion/CodeGen/HostRewriter.h"
#include "helion/CodeGen/Instantiations.h"
#include "helion/IR/Printer.h"
#include "helion/IR/Visitor.h"
#include "helion/hl/rules.h"
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
#include <iostream>
#include <sstream>
#include <thread>

namespace helion::tool {
namespace {

struct CompileOptions {
  InputOptions in;
  std::string config;
  std::string outDir;
  std::string depfile; ///< --depfile: where to write the Makefile rule of this compile
  std::string arch = "sm_90a";
  std::string emit;
  ir::PipelineOptions pipeline;       ///< --print-after, --stop-after, --verify-each
  std::vector<std::string> dtypes;    ///< --dtype, each a DtypeSpec
  std::vector<int64_t> sizeHints;     ///< --size-hint (default 4096)
  std::vector<int64_t> specialize;    ///< --specialize: hl::specialize'd values (default 64)
  std::vector<std::string> aotArchs;  ///< --aot-arch: embed images for these
  int jobs = 0;                       ///< -j: NVRTC children at once (0: one per core)
  bool nvrtcLog = false;              ///< --nvrtc-log: NVRTC's log of each compile
};

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

/// The --dtype signatures (default: `fallback`), each naming only tensors that some
/// kernel has; nullopt after reporting one that does not.
std::optional<std::vector<codegen::DtypeSpec>> dtypeSpecs(
    const CompileOptions& o, const std::vector<std::string>& fallback,
    const std::vector<AnalyzedKernel>& kernels, DiagnosticEngine& diags) {
  std::vector<codegen::DtypeSpec> specs;
  for (const std::string& text : o.dtypes.empty() ? fallback : o.dtypes) {
    std::string why;
    std::optional<codegen::DtypeSpec> spec = codegen::parseDtypeSpec(text, why);
    if (!spec) { // the option's validator already checked; kept for the defaults
      diags.error("--dtype " + text + ": " + why);
      return std::nullopt;
    }
    for (const auto& [name, type] : spec->named) {
      std::string tensors;
      bool found = false;
      for (const AnalyzedKernel& k : kernels)
        for (const ir::Param& p : k.typed.params)
          if (p.kind == ir::Param::Kind::Tensor) {
            found |= p.name == name;
            tensors += (tensors.empty() ? "" : ", ") + p.name;
          }
      if (!found) {
        diags.error("--dtype " + text + ": no kernel compiled from " + o.in.file +
                    " has a tensor named '" + name + "' (its tensors: " +
                    (tensors.empty() ? "none" : tensors) + ")");
        return std::nullopt;
      }
    }
    specs.push_back(std::move(*spec));
  }
  return specs;
}

codegen::InstantiationHints hintsOf(const CompileOptions& o) {
  codegen::InstantiationHints hints;
  if (!o.sizeHints.empty())
    hints.sizes = o.sizeHints;
  if (!o.specialize.empty())
    hints.specialized = o.specialize;
  return hints;
}

int parallelJobs(const CompileOptions& o) {
  return o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
}

/// --emit cubin/ptx: for each kernel and --dtype signature, the config entry keyed by
/// those dtypes (entryForSignature, else entry 0), one instantiation per --size-hint and
/// --specialize value, each to its own file STEM.KERNEL.DTYPES[.nSIZE][.sVALUE].cubin
/// (or .ptx; without -o the PTX is printed).
int emitDevice(const std::vector<AnalyzedKernel>& kernels,
               const std::vector<std::vector<codegen::EmittedKernel>>& emittedAll,
               const std::vector<config::ConfigFile>& files, const std::string& stem,
               const CompileOptions& o, DiagnosticEngine& diags) {
  std::optional<std::vector<codegen::DtypeSpec>> specs = dtypeSpecs(o, {"f32"}, kernels, diags);
  if (!specs)
    return 1;
  const codegen::InstantiationHints hints = hintsOf(o);
  const bool ptx = o.emit == "ptx";
  std::vector<DeviceJob> jobs;
  std::vector<std::filesystem::path> paths;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const ir::Kernel& k = kernels[i].typed;
    // Per --dtype signature: the entry whose program compiles for it.
    std::vector<const codegen::EmittedKernel*> entryOf;
    for (const codegen::DtypeSpec& spec : *specs) {
      const std::vector<ir::ScalarType> signature = codegen::signatureOf(k, spec);
      entryOf.push_back(&emittedAll[i][entryForSignature(files[i], k, signature)]);
      if (!atomicDtypesOk(k, signature, diags) ||
          !matmulDtypesOk(k, *entryOf.back(), signature, diags))
        return 1;
    }
    for (size_t sp = 0; sp < specs->size(); ++sp) {
      const codegen::DtypeSpec& spec = (*specs)[sp];
      const codegen::EmittedKernel& ek = *entryOf[sp];
      const std::vector<int64_t> sizes =
          codegen::readsSizes(ek) ? hints.sizes : std::vector<int64_t>{hints.sizes.front()};
      const std::vector<int64_t> values = codegen::readsSpecialized(ek)
                                              ? hints.specialized
                                              : std::vector<int64_t>{hints.specialized.front()};
      for (int64_t size : sizes)
        for (int64_t value : values) {
          codegen::InstantiationHints one{{size}, {value}};
          std::string name =
              codegen::defaultInstantiation(ek, o.arch, codegen::signatureOf(k, spec), one);
          std::string file = stem + "." + k.name + "." + codegen::dtypeSpecLabel(spec);
          if (codegen::readsSizes(ek))
            file += ".n" + std::to_string(size);
          if (codegen::readsSpecialized(ek))
            file += ".s" + std::to_string(value);
          jobs.push_back({ek.source, stem + "." + k.name + ".cu", name, o.arch, k.name, ptx});
          paths.push_back(std::filesystem::path(o.outDir.empty() ? "." : o.outDir) /
                          (file + (ptx ? ".ptx" : ".cubin")));
        }
    }
    // Two chained dots: the chain template's program too (sm_90a), its largest
    // instantiation (K 256 and 256 output columns where they fit), as
    // STEM.KERNEL.DTYPES.chain.kK.vDV.cubin.
    for (size_t sp = 0; sp < specs->size(); ++sp) {
      const codegen::DtypeSpec& spec = (*specs)[sp];
      const codegen::EmittedKernel& ek = *entryOf[sp];
      if (ek.chain) {
        const std::vector<std::string> names = codegen::chainInstantiations(
            *ek.chain, o.arch, codegen::signatureOf(k, spec),
            {{hints.sizes.front()}, {hints.specialized.front()}});
        if (names.empty())
          continue;
        const std::string& name = names.front();
        const size_t comma = name.rfind(',', name.rfind(',') - 1);
        std::string dims = name.substr(comma + 2, name.size() - comma - 3); // "256, 256"
        const std::string file = stem + "." + k.name + "." + codegen::dtypeSpecLabel(spec) +
                                 ".chain.k" + dims.substr(0, dims.find(',')) + ".v" +
                                 dims.substr(dims.find(',') + 2);
        jobs.push_back({ek.chain->source, stem + "." + k.name + ".chain.cu", name, o.arch, k.name,
                        ptx});
        paths.push_back(std::filesystem::path(o.outDir.empty() ? "." : o.outDir) /
                        (file + (ptx ? ".ptx" : ".cubin")));
      }
    }
  }
  std::optional<std::vector<DeviceOutput>> outputs =
      compileDeviceJobs(jobs, parallelJobs(o), o.in.file, diags, o.nvrtcLog);
  if (!outputs)
    return 1;
  for (size_t j = 0; j < jobs.size(); ++j) {
    const DeviceOutput& p = (*outputs)[j];
    std::string text = p.cubin;
    if (ptx) {
      text = "// " + jobs[j].name + " (" + o.arch + ")\n// mangled: " + p.lowered + "\n" + p.ptx;
      if (o.outDir.empty()) { // no -o: the PTX is the output
        std::cout << text;
        continue;
      }
    }
    if (!writeFile(paths[j], text, diags))
      return 1;
    std::cout << paths[j].string() << ": " << jobs[j].name << " (" << o.arch << ", "
              << (ptx ? p.ptx.size() : p.cubin.size()) << (ptx ? " bytes of PTX" : " bytes")
              << ", NVRTC " << static_cast<int>(p.seconds * 1000) << " ms"
              << (p.cacheHit ? ", cached" : "") << ")\n";
  }
  return 0;
}

/// What --aot-arch compiles (AotImages.cpp); for --emit instantiations, with --arch
/// when no --aot-arch is given.
std::optional<AotPlan> aotPlan(const std::vector<AnalyzedKernel>& kernels,
                               const std::vector<codegen::HostKernel>& hosts,
                               const CompileOptions& o, DiagnosticEngine& diags) {
  std::optional<std::vector<codegen::DtypeSpec>> specs =
      dtypeSpecs(o, {"f32", "f16", "bf16"}, kernels, diags);
  if (!specs)
    return std::nullopt;
  std::vector<std::string> archs = o.aotArchs.empty() ? std::vector{o.arch} : o.aotArchs;
  AotRequest request{archs, *specs, hintsOf(o), parallelJobs(o), !o.config.empty()};
  return planAotImages(hosts, request,
                       std::filesystem::path(o.in.file).filename().string() + ".cu");
}

/// --aot-arch: the images of every launcher.
std::optional<codegen::AotImageMap> aotImages(const std::vector<AnalyzedKernel>& kernels,
                                              const std::vector<codegen::HostKernel>& hosts,
                                              const CompileOptions& o, DiagnosticEngine& diags) {
  if (o.aotArchs.empty())
    return codegen::AotImageMap{};
  std::optional<AotPlan> plan = aotPlan(kernels, hosts, o, diags);
  if (!plan)
    return std::nullopt;
  return compileAotImages(*plan, parallelJobs(o), o.in.file, diags, o.nvrtcLog);
}

/// --depfile: the host file depends on every file the parse read (the kernel file
/// and its headers) and the config file. It is the only target: the .cu files are
/// written beside it, and Ninja rejects a depfile naming an output its build file does
/// not declare (a build cannot declare them before it knows the kernels' names).
int writeCompileDepfile(const CompileOptions& o, const std::string& hostFile,
                        std::vector<std::string> filesRead, DiagnosticEngine& diags) {
  filesRead.insert(filesRead.begin(), o.in.file);
  if (!o.config.empty())
    filesRead.push_back(o.config);
  if (std::optional<std::string> error = writeDepfile(o.depfile, {hostFile}, filesRead)) {
    diags.error(*error);
    return 1;
  }
  return 0;
}

/// --stop-after a config pass: each kernel's IR after it, under each entry of its
/// config file; nothing is written. (After an analysis stage, analyze() has printed
/// the IR and returned no kernels.)
int stopAfterConfigPass(const CompileOptions& o, const ir::PipelineOptions& pipeline,
                        const std::vector<AnalyzedKernel>& kernels, DiagnosticEngine& diags) {
  for (const AnalyzedKernel& k : kernels) {
    auto file = loadConfig(o.config, k, diags);
    if (!file)
      return 1;
    for (const config::ShapedConfig& entry : file->entries) {
      ir::PassContext ctx{diags, &entry.config};
      if (!ir::runPipeline(k.typed, /*configPart=*/true, ctx, pipeline))
        return 1;
    }
  }
  return 0;
}

int runCompile(const CompileOptions& o) {
  DiagnosticEngine diags(std::cerr);
  diags.setColor(stderrWantsColor());
  std::string text;
  std::vector<std::string> filesRead;
  ir::PipelineOptions pipeline = o.pipeline;
  pipeline.out = &std::cout;
  auto kernels = analyze(o.in, pipeline, &text, diags, &filesRead);
  if (!kernels)
    return 1;
  if (!pipeline.stopAfter.empty())
    return stopAfterConfigPass(o, pipeline, *kernels, diags);
  if (o.emit == "ir") {
    for (const AnalyzedKernel& k : *kernels)
      std::cout << ir::printKernel(k.parsed.kernel);
    return 0;
  }
  // Every entry of a kernel's config file is compiled; the generated launcher picks
  // among all of them by shape and dtypes. --emit cuda shows each (after a line naming
  // the entry when there are several), --emit cubin/ptx one per --dtype signature.
  std::vector<std::vector<codegen::EmittedKernel>> emittedAll;
  std::vector<config::ConfigFile> files;
  for (const AnalyzedKernel& k : *kernels) {
    auto file = loadConfig(o.config, k, diags);
    if (!file || !checkShapeKeys(*file, k.typed, o.config, diags))
      return 1;
    std::vector<codegen::EmittedKernel> entries;
    for (const config::ShapedConfig& entry : file->entries) {
      codegen::EmitOptions eo;
      eo.pipeline = pipeline;
      eo.sourceFile = o.in.file;
      eo.configJson = config::formatConfig(entry.config, k.spec);
      auto ek = driver::compileCuda(k.typed, entry.config, eo, diags);
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
  std::string stem = std::filesystem::path(o.in.file).stem().string();
  std::vector<codegen::HostKernel> hosts;
  for (size_t i = 0; i < kernels->size(); ++i) {
    const AnalyzedKernel& k = (*kernels)[i];
    for (size_t e = 0; e < files[i].entries.size(); ++e) {
      const config::ShapedConfig& entry = files[i].entries[e];
      codegen::HostKernel hk{&k.typed, &k.parsed.host, &emittedAll[i][e], {}, entry.shapes,
                             entry.dtypes};
      hk.registerBlockSizes = config::blockSizeValues(k.typed, entry.config);
      hk.choice = entry.choice;
      hosts.push_back(hk);
    }
    if (!checkChoices(hosts, k, o.config, diags))
      return 1;
  }
  if (o.emit == "cuda") {
    for (size_t i = 0; i < kernels->size(); ++i)
      for (size_t e = 0; e < emittedAll[i].size(); ++e) {
        if (emittedAll[i].size() > 1)
          std::cout << entryBanner((*kernels)[i], files[i], e, o.config);
        std::cout << emittedAll[i][e].source;
      }
    return 0;
  }
  if (o.emit == "cubin" || o.emit == "ptx")
    return emitDevice(*kernels, emittedAll, files, stem, o, diags);
  if (o.emit == "instantiations") { // TABLE ARCH NAME, one line per image --aot-arch embeds
    std::optional<AotPlan> plan = aotPlan(*kernels, hosts, o, diags);
    if (!plan)
      return 1;
    for (size_t j = 0; j < plan->jobs.size(); ++j)
      std::cout << plan->symbols.at(plan->owners[j]) << " " << plan->jobs[j].arch << " "
                << plan->jobs[j].name << "\n";
    return 0;
  }
  std::optional<codegen::AotImageMap> aot = aotImages(*kernels, hosts, o, diags);
  if (!aot)
    return 1;
  const std::string fileName = std::filesystem::path(o.in.file).filename().string();
  if (o.emit == "host") {
    std::cout << codegen::rewriteHost(fileName, text, hosts, *aot);
    return 0;
  }
  std::filesystem::path dir = o.outDir; // none: the working directory (named as such)
  std::filesystem::path hostFile = dir / (stem + ".helion.cpp");
  if (!writeFile(hostFile, codegen::rewriteHost(fileName, text, hosts, *aot), diags))
    return 1;
  for (size_t i = 0; i < emittedAll.size(); ++i)
    for (size_t e = 0; e < emittedAll[i].size(); ++e)
      if (!writeFile(dir / (stem + "." + (*kernels)[i].typed.name +
                            (e ? "." + std::to_string(e) : std::string()) + ".cu"),
                     emittedAll[i][e].source, diags))
        return 1;
  return o.depfile.empty() ? 0 : writeCompileDepfile(o, hostFile.string(), filesRead, diags);
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
  CLI::Option* emit = cmd->add_option("--emit", o->emit,
                  "print one stage instead of writing files: ir (after the frontend), cuda "
                  "(every entry of the config, each after a comment line naming it), host, "
                  "cubin (compiled with NVRTC, written to -o as "
                  "FILE.KERNEL.DTYPES[.nSIZE][.sVALUE].cubin: SIZE the --size-hint, VALUE the "
                  "--specialize value, where the kernel reads them), ptx (NVRTC's PTX of the cubin "
                  "instantiation: written to -o with the same name, .ptx, else printed), or "
                  "instantiations (what --aot-arch, "
                  "else --arch, embeds: one TABLE ARCH NAME line per image, nothing compiled)")
      ->check(CLI::IsMember({"ir", "cuda", "host", "cubin", "ptx", "instantiations"}));
  cmd->add_option("--depfile", o->depfile,
                  "also write a Makefile-syntax depfile to this file: FILE.helion.cpp (the .cu "
                  "files are written with it) depends on FILE, every header it read and the "
                  "--config file (for Ninja, make, CMake's DEPFILE; not with --emit)")
      ->excludes(emit);
  auto stage = [](bool allowAll) {
    return CLI::Validator(
        [allowAll](std::string& name) {
          if (ir::isStageName(name) || (allowAll && name == "all"))
            return std::string();
          return "expected " + std::string(allowAll ? "all or " : "") + "a pass (" +
                 ir::stageNames() + "), got '" + name + "'";
        },
        "PASS");
  };
  cmd->add_option("--print-after", o->pipeline.printAfter,
                  "print the IR after a pass, repeatable, or all: " + ir::stageNames() +
                      " (docs/passes.md)")
      ->check(stage(true));
  cmd->add_option("--stop-after", o->pipeline.stopAfter,
                  "print the IR after this pass and stop: nothing is written (the config "
                  "passes run once per entry of the config file)")
      ->check(stage(false))
      ->excludes(emit);
  cmd->add_flag("--verify-each", o->pipeline.verifyEach,
                "run the IR verifier after every config pass too (the default in builds "
                "without NDEBUG and with HELIONC_VERIFY_EACH=1; the frontend's IR and the "
                "analysis passes are always verified)");
  const CLI::Validator dtypeSpec(
      [](std::string& text) {
        std::string why;
        return codegen::parseDtypeSpec(text, why) ? std::string() : why;
      },
      "DTYPE|NAME=DTYPE,...");
  cmd->add_option("--dtype", o->dtypes,
                  "tensor dtypes of an instantiation, repeatable: bf16 (every tensor but index "
                  "tensors, i64), x=bf16,out=i8 (named tensors; the others f32), or bf16,out=i8 "
                  "(default: f32 for --emit cubin/ptx; f32, f16 and bf16 for --aot-arch)")
      ->check(dtypeSpec)
      ->allow_extra_args(false);
  cmd->add_option("--size-hint", o->sizeHints,
                  "reduction extent of the --emit cubin/ptx and --aot-arch instantiations, "
                  "repeatable (default 4096)")
      ->allow_extra_args(false);
  cmd->add_option("--specialize", o->specialize,
                  "value of each hl::specialize'd scalar (a head dim) in the --emit cubin/ptx "
                  "and --aot-arch instantiations, repeatable (default 64)")
      ->allow_extra_args(false);
  cmd->add_option("--aot-arch", o->aotArchs,
                  "compile every instantiation the launchers can name for the given dtypes, "
                  "sizes and specialized values for this GPU architecture now, and embed the "
                  "cubins in FILE.helion.cpp (repeatable: sm_90a, sm_80, ...)")
      ->check(CLI::Validator(
          [](std::string& arch) {
            size_t i = 3, digits = 0;
            if (arch.rfind("sm_", 0) == 0)
              for (; i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])); ++i)
                ++digits;
            bool ok = arch.rfind("sm_", 0) == 0 && (digits == 2 || digits == 3) &&
                      (i == arch.size() ||
                       (i + 1 == arch.size() && (arch[i] == 'a' || arch[i] == 'f')));
            return ok ? std::string()
                      : "'" + arch + "' is not a GPU architecture (expected sm_90a, sm_80, ...)";
          },
          "ARCH"))
      ->allow_extra_args(false);
  cmd->add_option("-j,--jobs", o->jobs, "NVRTC compiles run at once (default: one per core)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--nvrtc-log", o->nvrtcLog,
                "with --emit cubin/ptx or --aot-arch: print NVRTC's log of each compile that "
                "succeeds as a note (its warnings; with "
                "HELIONC_NVRTC_OPTIONS=--ptxas-options=-v, ptxas's registers, spills and "
                "performance notes). A cache hit has no log: HELIONC_NO_CACHE=1 compiles again");
  cmd->callback([o] {
    int rc = runCompile(*o);
    if (rc != 0)
      std::exit(rc);
  });
}

} // namespace helion::tool
