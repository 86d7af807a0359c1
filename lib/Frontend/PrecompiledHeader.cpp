//===- PrecompiledHeader.cpp - <helion/hl.h> parsed once, kept on disk ----===//
#include "PrecompiledHeader.h"

#include "PchInputs.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/LockFileManager.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace helion::frontend {
namespace {

/// Bump when what goes into a PCH changes in a way the key does not see (the
/// options set in pchInvocation, the manifest format).
constexpr const char* kFormat = "helionc-pch 1";

/// Seconds to wait for another helionc building the same PCH before building it too.
constexpr unsigned kLockWaitSeconds = 300;

struct PchFiles {
  std::string pch, manifest;
};

/// The invocation that builds the PCH: the kernel file's, with hl.h as a header
/// input. Templates the headers use are instantiated in the PCH (as CMake's
/// precompiled headers do), not again by every kernel file: a compile then only
/// instantiates what the kernel itself uses. What names the kernel file or the working
/// directory is cleared (it does not change the AST, and would split the cache).
std::shared_ptr<clang::CompilerInvocation> pchInvocation(const clang::CompilerInvocation& kernel,
                                                         const std::string& hlPath) {
  auto pch = std::make_shared<clang::CompilerInvocation>(kernel);
  clang::FrontendOptions& fe = pch->getFrontendOpts();
  fe.Inputs = {clang::FrontendInputFile(hlPath,
                                        clang::InputKind(clang::Language::CXX).getHeader())};
  fe.ProgramAction = clang::frontend::GeneratePCH;
  fe.OutputFile.clear();
  fe.IncludeTimestamps = false; // staleness is the manifest's business, by content
  pch->getLangOpts().PCHInstantiateTemplates = true;
  pch->getCodeGenOpts().MainFileName.clear();
  pch->getCodeGenOpts().DebugCompilationDir.clear();
  pch->getCodeGenOpts().CoverageCompilationDir.clear();
  pch->getPreprocessorOpts().ImplicitPCHInclude.clear();
  return pch;
}

/// Hashes every cc1 option of `pch` (macros, search paths, CPATH's included, target,
/// language, warnings), hl.h's path, and the versions.
std::string keyOf(const clang::CompilerInvocation& pch, const std::string& hlPath) {
  std::string fields;
  auto add = [&](llvm::StringRef field) {
    fields += std::to_string(field.size()) + ':';
    fields += field;
  };
  add(kFormat);
  add(HELIONC_VERSION);
  add(clang::getClangFullVersion());
  add(hlPath);
  pch.generateCC1CommandLine([&](const llvm::Twine& arg) { add(arg.str()); });
  return contentHash(fields);
}

struct Manifest {
  std::string key;
  bool usable = false;
  uint64_t pchSize = 0;
  std::string pchHash;
  PchInputs inputs;
};

/// The manifest's text, ending with a line `sum <hash of the lines before>` (a manifest
/// cut short or edited is damaged, not a shorter list of inputs).
std::string serialize(const Manifest& m) {
  std::string text = std::string(kFormat) + "\nkey " + m.key + "\nusable " +
                     (m.usable ? "1" : "0") + "\npch " + std::to_string(m.pchSize) + " " +
                     (m.pchHash.empty() ? "-" : m.pchHash) + "\n" + serializeInputs(m.inputs);
  return text + "sum " + contentHash(text) + "\n";
}

std::optional<Manifest> parseManifest(llvm::StringRef text) {
  if (!text.consume_back("\n"))
    return std::nullopt;
  auto [body, sum] = text.rsplit('\n');
  if (!sum.consume_front("sum ") || sum != contentHash(text.substr(0, body.size() + 1)))
    return std::nullopt;
  text = text.substr(0, body.size() + 1);
  Manifest m;
  auto line = [&](llvm::StringRef prefix) -> std::optional<llvm::StringRef> {
    auto [first, rest] = text.split('\n');
    text = rest;
    if (!first.consume_front(prefix))
      return std::nullopt;
    return first;
  };
  auto format = line(kFormat);
  auto key = line("key ");
  auto usable = line("usable ");
  auto pch = line("pch ");
  if (!format || !format->empty() || !key || !usable || !pch)
    return std::nullopt;
  auto [size, hash] = pch->split(' ');
  if (size.getAsInteger(10, m.pchSize))
    return std::nullopt;
  auto inputs = parseInputs(text);
  if (!inputs)
    return std::nullopt;
  m.key = key->str();
  m.usable = *usable == "1";
  m.pchHash = hash == "-" ? "" : hash.str();
  m.inputs = std::move(*inputs);
  return m;
}

bool writeManifest(const PchFiles& files, const Manifest& m) {
  return !llvm::errorToBool(llvm::writeToOutput(files.manifest, [&](llvm::raw_ostream& os) {
    os << serialize(m);
    return llvm::Error::success();
  }));
}

enum class State { Current, Unusable, Stale };

/// Whether the PCH of `files` is current for `key`; if so, its verified bytes in `use`,
/// else the reason in `why`.
State check(const PchFiles& files, const std::string& key, std::optional<PchUse>& use,
            std::string& why) {
  auto text = llvm::MemoryBuffer::getFile(files.manifest);
  if (!text) {
    why = "none yet";
    return State::Stale;
  }
  std::optional<Manifest> m = parseManifest((*text)->getBuffer());
  if (!m || m->key != key) {
    why = "its manifest is damaged";
    return State::Stale;
  }
  if (auto changed = firstChangedInput(m->inputs)) {
    why = "'" + *changed + "' changed";
    return State::Stale;
  }
  if (!m->usable) {
    why = "building it emitted diagnostics";
    return State::Unusable;
  }
  auto bytes = llvm::MemoryBuffer::getFile(files.pch);
  if (!bytes || (*bytes)->getBufferSize() != m->pchSize ||
      contentHash((*bytes)->getBuffer()) != m->pchHash) {
    why = "it is missing or damaged";
    return State::Stale;
  }
  use = PchUse{files.pch, std::move(*bytes)};
  return State::Current;
}

/// Counts what a PCH build says, and keeps the first message for the log. A diagnostic
/// about the headers' text (it has a location) makes the PCH unusable: a kernel file
/// parsed from source would show it. One without (an output file that cannot be written)
/// is this run's trouble, not the headers'. The base class does not count them, so that
/// Clang prints no "1 warning generated." for the build.
class DiagnosticCounter : public clang::DiagnosticConsumer {
public:
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    if (level == clang::DiagnosticsEngine::Ignored || level == clang::DiagnosticsEngine::Remark)
      return;
    ++(info.getLocation().isValid() ? inHeaders : elsewhere);
    if (first.empty()) {
      llvm::SmallString<128> message;
      info.FormatDiagnostic(message);
      first = message.str().str();
    }
  }
  int inHeaders = 0, elsewhere = 0;
  std::string first;
};

