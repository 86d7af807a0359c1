//===- Frontend.cpp - Parse a kernel file with Clang -----------------------===//
//
// Runs Clang (-fsyntax-only) on the file through a ToolInvocation, forwards its
// diagnostics to our DiagnosticEngine, then lowers every HELION_KERNEL function
// of the main file when Clang found no error. A file that starts with
// `#include <helion/hl.h>` is parsed on top of a precompiled hl.h when it can be
// (PrecompiledHeader.h).
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "PrecompiledHeader.h"
#include "helion/Support/InstallPaths.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticFrontend.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

namespace helion::frontend {
namespace {

/// Clang's diagnostics in our format (file:line:col: error: message + caret).
class DiagnosticForwarder : public clang::DiagnosticConsumer {
public:
  explicit DiagnosticForwarder(DiagnosticEngine& diags) : diags_(diags) {}

  /// While set, Clang's complaints about the PCH it loads are not forwarded (nor
  /// counted) but noted in `pchRefused`: the file is then parsed again without it.
  bool watchPch = false;
  bool pchRefused = false;

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
    if (watchPch && isAboutPch(info.getID())) {
      pchRefused = true;
      return;
    }
    DiagnosticConsumer::HandleDiagnostic(level, info);
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    ir::SourceLoc loc;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      const clang::SourceManager& sm = info.getSourceManager();
      clang::PresumedLoc p = sm.getPresumedLoc(sm.getExpansionLoc(info.getLocation()));
      if (p.isValid())
        loc = {p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
    }
    switch (level) {
    case clang::DiagnosticsEngine::Ignored:
    case clang::DiagnosticsEngine::Remark:
      return;
    case clang::DiagnosticsEngine::Note:
      diags_.note(loc, message.str().str());
      return;
    case clang::DiagnosticsEngine::Warning:
      diags_.warning(loc, message.str().str());
      return;
    case clang::DiagnosticsEngine::Error:
    case clang::DiagnosticsEngine::Fatal:
      diags_.error(loc, message.str().str());
      return;
    }
  }

private:
  static bool isAboutPch(unsigned id) {
    return (id >= clang::diag::DIAG_START_SERIALIZATION && id < clang::diag::DIAG_START_LEX) ||
           id == clang::diag::err_fe_unable_to_load_pch;
  }

  DiagnosticEngine& diags_;
};

bool isKernel(const clang::FunctionDecl* fn) {
  for (const auto* a : fn->specific_attrs<clang::AnnotateAttr>())
    if (a->getAnnotation() == "helion.kernel")
      return true;
  return false;
}

class KernelFinder : public clang::RecursiveASTVisitor<KernelFinder> {
public:
  std::vector<const clang::FunctionDecl*> kernels;
  explicit KernelFinder(clang::SourceManager& sm) : sm_(sm) {}
  bool VisitFunctionDecl(clang::FunctionDecl* fn) {
    if (fn->doesThisDeclarationHaveABody() && isKernel(fn) &&
        sm_.isInMainFile(sm_.getExpansionLoc(fn->getLocation())))
      kernels.push_back(fn);
    return true;
  }

private:
  clang::SourceManager& sm_;
};

/// Operations an expression may nest: the IR and the CUDA emitter walk an
/// expression recursively, one call per level, so the nesting that reaches them is
/// bounded (a generated `a + a + ... + a` of 20,000 terms is rejected here).
constexpr unsigned kMaxExpressionDepth = 1000;

/// The first operation of `body` nested deeper than kMaxExpressionDepth, and the
/// deepest nesting found. Only operations count (operators, calls, subscripts,
/// conditionals), not the implicit casts and temporaries Clang wraps them in. The
/// walk keeps its own stack: it must not recurse as deep as the input.
struct DeepExpression {
  const clang::Stmt* at = nullptr; ///< the outermost operation of the first one too deep
  unsigned depth = 0;
};
DeepExpression deepestExpression(const clang::Stmt* body) {
  struct Item {
    const clang::Stmt* s;
    unsigned depth;
    const clang::Stmt* outermost; ///< the first operation on the way down
  };
  DeepExpression out;
  std::vector<Item> stack = {{body, 0, nullptr}};
  while (!stack.empty()) {
    auto [s, depth, outermost] = stack.back();
    stack.pop_back();
    if (!s)
      continue;
    if (llvm::isa<clang::BinaryOperator, clang::UnaryOperator, clang::CallExpr,
                  clang::AbstractConditionalOperator, clang::ArraySubscriptExpr>(s)) {
      ++depth;
      outermost = outermost ? outermost : s;
      if (depth > kMaxExpressionDepth && !out.at)
        out.at = outermost;
      out.depth = std::max(out.depth, depth);
    }
    for (const clang::Stmt* child : s->children())
      stack.push_back({child, depth, outermost});
  }
  return out;
}

class KernelConsumer : public clang::ASTConsumer {
public:
  KernelConsumer(DiagnosticEngine& diags, std::vector<ParsedKernel>& out)
      : diags_(diags), out_(out) {}

