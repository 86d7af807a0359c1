//===- helion/runtime/Error.h - runtime exceptions --------------*- C++ -*-===//
//
// Every runtime failure is an exception whose message names the operation, the
// kernel where one is involved, and the CUDA or NVRTC error, e.g.
//   helion: launching kernel 'softmax_kernel': CUDA_ERROR_ILLEGAL_ADDRESS (an
//   illegal memory access was encountered)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <stdexcept>
#include <string>

namespace helion::rt {

/// A Driver API failure, or the driver missing altogether (code() == -1).
class CudaError : public std::runtime_error {
public:
  CudaError(const std::string &message, int code) : std::runtime_error(message), code_(code) {}
  /// The CUresult, or -1 when libcuda.so.1 could not be loaded.
  int code() const { return code_; }

private:
  int code_;
};

/// NVRTC rejected a program; what() holds the program name and the NVRTC log.
class CompileError : public std::runtime_error {
public:
  CompileError(const std::string &message, std::string programName, std::string log)
      : std::runtime_error(message), programName_(std::move(programName)), log_(std::move(log)) {}
  const std::string &programName() const { return programName_; }
  const std::string &log() const { return log_; }

private:
  std::string programName_;
  std::string log_;
};

} // namespace helion::rt
