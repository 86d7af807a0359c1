//===- helion/runtime/CApi.h - C entry points of the runtime ----*- C++ -*-===//
//
// For the C ABI of generated kernels (callable from Python through ctypes):
// a wrapper catches the C++ exception, records its message with
// helion_rt_set_last_error and returns non-zero; the caller reads the message
// with helion_rt_last_error. Implemented in runtime/CudaBackend.cpp, which every
// link of the runtime keeps (-u helion_rt_install_cuda_backend), so that a shared
// library built from generated code exports all of them.
//
//===----------------------------------------------------------------------===//
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// Installs the CUDA tensor backend (linking the runtime already did).
void helion_rt_install_cuda_backend(void);
/// The message of the last runtime error caught at the C boundary on this
/// thread, or "" (never null).
const char *helion_rt_last_error(void);
/// Records `message` as this thread's last error (for generated C wrappers).
void helion_rt_set_last_error(const char *message);
/// 0 on success, else -1 with helion_rt_last_error() set.
int helion_rt_synchronize(void);

/// The calling thread's current stream (a CUstream / cudaStream_t; NULL: the
/// legacy default stream), which launches, fills and copies go to
/// (helion/runtime/Stream.h). Each generated C entry takes its stream as an
/// argument instead and restores the current one when it returns.
void *helion_rt_current_stream(void);
void helion_rt_set_current_stream(void *stream);
/// Waits for `stream`: 0, or -1 with helion_rt_last_error() set.
int helion_rt_synchronize_stream(void *stream);

/// The kernel images embedded ahead of time in this process (helionc compile
/// --aot-arch), one line each: "PROGRAM ARCH BYTES NAME". Valid until the next call
/// on this thread.
const char *helion_rt_aot_images(void);
/// 1 when this process has loaded NVRTC (some kernel had no embedded image), else 0.
int helion_rt_nvrtc_loaded(void);

#ifdef __cplusplus
}
#endif
