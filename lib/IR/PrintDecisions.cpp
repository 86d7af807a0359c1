//===- PrintDecisions.cpp - Printers of the passes' decisions -------------===//
#include "PrintDecisions.h"

namespace helion::ir {
namespace {

std::string dims(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

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
  if (!p.sm90)
    return "gemm " + sm80 + " group_m " + std::to_string(p.groupM);
  return "gemm sm90 " + dims(p.bm, p.bn) + " stages " + std::to_string(p.stages) + " consumers " +
         std::to_string(p.consumers) + (p.persistent ? " persistent" : "") + " group_m " +
         std::to_string(p.groupM) + "; " + sm80;
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

} // namespace helion::ir
