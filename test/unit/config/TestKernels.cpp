#include "TestKernels.h"

namespace helion::config::test {

using namespace ir;

namespace {

StmtRef forLoop(std::vector<int> tiles, std::vector<StmtRef> body) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::For;
  s->tiles = std::move(tiles);
  s->body = std::move(body);
  return s;
}

StmtRef let(int var, ExprRef value) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::Let;
  s->var = var;
  s->value = std::move(value);
  return s;
}

StmtRef assign(int var, ExprRef value) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::Assign;
  s->var = var;
  s->value = std::move(value);
  return s;
}

StmtRef store(int param, std::vector<Index> indices, ExprRef value) {
  auto s = std::make_shared<Stmt>();
  s->kind = StmtKind::Store;
  s->param = param;
  s->indices = std::move(indices);
  s->value = std::move(value);
  return s;
}

ExprRef dot(ExprRef a, ExprRef b, ExprRef acc) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Dot;
  e->operands = {std::move(a), std::move(b), std::move(acc)};
  return e;
}

Param tensor(std::string name) {
  Param p;
  p.name = std::move(name);
  p.rank = 2;
  return p;
}

TileVar tile(int id, std::string name, int blockSize) {
  TileVar t;
  t.id = id;
  t.name = std::move(name);
  t.begin = makeConst(0, true);
  t.end = makeConst(1024, true);
  t.blockSize = blockSize;
  return t;
}

BlockSizeDecl decl(int id, std::string name) {
  BlockSizeDecl d;
  d.id = id;
  d.name = std::move(name);
  return d;
}

} // namespace

Kernel softmaxKernel(bool withAxis) {
  Kernel k;
  k.name = "softmax";
  k.params = {tensor("x"), tensor("out")};
  k.tiles = {tile(0, "tm", 0)};
  k.blockSizes = {decl(0, "tm")};
  if (withAxis) {
    Axis a0;
    a0.id = 0;
    a0.param = 0;
    a0.dim = 1;
    k.axes = {a0};
  }
  k.vars = {Var{0, "values", {}}};
  k.body = {forLoop({0}, {let(0, makeLoad(0, {Index::ofTile(0), Index::all()})),
                          store(1, {Index::ofTile(0), Index::all()},
                                makeUnary(UnaryOp::Exp, makeVarRef(0)))})};
  return k;
}

Kernel matmulKernel() {
  Kernel k;
  k.name = "matmul";
  k.params = {tensor("x"), tensor("y"), tensor("out")};
  k.tiles = {tile(0, "tm", 0), tile(1, "tn", 1), tile(2, "tk", 2)};
  k.blockSizes = {decl(0, "tm"), decl(1, "tn"), decl(2, "tk")};
  k.vars = {Var{0, "acc", {}}};
  ExprRef x = makeLoad(0, {Index::ofTile(0), Index::ofTile(2)});
  ExprRef y = makeLoad(1, {Index::ofTile(2), Index::ofTile(1)});
  k.body = {forLoop({0, 1}, {let(0, makeConst(0, false)),
                             forLoop({2}, {assign(0, dot(x, y, makeVarRef(0)))}),
                             store(2, {Index::ofTile(0), Index::ofTile(1)}, makeVarRef(0))})};
  return k;
}

Kernel scaledMatmulKernel() {
  Kernel k = matmulKernel();
  k.name = "scaled";
  auto product = std::make_shared<Expr>();
  product->kind = ExprKind::Dot;
  product->operands = {makeLoad(0, {Index::ofTile(0), Index::ofTile(2)}),
                       makeLoad(1, {Index::ofTile(2), Index::ofTile(1)})};
  auto two = std::make_shared<Expr>(*makeConst(2, false));
  two->type = BlockType{}; // one element: a row factor (kBlockScale reads the shape)
  ExprRef sum = makeBinary(BinaryOp::Add, makeVarRef(0), makeBinary(BinaryOp::Mul, product, two));
  k.body = {forLoop({0, 1}, {let(0, makeConst(0, false)), forLoop({2}, {assign(0, sum)}),
                             store(2, {Index::ofTile(0), Index::ofTile(1)}, makeVarRef(0))})};
  return k;
}

Kernel tiledKernel() {
  Kernel k = matmulKernel();
  k.name = "tiled";
  ExprRef x = makeLoad(0, {Index::ofTile(0), Index::ofTile(2)});
  ExprRef y = makeLoad(1, {Index::ofTile(2), Index::ofTile(1)});
  ExprRef sum = makeBinary(BinaryOp::Add, makeVarRef(0), makeBinary(BinaryOp::Mul, x, y));
  k.body = {forLoop({0, 1}, {let(0, makeConst(0, false)), forLoop({2}, {assign(0, sum)}),
                             store(2, {Index::ofTile(0), Index::ofTile(1)}, makeVarRef(0))})};
  return k;
}

Kernel twoPassKernel() {
  Kernel k;
  k.name = "softmax_two_pass";
  k.params = {tensor("x"), tensor("out")};
  k.tiles = {tile(0, "tm", 0), tile(1, "tn", 1), tile(2, "tn2", 1)};
  BlockSizeDecl blockM = decl(0, "block_m");
  blockM.fixed = 16;
  BlockSizeDecl blockN = decl(1, "block_n");
  blockN.min = 16;
  blockN.max = 1024;
  k.blockSizes = {blockM, blockN};
  k.vars = {Var{0, "values", {}}};
  ExprRef load1 = makeLoad(0, {Index::ofTile(0), Index::ofTile(1)});
  ExprRef load2 = makeLoad(0, {Index::ofTile(0), Index::ofTile(2)});
  k.body = {forLoop({0}, {forLoop({1}, {let(0, load1)}),
                          forLoop({2}, {store(1, {Index::ofTile(0), Index::ofTile(2)}, load2)})})};
  return k;
}

} // namespace helion::config::test
