//===- KernelLowering.h - One HELION_KERNEL function to IR -------*- C++ -*-===//
//
// Private to lib/Frontend (it includes Clang). KernelLowering walks one kernel
// function: host statements are only scanned (ranks, block sizes, captures, the
// rule that host code between device loops must not read device results); device
// loops are lowered statement by statement (DeviceStmts.cpp) and expression by
// expression (DeviceExprs.cpp, DeviceCalls.cpp, DeviceIndexing.cpp). Every user
// error is a diagnostic; on any error the kernel is dropped but lowering goes on,
// so that one run reports many errors.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/Frontend/Frontend.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/StmtCXX.h>
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>

#include <optional>

namespace helion::frontend {

/// Strips what Clang adds around the value a user wrote: implicit casts, parens,
/// temporaries, copies and implicit conversions (constructors and conversion operators).
const clang::Expr* ignoreWrappers(const clang::Expr* e);
/// The elements of a braced list `{a, b}` however it reached the callee, or nullopt.
std::optional<std::vector<const clang::Expr*>> listElements(const clang::Expr* e);
/// The qualified name of the function a call calls ("helion::hl::tile"), or "".
std::string calleeName(const clang::CallExpr* call);
/// True when `type` (references and cv stripped) is the class `qualifiedName`.
bool isClass(clang::QualType type, llvm::StringRef qualifiedName);
/// The call's arguments, default arguments left out.
std::vector<const clang::Expr*> writtenArgs(const clang::CallExpr* call);
/// A new expression node of `kind` at `loc`, for the Device*.cpp lowerings to fill in.
std::shared_ptr<ir::Expr> makeExpr(ir::ExprKind kind, ir::SourceLoc loc);
/// True when `e` (wrappers stripped) names the declaration `qualifiedName` ("helion::hl::all").
bool isNamed(const clang::Expr* e, llvm::StringRef qualifiedName);
/// The scalar type of a builtin C++ type (references and cv stripped): bool, float,
/// double, 8/32/64-bit integers; nullopt for anything else.
std::optional<ir::ScalarType> scalarTypeOf(clang::QualType t, const clang::ASTContext& ctx);

class KernelLowering {
public:
  KernelLowering(clang::ASTContext& ctx, DiagnosticEngine& diags, const clang::FunctionDecl* fn)
      : ctx_(ctx), sm_(ctx.getSourceManager()), diags_(diags), fn_(fn) {}

  /// Lowers the kernel; nullopt when it reported an error.
  std::optional<ParsedKernel> run();

private:
  // KernelLowering.cpp: the function, its parameters and its host code.
  void addFunctionParams();
  void scanHostStmt(const clang::Stmt* s, bool betweenLoops);
  void noteRank(const clang::ValueDecl* d, const clang::Expr* init);
  std::optional<int> tensorParam(const clang::ValueDecl* d, clang::SourceLocation use);
  std::optional<int> scalarParam(const clang::ValueDecl* d, clang::SourceLocation use);
  bool isHostDecl(const clang::ValueDecl* d) const;
  HostRegion tokenRange(clang::SourceLocation begin, clang::SourceLocation end) const;

  // DeviceStmts.cpp: statements and tile loops.
  ir::StmtRef lowerTileLoop(const clang::CXXForRangeStmt* loop);
  void lowerStmt(const clang::Stmt* s, std::vector<ir::StmtRef>& out);
  void lowerExprStmt(const clang::Expr* e, std::vector<ir::StmtRef>& out);
  ir::StmtRef lowerAssign(const clang::Expr* lhs, const clang::Expr* rhs,
                          std::optional<ir::BinaryOp> compound, clang::SourceLocation opLoc);
  ir::StmtRef lowerStoreCall(const clang::CallExpr* call);
  ir::StmtRef lowerAtomicAdd(const clang::CallExpr* call);
  std::optional<int> blockSizeFor(const clang::Expr* spec, const std::string& name,
                                  ir::SourceLoc loc, ir::ExprRef hint);

  // DeviceExprs.cpp: values (operators, variables, constants).
  ir::ExprRef lowerExpr(const clang::Expr* e);
  ir::ExprRef lowerOperatorCall(const clang::CXXOperatorCallExpr* call);
  ir::ExprRef lowerDeclRef(const clang::DeclRefExpr* ref);
  std::optional<ir::ScalarType> literalDType(const clang::Expr* e);
  std::optional<int64_t> constantInt(const clang::Expr* e);
  std::optional<int> tensorOf(const clang::Expr* e);
  std::optional<int> tileOf(const clang::Expr* e);
  ir::ExprRef constant(const clang::Expr* e);

  // DeviceCalls.cpp: hl:: functions and Tensor/tile methods.
  ir::ExprRef lowerCall(const clang::CallExpr* call);
  ir::ExprRef lowerMemberCall(const clang::CXXMemberCallExpr* call);

  // DeviceHelpers.cpp: calls of the user's own functions, inlined.
  bool isHelperCall(const clang::CallExpr* call) const;
  ir::ExprRef inlineHelper(const clang::CallExpr* call, clang::SourceLocation where);

  // DeviceIndexing.cpp: subscripts, indices and shapes.
  ir::ExprRef lowerSubscript(const clang::CXXOperatorCallExpr* call);
  std::optional<ir::Index> lowerIndex(const clang::Expr* e);
  bool lowerIndices(llvm::ArrayRef<const clang::Expr*> args, std::vector<ir::Index>& out);
  bool lowerIndexList(llvm::ArrayRef<const clang::Expr*> args, std::vector<ir::Index>& out);
  bool lowerShape(const clang::Expr* list, ir::Expr& into);

  // Helpers.
  ir::SourceLoc loc(clang::SourceLocation l) const;
  std::nullptr_t error(clang::SourceLocation l, const std::string& message);
  std::string spelling(const clang::Expr* e) const;

  clang::ASTContext& ctx_;
  clang::SourceManager& sm_;
  DiagnosticEngine& diags_;
  const clang::FunctionDecl* fn_;
  ir::Kernel kernel_;
  HostInfo host_;
  bool failed_ = false;

  /// A helper being inlined: its definition (the template's, for instantiations), the
  /// call site and its name, innermost last.
  struct InlineFrame {
    const clang::FunctionDecl* helper;
    clang::SourceLocation callSite;
    std::string name;
  };
  std::vector<InlineFrame> inlining_;
  /// Where statements that a value needs first go (a helper's body): the statement list
  /// being built, or null outside a device statement (tile loop bounds at the top level).
  std::vector<ir::StmtRef>* pending_ = nullptr;

  llvm::DenseMap<const clang::ValueDecl*, int> paramOf_; ///< kernel parameters by host decl
  llvm::DenseMap<const clang::ValueDecl*, int> varOf_;   ///< device variables
  llvm::DenseMap<const clang::ValueDecl*, int> tileOf_;  ///< tile loop variables
  llvm::DenseMap<const clang::ValueDecl*, int> rankOf_;  ///< tensors of statically known rank
  llvm::DenseMap<const clang::ValueDecl*, int> registeredBlockSize_;
  llvm::DenseSet<const clang::ValueDecl*> specialized_;
  llvm::DenseMap<const clang::ValueDecl*, unsigned> writtenBy_; ///< tensor -> line of its store
};

} // namespace helion::frontend
