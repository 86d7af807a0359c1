//===- ChainRules.cpp - When the chain template takes a kernel -------------===//
//
// helion/Config/ChainRules.h.
//===----------------------------------------------------------------------===//
#include "helion/Config/ChainRules.h"

#include <algorithm>

namespace helion::config {

int64_t chainSm90SmemBytes(int64_t dk, int64_t dv, int64_t bn, int64_t consumers, int64_t stages) {
  return 1024 + 64 * consumers * dk * 2 + stages * bn * (dk + dv) * 2 + 8 * (2 + 4 * stages);
}

ir::ChainParams chainParams(int64_t bm, int64_t bn, int numStages) {
  bm = bm >= 128 ? 128 : 64;
  bn = bn >= 128 ? 128 : 64;
  ir::ChainParams p;
  p.bm = static_cast<int>(bm);
  p.bn = static_cast<int>(bn);
  p.consumers = static_cast<int>(bm / 64);
  p.dvMax = 64;
  while (p.dvMax < 256 && (2 * p.dvMax) / 2 + bn / 2 + bn / 4 <= 176)
    p.dvMax *= 2;
  constexpr int64_t kMaxSmem = 227 * 1024;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int64_t dk = 64 << i, dv = 64 << j;
      int s = std::clamp(numStages, 2, 4);
      while (s >= 2 && chainSm90SmemBytes(dk, dv, bn, p.consumers, s) > kMaxSmem)
        --s;
      p.stages[i][j] = dv <= p.dvMax && s >= 2 ? s : 0;
    }
  return p;
}

} // namespace helion::config
