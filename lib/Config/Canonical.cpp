//===- Canonical.cpp - One config per generated code -----------------------===//
//
// Some entries change the generated code only together with others; canonicalize()
// gives every config that would generate the same code as another the same form,
// so the tuner never measures (or counts against its budget) a change that changes
// nothing. An entry without effect takes the default config's value; values with
// the same effect take one of them. The rules, by kernel:
//
//   every kernel without hl::dot (the generic CUDA emitter):
//     num_sm_multiplier   only with pid_type persistent_*
//     vector_bytes        16 is 0 (auto: 16-byte vectors where the tensor allows)
//     l2_groupings        not with pid_type xyz (blockIdx.x/y/z are the tiles)
//     indexing            only block_ptr on a stageable load (ConfigSpec::
//                         stageableSites), only in a persistent program with
//                         num_stages >= 2, only when the load spans no looped
//                         reduction axis: it stages the load (PersistentLoads.cpp);
//                         tensor_descriptor is pointer
//     num_stages          only with such a staged load, or in a kernel with general
//                         dots, only when one is pipelined (ir::planMma)
//     load_eviction_policies  only on hintable loads (ConfigSpec::hintableLoads), and
//                         there only when the layout reads them as vectors (a
//                         condition of the layout, not canonicalized); not on the
//                         loads a general dot copies into shared memory (ir::planMma)
//   a tensor-core matmul (MatmulRules.cpp):
//     indexing            tensor_descriptor on every site (sm90) or not (sm80:
//                         taken as pointer everywhere)
//     pid_type            xyz is flat, persistent_blocked is persistent_interleaved;
//                         sm80 runs one CTA per tile whatever it says
//     num_warps           sm80 always runs 8 warps
//   flash attention (AttentionRules.cpp):
//     indexing            as for a matmul
//     pid_type            xyz is flat; sm80 runs one CTA per tile whatever it says
//
// The configs.random test checks both ways: a canonical config differs in code
// from its one-key variants, and a config generates the code of its canonical form.
//===----------------------------------------------------------------------===//
#include "helion/Config/Candidates.h"
#include "helion/Config/BlockSizes.h"
#include "helion/Config/Sites.h"
#include "helion/Config/TemplateRules.h"
#include "helion/IR/MmaPlan.h"

#include <algorithm>
#include <set>

namespace helion::config {
namespace {

bool isPersistent(PidType p) {
  return p == PidType::PersistentBlocked || p == PidType::PersistentInterleaved;
}

/// Whether the load of site `site` spans a reduction axis that `c` loops over:
/// the emitter stages only loads it can hold whole.
bool spansLoopedAxis(const ConfigSpec& spec, const Config& c, int site) {
  if (!spec.kernel)
    return false;
  for (const Site& s : loadStoreSites(*spec.kernel)) {
    if (s.index != site || !s.load || !s.load->type)
      continue;
    for (const ir::Dim& d : s.load->type->dims)
      if (d.kind == ir::Dim::Kind::Full && d.axis >= 0 &&
          d.axis < static_cast<int>(c.reductionLoops.size()) && c.reductionLoops[d.axis])
        return true;
  }
  return false;
}

void generic(Config& c, const ConfigSpec& spec, const Config& d) {
  const bool persistent = isPersistent(c.pidType);
  if (!persistent)
    c.numSmMultiplier = d.numSmMultiplier;
  if (c.vectorBytes == 16) // what 0 (auto) means
    c.vectorBytes = 0;
  if (c.pidType == PidType::Xyz)
    c.l2Groupings = d.l2Groupings;
  bool staged = false;
  for (size_t i = 0; i < c.indexing.size(); ++i) {
    const int site = static_cast<int>(i);
    const bool stageable = std::count(spec.stageableSites.begin(), spec.stageableSites.end(), site);
    if (c.indexing[i] == Indexing::BlockPtr && stageable && persistent && c.numStages >= 2 &&
        !spansLoopedAxis(spec, c, site)) {
      staged = true;
      continue;
    }
    c.indexing[i] = i < d.indexing.size() ? d.indexing[i] : Indexing::Pointer;
  }
  // num_stages: the general dots' pipeline where one is pipelined (ir::planMma),
  // else the block_ptr staging's.
  std::set<const ir::Expr*> copied; // loads the general dots copy (their hints do nothing)
  if (spec.generalDot && spec.kernel) {
    const auto mma = planMmaFor(*spec.kernel, c, 2); // whether a dot can be pipelined at all
    staged = mma && mma->pipelined;
    if (mma)
      for (const auto& [dot, p] : mma->dots)
        for (const ir::Expr* load : {p.loadA, p.loadB})
          if (load)
            copied.insert(load);
  }
  if (!staged)
    c.numStages = d.numStages;
  for (size_t i = 0; i < c.loadEvictionPolicies.size(); ++i)
    if (!std::count(spec.hintableLoads.begin(), spec.hintableLoads.end(), static_cast<int>(i)))
      c.loadEvictionPolicies[i] = d.loadEvictionPolicies[i];
  if (!copied.empty())
    for (const Site& site : loadStoreSites(*spec.kernel))
      if (site.load && copied.count(site.load) && site.loadIndex >= 0 &&
          site.loadIndex < static_cast<int>(c.loadEvictionPolicies.size()))
        c.loadEvictionPolicies[site.loadIndex] = d.loadEvictionPolicies[site.loadIndex];
}

} // namespace

Config canonicalize(const Config& config, const ConfigSpec& spec) {
  const Config d = spec.defaultConfig();
  Config c = config;
  // Keys the spec does not list: the default's value.
  if (!spec.hasNumStages())
    c.numStages = d.numStages;
  if (!spec.hasNumSmMultiplier())
    c.numSmMultiplier = d.numSmMultiplier;
  if (!spec.hasMaxnreg())
    c.maxnreg = d.maxnreg;
  if (!spec.hasVectorBytes())
    c.vectorBytes = d.vectorBytes;
  if (spec.attention)
    AttentionRules::canonicalize(c, d);
  else if (spec.matmul())
    MatmulRules::canonicalize(c, d);
  else if (!spec.hasDot)
    generic(c, spec, d);
  return c;
}

} // namespace helion::config
