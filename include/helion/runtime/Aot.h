//===- helion/runtime/Aot.h - kernel images embedded ahead of time -*- C++ -*-===//
//
// `helionc compile --aot-arch sm_90a ...` compiles, at build time, every
// instantiation a launcher can ask for (the dtypes, vector widths, sizes and
// specialized values given) with NVRTC and embeds the cubins in the generated
// host file as one table per launcher:
//
//   static const helion::rt::AotImage kImages[] = {
//       {"sm_90a", "softmax_kernel<float, 4, 4096, 1>", "_Z14softmax_kernel...", "\x7f" "ELF...",
//        21376},
//       ...};
//   static const helion::rt::AotTable kTable = {"softmax.cpp.cu", kImages, 24};
//
// and hands the table to loadKernel (KernelSpec::aot). loadKernel looks up the
// exact name expression it would compile, for the device's architecture
// (findAotImage): found, the image is loaded with cuModuleLoadData and NVRTC is
// neither called nor loaded; else NVRTC compiles it through its disk cache, or,
// with HELIONC_REQUIRE_AOT=1 in the environment, loadKernel throws an error
// naming the missing instantiation. Images are skipped when
// HELIONC_NVRTC_OPTIONS is set (they were compiled without those options).
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace helion::rt {

struct AotImage {
  const char *arch;    ///< what it was compiled for: "sm_90a", "sm_80"
  const char *name;    ///< the name expression, as the launcher builds it
  const char *lowered; ///< its mangled name in the image (cuModuleGetFunction)
  const char *data;    ///< the cubin
  std::size_t size;    ///< its bytes
};

/// The images of one launcher (one CUDA program).
struct AotTable {
  const char *program; ///< KernelSpec::programName of that launcher ("softmax.cpp.cu")
  const AotImage *images;
  std::size_t count;
};

/// Whether an image compiled for `arch` runs on a device of compute capability
/// major.minor: "sm_90a" only on 9.0 (arch-specific), "sm_80" (and "sm_100f") on
/// 8.x with x >= 0 (binary compatibility within a major version).
bool aotArchRuns(std::string_view arch, int major, int minor);

/// The image of `name` that runs on major.minor: the one for `exactArch` (what
/// NVRTC would compile for, archFor()) if embedded, else the compatible one with
/// the highest minor version; null when none.
const AotImage *findAotImage(const AotTable &table, std::string_view name,
                             std::string_view exactArch, int major, int minor);

/// True when HELIONC_REQUIRE_AOT is set to anything but "" or "0": a kernel with
/// no embedded image is an error instead of an NVRTC compile.
bool aotRequired();

/// Adds a table to the process-wide list that aotListing() prints; generated host
/// code registers each of its tables from a static initializer.
class AotRegistration {
public:
  explicit AotRegistration(const AotTable &table);
};

/// Every registered table.
std::vector<const AotTable *> aotTables();

/// One line per embedded image, "PROGRAM ARCH BYTES NAME", in registration order.
std::string aotListing();

} // namespace helion::rt