/// Builds the PCH and its manifest (written under temporary names, then renamed). A
/// build that failed for a reason other than the headers records nothing: the next
/// run tries again.
std::optional<PchUse> build(const clang::CompilerInvocation& pch, const PchFiles& files,
                            const std::string& key, const PchCache& cache) {
  llvm::SmallString<256> tmp;
  llvm::sys::fs::createUniquePath(files.pch + "-%%%%%%%%.tmp", tmp, /*MakeAbsolute=*/false);
  Manifest m;
  m.key = key;
  auto invocation = std::make_shared<clang::CompilerInvocation>(pch);
  invocation->getFrontendOpts().OutputFile = tmp.str().str();
  clang::CompilerInstance ci;
  ci.setInvocation(invocation);
  DiagnosticCounter counter;
  ci.createDiagnostics(&counter, /*ShouldOwnClient=*/false);
  ci.createFileManager(recordingFileSystem(llvm::vfs::getRealFileSystem(), m.inputs));
  ci.createSourceManager(ci.getFileManager());
  clang::GeneratePCHAction action;
  bool built = ci.ExecuteAction(action);
  auto bytes = llvm::MemoryBuffer::getFile(tmp);
  auto failed = [&]() -> std::optional<PchUse> {
    llvm::sys::fs::remove(tmp);
    if (cache.log)
      cache.log("not used: building " + files.pch + " failed" +
                (counter.first.empty() ? "" : ": " + counter.first));
    return std::nullopt;
  };
  if (counter.inHeaders > 0 || m.inputs.listedDirectory) {
    writeManifest(files, m); // usable = false, until an input changes
    return failed();
  }
  if (!built || counter.elsewhere > 0 || !bytes)
    return failed();
  m.usable = true;
  m.pchSize = (*bytes)->getBufferSize();
  m.pchHash = contentHash((*bytes)->getBuffer());
  // The PCH first, then the manifest that vouches for it: a reader that sees the new
  // manifest finds the new PCH (or, racing a later build, a PCH whose hash differs: stale).
  bool stored = !llvm::sys::fs::rename(tmp, files.pch) && writeManifest(files, m);
  llvm::sys::fs::remove(tmp);
  if (cache.log)
    cache.log(std::string(stored ? "built " : "built (could not store it) ") + files.pch);
  return PchUse{files.pch, std::move(*bytes)};
}

} // namespace

