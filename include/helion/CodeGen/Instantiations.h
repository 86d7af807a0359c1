//===- helion/CodeGen/Instantiations.h - What a launcher can ask NVRTC for -*- C++ -*-===//
//
// A generated launcher names the instantiation of its kernel at run time from the
// tensors it is given (HostRewriter.cpp, MatmulLauncher.cpp, AttentionLauncher.cpp):
//
//   softmax_kernel<float, float, 4096, 4, 1>
//                  ^dtypes       ^RDIM ^VEC ^EXACT
//
// dtypes from the tensors, RDIM from the row length (helion::rt::reductionExtent),
// VEC from alignment (helion::rt::vectorWidth: a power of two up to the config's
// vector bytes), EXACT from which axes divide by their tiles, specialized scalars by
// value, and for a matmul or attention the sm90 or sm80 kernel by the device and
// TMA_STORE by the output's layout. This file lists the same names at build time
// from what is known then (dtype signatures, row lengths, specialized values), for
// `helionc compile --emit cubin` (one of them) and `--aot-arch` (all of them).
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/CudaEmitter.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace helion::codegen {

/// One `--dtype` argument: `bf16` (every tensor but the index tensors, which are
/// i64), `x=bf16,out=i8` (those tensors; the others f32, index tensors i64), or both
/// (`bf16,out=i8`: the bare dtype for the tensors not named).
struct DtypeSpec {
  std::string text;                          ///< as given
  std::optional<ir::ScalarType> rest;        ///< the bare dtype
  std::map<std::string, ir::ScalarType> named;
};

/// Parses one `--dtype` value; nullopt and `error` set when malformed.
std::optional<DtypeSpec> parseDtypeSpec(const std::string& text, std::string& error);

/// `text` as a file name part: `bf16`, `x-bf16.out-i8`.
std::string dtypeSpecLabel(const DtypeSpec& spec);

/// Tensors read as indices (gathers): integers, i64 unless named.
std::vector<bool> indexTensors(const ir::Kernel& k);

/// The dtype of each parameter of `k` under `spec` (scalars: their own type).
std::vector<ir::ScalarType> signatureOf(const ir::Kernel& k, const DtypeSpec& spec);

/// What is known at build time of the values the launcher reads at run time.
struct InstantiationHints {
  /// Extents of the reduction axes (each applies to every reduction axis): RDIM and
  /// the reduction axes' EXACT bits follow from them. Never empty.
  std::vector<int64_t> sizes = {4096};
  std::vector<int64_t> specialized = {64}; ///< values of hl::specialize'd scalars
};

/// Whether `ek`'s instantiations depend on the reduction extent (RDIM, or EXACT bits
/// of a reduction axis), and on the value of a specialized scalar.
bool readsSizes(const EmittedKernel& ek);
bool readsSpecialized(const EmittedKernel& ek);

/// Whether `ek`'s launcher hands a row extent of `size` to its long-rows kernel.
bool takesLongRows(const EmittedKernel& ek, int64_t size);

/// Every name expression the launcher of `ek` (a config of `k`) can build on a device
/// of `arch` for tensors of dtypes `signature` (signatureOf) and the hints: the
/// product of every vector width, EXACT bit of a tile axis (one per distinct tile
/// predicate), TMA_STORE form and hinted value. Sizes
/// that the launcher hands to the long-rows kernel count for ek.longRows, not ek.
/// Empty when the launcher rejects such tensors on such a device (a matmul of mixed
/// dtypes, attention in f32, tensor cores below sm_80). In a fixed order; no repeats.
std::vector<std::string> instantiations(const ir::Kernel& k, const EmittedKernel& ek,
                                        const std::string& arch,
                                        const std::vector<ir::ScalarType>& signature,
                                        const InstantiationHints& hints);

/// The one `--emit cubin/ptx` compiles: the widest vectors, every bounds check kept
/// (EXACT 0), TMA_STORE when it can, the first size and specialized value.
std::string defaultInstantiation(const EmittedKernel& ek, const std::string& arch,
                                 const std::vector<ir::ScalarType>& signature,
                                 const InstantiationHints& hints);

/// The chain kernel's instantiations (EmittedKernel::chain) the launcher can name on a
/// compute capability 9.x device for tensors of dtypes `signature`: one per K of 64,
/// 128, 256 and output tile DV of 64, 128, 256 with a ring that fits (largest first),
/// the first specialized value; empty when the launcher would not take the chain
/// template for such tensors (a, b1, b2 not of one 16-bit float dtype, or the
/// activation cast to another) or `arch` is not sm_90.
std::vector<std::string> chainInstantiations(const EmittedKernel& chain, const std::string& arch,
                                             const std::vector<ir::ScalarType>& signature,
                                             const InstantiationHints& hints);

} // namespace helion::codegen
