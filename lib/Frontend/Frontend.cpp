//===- Frontend.cpp - Parse a kernel file with Clang -----------------------===//
//
// Runs Clang (-fsyntax-only) on the file through a ToolInvocation, forwards its
// diagnostics to our DiagnosticEngine, then lowers every HELION_KERNEL function
// of the main file when Clang found no error.
//===----------------------------------------------------------------------===//
#include "KernelLowering.h"
#include "helion/Support/InstallPaths.h"

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/Utils.h>
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

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic& info) override {
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

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred())
      return; // the AST may be incomplete: Clang's errors come first
    KernelFinder finder(ctx.getSourceManager());
    finder.TraverseDecl(ctx.getTranslationUnitDecl());
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

  int errorsBefore = diags.errorCount();
  DiagnosticForwarder forwarder(diags);
  llvm::IntrusiveRefCntPtr<clang::FileManager> files(
      new clang::FileManager(clang::FileSystemOptions()));
  auto filesRead = std::make_shared<AllFilesRead>();
  clang::tooling::ToolInvocation invocation(
      args, std::make_unique<KernelAction>(diags, result.kernels, filesRead), files.get());
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