  /// The declarations parsed from source, in order. Kernels are among those of the
  /// main file; walking the whole translation unit instead would also load every
  /// declaration of a precompiled hl.h from disk (most of a compile's time).
  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    topLevel_.insert(topLevel_.end(), group.begin(), group.end());
    return true;
  }
  /// Declarations a precompiled header hands over: none is in the main file.
  void HandleInterestingDecl(clang::DeclGroupRef) override {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred())
      return; // the AST may be incomplete: Clang's errors come first
    KernelFinder finder(ctx.getSourceManager());
    for (clang::Decl* decl : topLevel_)
      finder.TraverseDecl(decl);
    for (const clang::FunctionDecl* fn : finder.kernels) {
      ir::SourceLoc at;
      clang::PresumedLoc p =
          ctx.getSourceManager().getPresumedLoc(ctx.getSourceManager().getExpansionLoc(fn->getLocation()));
      if (p.isValid())
        at = {p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
      if (fn->isTemplated()) {
        diags_.error(at, "kernel templates are not supported: '" + fn->getNameAsString() +
                             "' must be a plain function");
        continue;
      }
      if (llvm::isa<clang::CXXMethodDecl>(fn)) {
        diags_.error(at, "a kernel must be a free function, not a member function");
        continue;
      }
      if (DeepExpression deep = deepestExpression(fn->getBody()); deep.at) {
        clang::PresumedLoc d = ctx.getSourceManager().getPresumedLoc(
            ctx.getSourceManager().getExpansionLoc(deep.at->getBeginLoc()));
        diags_.error(d.isValid() ? ir::SourceLoc{d.getFilename(), static_cast<int>(d.getLine()),
                                                 static_cast<int>(d.getColumn())}
                                 : at,
                     "expression nested too deeply (" + std::to_string(deep.depth) +
                         " levels, limit " + std::to_string(kMaxExpressionDepth) + ")");
        continue;
      }
      if (auto kernel = KernelLowering(ctx, diags_, fn).run())
        out_.push_back(std::move(*kernel));
    }
  }

private:
  DiagnosticEngine& diags_;
  std::vector<ParsedKernel>& out_;
  std::vector<clang::Decl*> topLevel_;
};

/// Every file Clang reads: the main file and each header, system headers and those
/// behind a precompiled header included (a depfile must name them all).
class AllFilesRead : public clang::DependencyCollector {
  bool needSystemDependencies() override { return true; }
};

class KernelAction : public clang::ASTFrontendAction {
public:
  KernelAction(DiagnosticEngine& diags, std::vector<ParsedKernel>& out,
               std::shared_ptr<AllFilesRead> filesRead)
      : diags_(diags), out_(out), filesRead_(std::move(filesRead)) {}
  /// Before the preprocessor (and any AST reader) exists, so the collector sees every file.
  bool PrepareToExecuteAction(clang::CompilerInstance& ci) override {
    ci.addDependencyCollector(filesRead_);
    return true;
  }
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<KernelConsumer>(diags_, out_);
  }

private:
  DiagnosticEngine& diags_;
  std::vector<ParsedKernel>& out_;
  std::shared_ptr<AllFilesRead> filesRead_;
};

