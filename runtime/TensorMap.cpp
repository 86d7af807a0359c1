//===- TensorMap.cpp - TMA descriptors through cuTensorMapEncodeTiled -----===//

#include "helion/runtime/TensorMap.h"

#include "DriverApi.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace helion::rt {
namespace {

void require(bool ok, const std::string &message) {
  if (!ok)
    throw std::invalid_argument("helion: building a TMA descriptor: " + message);
}

CUtensorMapSwizzle toDriver(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::none:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::b32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::b64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::b128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

int swizzleSpan(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::none:
    return 0;
  case Swizzle::b32:
    return 32;
  case Swizzle::b64:
    return 64;
  case Swizzle::b128:
    return 128;
  }
  return 0;
}

CUtensorMapDataType defaultDataType(int elementBytes) {
  switch (elementBytes) {
  case 1:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case 2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case 4:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  default:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
}

/// Everything a map is made of, as plain words: equal keys encode equal maps (the
/// driver's encoding reads nothing else, and no device or context), so a map found
/// under a key stays right however the memory at its address has been reused since.
struct MapKey {
  std::uint64_t words[2 + 3 * 5 + 2] = {};
  bool operator==(const MapKey &other) const {
    return std::memcmp(words, other.words, sizeof(words)) == 0;
  }
};

struct MapKeyHash {
  std::size_t operator()(const MapKey &key) const {
    std::uint64_t h = 1469598103934665603ull; // FNV-1a over the words
    for (std::uint64_t w : key.words)
      h = (h ^ w) * 1099511628211ull;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

/// The key of a descriptor of rank 1 to 5 (checked before).
MapKey keyOf(const TensorMapDesc &desc) {
  MapKey key;
  const size_t rank = desc.sizes.size();
  key.words[0] = reinterpret_cast<std::uintptr_t>(desc.base);
  key.words[1] = static_cast<std::uint64_t>(desc.elementBytes) | rank << 8 |
                 static_cast<std::uint64_t>(desc.swizzle) << 16;
  for (size_t d = 0; d < rank; ++d) {
    key.words[2 + d] = static_cast<std::uint64_t>(desc.sizes[d]);
    key.words[7 + d] = static_cast<std::uint64_t>(desc.strides[d]);
    key.words[12 + d] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(desc.box[d]));
  }
  key.words[17] = static_cast<std::uint64_t>(static_cast<std::int64_t>(desc.dataType));
  return key;
}

/// Maps this thread encoded, by key: a launch rebuilds the maps of its tensors on every
/// call, and cuTensorMapEncodeTiled takes microseconds each, as long as a small kernel
/// runs. Emptied when it passes kMaxMaps (a loop over ever new tensors cannot grow it
/// without bound).
constexpr size_t kMaxMaps = 1024;
thread_local std::unordered_map<MapKey, CUtensorMap, MapKeyHash> encodedMaps;

CUtensorMap encode(const TensorMapDesc &desc) {
  const int rank = static_cast<int>(desc.sizes.size());
  require(rank >= 1 && rank <= 5, "expected rank 1 to 5, got " + std::to_string(rank));
  require(desc.strides.size() == desc.sizes.size() && desc.box.size() == desc.sizes.size(),
          "sizes, strides and box must have the same rank");
  const int eb = desc.elementBytes;
  require(eb == 1 || eb == 2 || eb == 4 || eb == 8,
          "expected an element size of 1, 2, 4 or 8 bytes, got " + std::to_string(eb));
  require(reinterpret_cast<std::uintptr_t>(desc.base) % 16 == 0,
          "the base address must be 16-byte aligned");
  require(desc.strides.back() == 1, "the innermost dimension must be contiguous (stride 1), got " +
                                        std::to_string(desc.strides.back()));

  // Reverse to the driver's innermost-first order. globalStrides has rank - 1
  // entries, in bytes, for dimensions 1..rank-1 (dimension 0's is the element).
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (int d = 0; d < rank; ++d) {
    const int src = rank - 1 - d;
    require(desc.sizes[src] >= 1 && desc.sizes[src] <= (std::int64_t(1) << 32),
            "size " + std::to_string(desc.sizes[src]) + " of dimension " + std::to_string(src) +
                " is out of range [1, 2^32]");
    require(desc.box[src] >= 1 && desc.box[src] <= 256,
            "box size " + std::to_string(desc.box[src]) + " of dimension " + std::to_string(src) +
                " is out of range [1, 256]");
    dims[d] = static_cast<cuuint64_t>(desc.sizes[src]);
    box[d] = static_cast<cuuint32_t>(desc.box[src]);
    elementStrides[d] = 1;
    if (d > 0) {
      const std::int64_t bytes = desc.strides[src] * eb;
      require(bytes % 16 == 0 && bytes > 0, "the stride of dimension " + std::to_string(src) +
                                                " (" + std::to_string(bytes) +
                                                " bytes) must be a positive multiple of 16 bytes");
      strides[d - 1] = static_cast<cuuint64_t>(bytes);
    }
  }
  require((box[0] * eb) % 16 == 0, "the innermost box extent (" + std::to_string(box[0] * eb) +
                                       " bytes) must be a multiple of 16 bytes");
  if (int span = swizzleSpan(desc.swizzle))
    require(static_cast<int>(box[0]) * eb <= span,
            "with a " + std::to_string(span) + "-byte swizzle the innermost box extent (" +
                std::to_string(box[0] * eb) + " bytes) must be at most " + std::to_string(span));

  CUtensorMapDataType type =
      desc.dataType >= 0 ? static_cast<CUtensorMapDataType>(desc.dataType) : defaultDataType(eb);
  CUtensorMap map;
  checkCuda(detail::driverApi().cuTensorMapEncodeTiled(
                &map, type, static_cast<cuuint32_t>(rank), desc.base, dims, strides, box,
                elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, toDriver(desc.swizzle),
                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
            "building a TMA descriptor (cuTensorMapEncodeTiled)");
  return map;
}

} // namespace

CUtensorMap makeTensorMap(const TensorMapDesc &desc) {
  const size_t rank = desc.sizes.size();
  if (rank < 1 || rank > 5 || desc.strides.size() != rank || desc.box.size() != rank)
    return encode(desc); // its checks say what is wrong
  const MapKey key = keyOf(desc);
  if (auto found = encodedMaps.find(key); found != encodedMaps.end())
    return found->second;
  CUtensorMap map = encode(desc); // throws before anything is kept
  if (encodedMaps.size() >= kMaxMaps)
    encodedMaps.clear();
  encodedMaps.emplace(key, map);
  return map;
}

} // namespace helion::rt
