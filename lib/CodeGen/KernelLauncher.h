//===- KernelLauncher.h - A kernel's host launcher --------------*- C++ -*-===//
#pragma once

#include "helion/CodeGen/HostRewriter.h"

#include <string>

namespace helion::codegen {

/// The launcher of one config entry of a kernel: `void NAME(params...)` (NAME
/// `helionc_launch_<kernel>` when `fn` is empty).
std::string launcher(const HostKernel& hk, const std::string& fileName,
                     const std::string& fn = "");

} // namespace helion::codegen
