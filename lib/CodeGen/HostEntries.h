//===- HostEntries.h - A kernel's entries besides its own function -*- C++ -*-===//
//
// After each kernel function the host rewriter adds
//   - a forwarder the two entries below call the kernel through;
//   - its stream overload: the same function with a trailing CUstream, which runs
//     the original with that stream current (helion::rt::StreamGuard);
//   - its C entry, extern "C" int helionc_<kernel>(DLTensors..., scalars...,
//     DLManagedTensor** result, void* stream), compiled with HELIONC_C_API defined.
//===----------------------------------------------------------------------===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <string>

namespace helion::codegen {

/// What the C entries share (borrowing DLTensors, errors to the C convention),
/// near the top of the generated file.
extern const char* const kCApiHelpers;

/// The template both entries call the kernel through (a parameter named like the
/// kernel hides it inside them); before them in the file.
std::string kernelForwarder(const HostKernel& hk);

/// `Tensor softmax(const Tensor& x, CUstream helionc_stream) { ... }`, the
/// declaration copied from `text` (the kernel file) with default arguments dropped.
std::string streamOverload(const HostKernel& hk, const std::string& text);

/// The C entry of a kernel.
std::string cEntry(const HostKernel& hk);

} // namespace helion::codegen
