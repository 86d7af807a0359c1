//===- Config.cpp - Names of the config's enums ----------------------------===//
#include "helion/Config/Config.h"

namespace helion::config {

const char* pidTypeName(PidType p) {
  switch (p) {
  case PidType::Flat: return "flat";
  case PidType::Xyz: return "xyz";
  case PidType::PersistentBlocked: return "persistent_blocked";
  case PidType::PersistentInterleaved: return "persistent_interleaved";
  }
  return "?";
}

const char* indexingName(Indexing i) {
  switch (i) {
  case Indexing::Pointer: return "pointer";
  case Indexing::BlockPtr: return "block_ptr";
  case Indexing::TensorDescriptor: return "tensor_descriptor";
  }
  return "?";
}

const char* evictionPolicyName(EvictionPolicy e) {
  switch (e) {
  case EvictionPolicy::Default: return "";
  case EvictionPolicy::First: return "first";
  case EvictionPolicy::Last: return "last";
  }
  return "?";
}

std::optional<PidType> parsePidType(const std::string& s) {
  for (PidType p : {PidType::Flat, PidType::Xyz, PidType::PersistentBlocked,
                    PidType::PersistentInterleaved})
    if (s == pidTypeName(p))
      return p;
  return std::nullopt;
}

std::optional<Indexing> parseIndexing(const std::string& s) {
  for (Indexing i : {Indexing::Pointer, Indexing::BlockPtr, Indexing::TensorDescriptor})
    if (s == indexingName(i))
      return i;
  return std::nullopt;
}

std::optional<EvictionPolicy> parseEvictionPolicy(const std::string& s) {
  for (EvictionPolicy e : {EvictionPolicy::Default, EvictionPolicy::First, EvictionPolicy::Last})
    if (s == evictionPolicyName(e))
      return e;
  return std::nullopt;
}

} // namespace helion::config