std::optional<PchUse> precompiledHl(const clang::CompilerInvocation& invocation,
                                    const std::string& hlPath, const PchCache& cache) {
  auto notUsed = [&](const std::string& why) -> std::optional<PchUse> {
    if (cache.log)
      cache.log("not used: " + why);
    return std::nullopt;
  };
  // A relative path means something else in another directory, which the key does not see.
  if (!llvm::sys::path::is_absolute(hlPath))
    return notUsed("'" + hlPath + "' is a relative path");
  for (const auto& entry : invocation.getHeaderSearchOpts().UserEntries)
    if (!llvm::sys::path::is_absolute(entry.Path))
      return notUsed("the include path '" + entry.Path + "' is relative");

  auto pch = pchInvocation(invocation, hlPath);
  std::string key = keyOf(*pch, hlPath);
  llvm::SmallString<256> base(cache.dir);
  llvm::sys::path::append(base, key);
  PchFiles files{(base + ".pch").str(), (base + ".manifest").str()};

  std::optional<PchUse> use;
  std::string why;
  auto reuse = [&]() -> std::optional<State> {
    State state = check(files, key, use, why);
    if (state == State::Stale)
      return std::nullopt;
    if (cache.log)
      cache.log(state == State::Current ? "reused " + files.pch : "not used: " + why);
    return state;
  };
  if (reuse())
    return use;
  if (std::error_code ec = llvm::sys::fs::create_directories(cache.dir))
    return notUsed("cannot create '" + cache.dir + "': " + ec.message());

  // One builder at a time; the others wait for it and then use its PCH (a builder that
  // died or failed only costs a second build). No lock, no build: a directory where no
  // lock file can be made takes no PCH either, and building one for nothing would double
  // the cost of every compile.
  llvm::LockFileManager lock(files.pch);
  if (lock.getState() == llvm::LockFileManager::LFS_Error)
    return notUsed("cannot lock " + files.pch + ": " + lock.getErrorMessage());
  if (lock.getState() == llvm::LockFileManager::LFS_Shared)
    lock.waitForUnlock(kLockWaitSeconds);
  if (reuse())
    return use;
  if (cache.log)
    cache.log("building " + files.pch + " (" + why + ")");
  return build(*pch, files, key, cache);
}

void discardPch(const std::string& path) {
  llvm::SmallString<256> manifest(path);
  llvm::sys::path::replace_extension(manifest, "manifest");
  llvm::sys::fs::remove(manifest);
}

} // namespace helion::frontend