/// Runs KernelAction on the invocation the driver made for the file: on top of the
/// precompiled hl.h when there is a current one (`cache` set), else from source, as
/// FrontendActionFactory::runInvocation does.
class KernelTool : public clang::tooling::ToolAction {
public:
  KernelTool(DiagnosticEngine& diags, DiagnosticForwarder& forwarder,
             std::vector<ParsedKernel>& out, const PchCache* cache, std::string hlPath,
             std::shared_ptr<AllFilesRead> filesRead)
      : diags_(diags), forwarder_(forwarder), out_(out), cache_(cache),
        hlPath_(std::move(hlPath)), filesRead_(std::move(filesRead)) {}

  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation,
                     clang::FileManager* files,
                     std::shared_ptr<clang::PCHContainerOperations> pchOps,
                     clang::DiagnosticConsumer* consumer) override {
    std::optional<PchUse> pch = cache_ ? precompiledHl(*invocation, hlPath_, *cache_)
                                       : std::nullopt;
    if (!pch)
      return run(std::move(invocation), files, pchOps, consumer);
    // Clang reads the PCH from the bytes that were checked, under its own path.
    std::string path = pch->path;
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    memory->addFile(path, 0, std::move(pch->bytes));
    auto overlay =
        llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(files->getVirtualFileSystemPtr());
    overlay->pushOverlay(memory);
    auto withPch = std::make_shared<clang::CompilerInvocation>(*invocation);
    withPch->getPreprocessorOpts().ImplicitPCHInclude = path;
    auto pchFiles =
        llvm::makeIntrusiveRefCnt<clang::FileManager>(files->getFileSystemOpts(), overlay);
    forwarder_.watchPch = true;
    bool ok = run(std::move(withPch), pchFiles.get(), pchOps, consumer);
    forwarder_.watchPch = false;
    if (!forwarder_.pchRefused)
      return ok;
    // Clang refuses a PCH before it parses anything: nothing was reported yet.
    if (cache_->log)
      cache_->log("Clang refused " + path + "; parsing without it");
    discardPch(path);
    out_.clear();
    return run(std::move(invocation), files, pchOps, consumer);
  }

private:
  bool run(std::shared_ptr<clang::CompilerInvocation> invocation, clang::FileManager* files,
           std::shared_ptr<clang::PCHContainerOperations> pchOps,
           clang::DiagnosticConsumer* consumer) {
    clang::CompilerInstance ci(std::move(pchOps));
    ci.setInvocation(std::move(invocation));
    ci.setFileManager(files);
    KernelAction action(diags_, out_, filesRead_); // destroyed before `ci`, which it may refer to
    ci.createDiagnostics(consumer, /*ShouldOwnClient=*/false);
    if (!ci.hasDiagnostics())
      return false;
    ci.createSourceManager(*files);
    bool ok = ci.ExecuteAction(action);
    files->clearStatCache();
    return ok;
  }

  DiagnosticEngine& diags_;
  DiagnosticForwarder& forwarder_;
  std::vector<ParsedKernel>& out_;
  const PchCache* cache_;
  std::string hlPath_;
  std::shared_ptr<AllFilesRead> filesRead_;
};

/// Whether the first thing in `text` (comments aside) is `#include <helion/hl.h>`
/// alone on its line. Only then is parsing on top of the precompiled hl.h the same as
/// parsing the file: the PCH stands for what the file's first lines include, and the
/// file's own #include of hl.h is then skipped (#pragma once), as a second one would be.
bool startsWithHlInclude(llvm::StringRef text) {
  clang::LangOptions lang;
  lang.CPlusPlus = true;
  clang::Lexer lexer(clang::SourceLocation(), lang, text.begin(), text.begin(), text.end());
  clang::Token tok;
  lexer.LexFromRawLexer(tok);
  if (!tok.is(clang::tok::hash) || !tok.isAtStartOfLine())
    return false;
  lexer.LexFromRawLexer(tok);
  if (!tok.is(clang::tok::raw_identifier) || tok.getRawIdentifier() != "include")
    return false;
  lexer.LexIncludeFilename(tok);
  if (!tok.is(clang::tok::header_name) ||
      llvm::StringRef(tok.getLiteralData(), tok.getLength()) != "<helion/hl.h>")
    return false;
  lexer.LexFromRawLexer(tok);
  return tok.is(clang::tok::eof) || tok.isAtStartOfLine();
}

