//===- helion/runtime/Stream.h - the stream work goes to --------*- C++ -*-===//
//
// Every launch of generated code, and every fill and copy of the CUDA backend of
// helion::Tensor, goes to the calling thread's current stream: a CUstream (the
// same pointer as the CUDA runtime's cudaStream_t), nullptr (the legacy default
// stream) until set. Nothing in the launch path synchronizes, so a kernel
// interleaves with the caller's other work on that stream and can be captured
// into a CUDA graph (after a first, uncaptured call has loaded it).
//
//   helion::rt::StreamGuard on(stream);  // this scope's work goes to `stream`
//   Tensor y = softmax(x);               // ... or softmax(x, stream)
//
// Every generated kernel function also has an overload with a trailing CUstream
// that runs the function under a StreamGuard.
//===----------------------------------------------------------------------===//
#pragma once

#include <cuda.h> // CUstream only

#include <cstddef>

namespace helion::rt {

/// This thread's current stream (nullptr, the legacy default stream, at first).
CUstream currentStream();

/// Makes `stream` this thread's current stream; it must belong to the device the
/// work runs on (its primary context, as streams made by the CUDA runtime do).
void setCurrentStream(CUstream stream);

/// Sets the current stream for its lifetime and then restores the previous one.
class StreamGuard {
public:
  explicit StreamGuard(CUstream stream) : previous_(currentStream()) { setCurrentStream(stream); }
  ~StreamGuard() { setCurrentStream(previous_); }
  StreamGuard(const StreamGuard &) = delete;
  StreamGuard &operator=(const StreamGuard &) = delete;

private:
  CUstream previous_;
};

/// A 4-byte device counter of `stream` on the current device, 0 whenever no
/// kernel that uses it runs: the persistent flash attention hands out its tiles
/// with atomicAdd on it, and its last CTA puts it back to 0. Launches on one
/// stream run in order, so they share it safely; each stream has its own (the
/// per-thread default stream one per thread). The first call on a device
/// allocates a pool of counters (not allowed while a stream is being captured:
/// call the kernel once uncaptured first, as loading it needs anyway); later calls
/// take no CUDA call. Two graphs captured from one stream share its counter, so
/// they must not run at the same time.
CUdeviceptr tileCounter(CUstream stream);

/// At least `bytes` of device memory of `stream` on the current device, zero on
/// first use, which kernels on the stream share in turn (launches on one stream
/// run in order; each stream has its own, the per-thread default stream one per
/// thread). The grouped GEMM's stream-K split keeps its counters (which its kernels
/// put back to 0) and partial sums there. A call that must allocate (the first, or
/// one asking for more than before: the buffer grows to the next power of two and
/// the old one stays allocated) is not allowed while the stream is being captured;
/// other calls take no CUDA call. Two graphs captured from one stream share it, so
/// they must not run at the same time.
CUdeviceptr streamWorkspace(CUstream stream, size_t bytes);

/// False while the environment sets HELIONC_NO_STREAM_K (to anything but "0"): then the
/// grouped GEMM's kernels (128 x 256 and row-fitting) run every tile whole, as before
/// stream-K (read at every launch, to compare the two in one process).
bool streamKEnabled();

/// False while the environment sets HELIONC_NO_ROW_FITTING (to anything but "0"): then a
/// grouped GEMM that would run the row-fitting kernel runs the BM x BN one (read at every
/// launch, to compare the two in one process).
bool rowFittingEnabled();

/// True while the environment sets HELIONC_ROW_FITTING (to anything but "0"): then a
/// grouped GEMM that the row-fitting kernel can run (16-bit, more than 256 rows a group
/// on average) runs it also where its groups are large enough for the BM x BN one (4096
/// rows or more on average; read at every launch, to compare the two in one process).
/// HELIONC_NO_ROW_FITTING wins over it.
bool rowFittingForced();

} // namespace helion::rt
