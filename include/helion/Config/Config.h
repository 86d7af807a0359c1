//===- helion/Config/Config.h - The typed kernel config ---------*- C++ -*-===//
//
// What passes read to decide how a kernel is tiled, mapped to the grid and
// emitted. Passes never see JSON: ConfigJson.h converts, ConfigSpec.h says which
// entries a kernel has and which values are legal. Field names follow Helion's
// JSON keys (`block_sizes` -> blockSizes).
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace helion::config {

/// How program ids map to tiles (`pid_type`).
enum class PidType : uint8_t { Flat, Xyz, PersistentBlocked, PersistentInterleaved };

/// How a load or store site addresses memory (`indexing`).
enum class Indexing : uint8_t { Pointer, BlockPtr, TensorDescriptor };

/// Cache eviction hint of a load site (`load_eviction_policies`): "", "first", "last".
enum class EvictionPolicy : uint8_t { Default, First, Last };

const char* pidTypeName(PidType p);          // "flat", "xyz", ...
const char* indexingName(Indexing i);        // "pointer", "block_ptr", "tensor_descriptor"
const char* evictionPolicyName(EvictionPolicy e); // "", "first", "last"
std::optional<PidType> parsePidType(const std::string& s);
std::optional<Indexing> parseIndexing(const std::string& s);
std::optional<EvictionPolicy> parseEvictionPolicy(const std::string& s);

/// One config of one kernel. Vector lengths are fixed by the kernel's ConfigSpec
/// (see there for what each entry belongs to); validate() checks them.
struct Config {
  /// One per tunable BlockSizeDecl (fixed ones are not here), in decl order.
  std::vector<int64_t> blockSizes;
  /// One permutation of its tiles per tile loop with two or more tiles (pre-order).
  std::vector<std::vector<int>> loopOrders;
  /// One per grid loop with two or more tiles: program ids grouped for L2 reuse (1 = off).
  std::vector<int> l2Groupings;
  /// One per reduction axis: nullopt = persistent (whole axis at once), N = looped in chunks of N.
  std::vector<std::optional<int64_t>> reductionLoops;
  /// One per inner (non-grid) tile loop of a kernel without hl::dot (ConfigSpec::
  /// unrollLoops): `#pragma unroll N` on it, 0 = the compiler's choice.
  std::vector<int> rangeUnrollFactors;
  int numWarps = 4;  ///< 1..32, a power of two
  int numStages = 1; ///< 1..8
  PidType pidType = PidType::Flat;
  int numSmMultiplier = 1;        ///< 1, 2 or 4: persistent programs per SM
  std::optional<int> maxnreg;     ///< 32..255 registers per thread, nullopt = unlimited
  /// One per load/store site (see Sites.h for the order). JSON may give one value for all.
  std::vector<Indexing> indexing;
  /// One per load site (loads only, in site order).
  std::vector<EvictionPolicy> loadEvictionPolicies;
  int vectorBytes = 0; ///< CUDA: bytes per vector access, 0 = auto, else 4, 8 or 16

  bool operator==(const Config&) const = default;
};

} // namespace helion::config
