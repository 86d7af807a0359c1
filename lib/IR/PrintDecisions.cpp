//===- PrintDecisions.cpp - Printers of the passes' decisions -------------===//
#include "PrintDecisions.h"

#include "helion/IR/Printer.h"
#include "helion/IR/TemplateMatch.h"

namespace helion::ir {
namespace {

std::string dims(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// The names the kernel printer uses: `%x`, `%acc.0`, `tm`.
struct Names {
  const Kernel& k;
  std::vector<std::string> params = k.paramNames();
  std::string param(int p) const {
    return p >= 0 && p < static_cast<int>(params.size()) ? "%" + params[p] : "%param?";
  }
  std::string var(int v) const {
    return v >= 0 && v < static_cast<int>(k.vars.size())
               ? "%" + k.vars[v].name + "." + std::to_string(v)
               : "%var?";
  }
  std::string tile(int t) const {
    return t >= 0 && t < static_cast<int>(k.tiles.size()) ? k.tiles[t].name : "tile?";
  }
};

} // namespace

std::string printMmaDot(const MmaDotInfo& m) {
  auto name = [](MmaDotInfo::Operand o) {
    return o == MmaDotInfo::Operand::Copied      ? "copied"
           : o == MmaDotInfo::Operand::Registers ? "registers"
                                                 : "owners";
  };
  return std::string("mma(a ") + name(m.a) + ", b " + name(m.b) +
         (m.stages ? ", stages " + std::to_string(m.stages) : "") + (m.early ? ", early" : "") +
         ")";
}

std::string printLaunch(const Launch& l) {
  return "threads " + std::to_string(l.threads) + ", vector_bytes " +
         std::to_string(l.vectorBytes) + ", num_sm_multiplier " + std::to_string(l.smMultiplier) +
         (l.maxnreg ? ", maxnreg " + std::to_string(*l.maxnreg) : "");
}

std::string printGemmParams(const GemmParams& p) {
  std::string sm80 = "sm80 " + dims(p.sm80Bm, p.sm80Bn) + " stages " + std::to_string(p.sm80Stages);
  const std::string kScale =
      p.kScaleBlock ? "; k-scale block " + std::to_string(p.kScaleBlock) : "";
  if (!p.sm90)
    return "gemm " + sm80 + " group_m " + std::to_string(p.groupM) + kScale;
  return "gemm sm90 " + dims(p.bm, p.bn) + " stages " + std::to_string(p.stages) + " consumers " +
         std::to_string(p.consumers) + (p.persistent ? " persistent" : "") + " group_m " +
         std::to_string(p.groupM) + (p.tmaStore ? " tma_store" : "") +
         (p.groupedRows ? " grouped_rows" : "") + "; " + sm80 + kScale;
}

std::string printAttentionParams(const AttentionParams& p) {
  std::string sm80 = "sm80 " + dims(p.bm, p.bn) + " warps " + std::to_string(p.warps) + " mt " +
                     std::to_string(p.mt);
  if (!p.sm90)
    return "attention " + sm80;
  return "attention sm90 " + dims(p.sm90Bm, p.sm90Bn) + " consumers " +
         std::to_string(p.consumers) + " stages " + std::to_string(p.stages) +
         (p.persistent ? " persistent" : "") + "; " + sm80;
}

std::string printMatmulMatch(const Kernel& k, const MatmulMatch& m) {
  const Names n{k};
  std::string s = "a " + n.param(m.a) + ", b " + n.param(m.b) +
                  (m.bTransposed ? " transposed" : "") + ", acc " + n.var(m.accVar) + ", tiles [" +
                  (m.tileB >= 0 ? n.tile(m.tileB) + ", " : "") + n.tile(m.tileM) + ", " +
                  n.tile(m.tileN) + "], k loop " + n.tile(m.tileK);
  if (m.aPrologue)
    s += ", a prologue " + printExpr(k, *m.aPrologue);
  if (m.aStaged >= 0)
    s += ", staged " + n.param(m.aStaged);
  if (m.kScaled)
    s += ", k-scale rows " + (m.kScaleRow ? printExpr(k, *m.kScaleRow) : "1") + " columns " +
         (m.kScaleCol ? printExpr(k, *m.kScaleCol) : "1") +
         (m.kScaleColPerTile ? " (per column tile)" : "");
  if (m.tileG >= 0)
    s += ", groups " + n.tile(m.tileG) + " offsets " + n.param(m.offsets);
  s += ", epilogue " + std::to_string(m.epilogue.size());
  if (m.singleStoreParam >= 0)
    s += ", single store " + n.param(m.singleStoreParam);
  return s;
}

std::string printAttentionMatch(const Kernel& k, const AttentionMatch& m) {
  const Names n{k};
  return "q " + n.param(m.q) + ", k " + n.param(m.k) + ", v " + n.param(m.v) + ", acc " +
         n.var(m.accVar) + ", sum " + n.var(m.sumVar) + ", max " + n.var(m.maxVar) + ", tiles [" +
         n.tile(m.tileB) + ", " + n.tile(m.tileM) + "], key loop " + n.tile(m.tileN) +
         ", head dim " + (m.headDim ? printExpr(k, *m.headDim) : "?") +
         (m.causal ? ", causal" : "") + ", score " + (m.score ? printExpr(k, *m.score) : "?") +
         ", epilogue " + std::to_string(m.epilogue.size());
}

std::string printChainMatch(const Kernel& k, const ChainMatch& m) {
  const Names n{k};
  // A whole dim (no tile) prints as ":": `tiles [tb, tm, :]`, `k whole`.
  return "a " + n.param(m.a) + ", b1 " + n.param(m.b1) + (m.b1KMajor ? " transposed" : "") +
         ", b2 " + n.param(m.b2) + ", acc " + n.var(m.accVar) + ", tiles [" +
         (m.tileB >= 0 ? n.tile(m.tileB) + ", " : "") + n.tile(m.tileM) + ", " +
         (m.tileN >= 0 ? n.tile(m.tileN) : ":") + "], hidden " + n.tile(m.tileH) + " " +
         n.var(m.hiddenVar) + (m.tileK >= 0 ? ", k loop " + n.tile(m.tileK) : ", k whole") +
         ", act " + (m.act ? printExpr(k, *m.act) : "?") + ", epilogue " +
         std::to_string(m.epilogue.size());
}

std::string printChainParams(const ChainParams& p) {
  std::string st;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      st += (i || j ? (j ? "/" : ", ") : "") + std::to_string(p.stages[i][j]);
  return "chain sm90 " + dims(p.bm, p.bn) + " consumers " + std::to_string(p.consumers) +
         " dv <= " + std::to_string(p.dvMax) + " stages " + st;
}

} // namespace helion::ir