/// Whether Clang arguments after `--` leave parsing on top of the PCH the same as
/// without it: macros, include paths, warnings and the language standard (all part
/// of the PCH's key). Others (-include, -v, -H, -E, ...) could change the order of
/// the headers or what is printed: such a file is parsed from source.
bool pchCompatible(const std::vector<std::string>& args) {
  static const llvm::StringRef kWithValue[] = {"-D",        "-U",         "-I",
                                               "-isystem", "-idirafter", "-iquote"};
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (llvm::is_contained(kWithValue, arg)) {
      if (++i == args.size())
        return false;
      continue;
    }
    bool joined = llvm::any_of(kWithValue, [&](llvm::StringRef o) { return arg.starts_with(o); });
    bool warning = arg.starts_with("-W") && !arg.starts_with("-Wl,") &&
                   !arg.starts_with("-Wa,") && !arg.starts_with("-Wp,");
    if (!joined && !warning && !arg.starts_with("-std=") && arg != "-w")
      return false;
  }
  return true;
}

} // namespace

std::string clangResourceDir() {
  if (const char* env = std::getenv("HELIONC_CLANG_RESOURCE_DIR"); env && *env)
    return env;
  // A packed helionc (scripts/pack_helionc.sh): <bundle>/bin/helionc next to
  // <bundle>/lib/clang/<major>/include.
  if (std::string dir = findBesideExecutable("lib/clang/" HELIONC_CLANG_MAJOR, "include/stddef.h");
      !dir.empty())
    return dir;
  return HELIONC_CLANG_RESOURCE_DIR;
}

std::optional<ParseResult> parseKernels(const std::string& file, const ParseOptions& options,
                                        DiagnosticEngine& diags) {
  auto buffer = llvm::MemoryBuffer::getFile(file);
  if (!buffer) {
    diags.error("cannot read '" + file + "': " + buffer.getError().message());
    return std::nullopt;
  }
  ParseResult result;
  result.file = file;
  result.text = (*buffer)->getBuffer().str();
  diags.addFile(file, result.text);

  // The driver looks for a GCC installation beside its own directory first: a bare
  // "helionc" found one at "/../lib/gcc/..." (through a /lib symlink), header paths
  // that a depfile reader resolving ".." by name cannot find.
  std::string exeDir = executableDir();
  std::string driver = exeDir.empty() ? "helionc" : exeDir + "/helionc";
  // -Wno-stack-exhausted: Clang measures its stack against the 8 MiB of a main
  // thread; helionc runs it on a 1 GiB one (main.cpp).
  std::vector<std::string> args = {driver,          "-std=c++23",
                                   "-fsyntax-only",  "-fno-color-diagnostics",
                                   "-Wno-stack-exhausted", "-resource-dir",
                                   clangResourceDir()};
  if (!options.includeDir.empty()) {
    args.push_back("-I");
    args.push_back(options.includeDir);
  }
  args.insert(args.end(), options.clangArgs.begin(), options.clangArgs.end());
  args.push_back("-x");
  args.push_back("c++");
  args.push_back(file);

  std::optional<PchCache> cache;
  std::string hlPath;
  if (!options.pchDir.empty() && !options.includeDir.empty()) {
    auto log = [](std::string line) { llvm::errs() << "helionc: pch: " << line << "\n"; };
    if (!startsWithHlInclude(result.text)) {
      if (options.pchLog)
        log("not used: '" + file + "' does not start with #include <helion/hl.h>");
    } else if (!pchCompatible(options.clangArgs)) {
      if (options.pchLog)
        log("not used: the Clang arguments after -- are more than -D/-U/-I/-W/-std");
    } else {
      cache = PchCache{options.pchDir, options.pchLog ? log : std::function<void(std::string)>()};
      llvm::SmallString<256> path(options.includeDir);
      llvm::sys::path::append(path, "helion", "hl.h");
      hlPath = path.str().str();
    }
  }

  int errorsBefore = diags.errorCount();
  DiagnosticForwarder forwarder(diags);
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions()));
  auto filesRead = std::make_shared<AllFilesRead>();
  KernelTool tool(diags, forwarder, result.kernels, cache ? &*cache : nullptr, hlPath, filesRead);
  clang::tooling::ToolInvocation invocation(args, &tool, files.get(),
                                            std::make_shared<clang::PCHContainerOperations>());
  invocation.setDiagnosticConsumer(&forwarder);
  bool ok = invocation.run();
  result.filesRead = filesRead->getDependencies().vec();
  if (!ok && diags.errorCount() == errorsBefore)
    diags.error("clang could not parse '" + file + "'");
  if (diags.errorCount() > errorsBefore)
    return std::nullopt;
  return result;
}

} // namespace helion::frontend
