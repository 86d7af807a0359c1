//===- AotTables.h - Kernel images embedded in the host file -----*- C++ -*-===//
//
// A launcher with images compiled ahead of time hands loadKernel a table of them
// (helion/runtime/Aot.h). Each table is a function declared near the top of the
// generated file and defined at its end, after the user's code, so that the
// launchers stay readable above megabytes of escaped cubin bytes:
//
//   static const helion::rt::AotTable& helionc_aot_softmax();   // top
//   ... loadKernel({"softmax.cpp.cu", kSource, name, {}, 0, -1, &helionc_aot_softmax()}) ...
//   static const helion::rt::AotTable& helionc_aot_softmax() {  // end
//     alignas(64) static const char kImage0[] = "\177ELF\002...";
//     static const helion::rt::AotImage kImages[] = {
//         {"sm_90a", "softmax_kernel<float, 4096, 4, 1>", "_Z14...", kImage0, sizeof(kImage0) - 1}};
//     static const helion::rt::AotTable kTable = {"softmax.cpp.cu", kImages, 1};
//     return kTable;
//   }
//   static const helion::rt::AotRegistration helionc_aot_softmax_registered(helionc_aot_softmax());
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <string>

namespace helion::codegen {

/// `&helionc_aot_X()` for the launcher of `ek`, or "" when it has no images.
std::string aotTableRef(const HostKernel& hk, const EmittedKernel& ek);

/// The forward declarations of every table (near the top of the file).
std::string aotDeclarations(const AotImageMap& aot);

/// The tables, with their registrations (at the end of the file). `program` is the
/// launchers' KernelSpec::programName.
std::string aotDefinitions(const AotImageMap& aot, const std::string& program);

/// `bytes` as a C++ string literal (octal escapes, split into lines).
std::string cxxBytesLiteral(const std::string& bytes);

} // namespace helion::codegen
