//===- helion/runtime/CApi.h - C entry points of the runtime ----*- C++ -*-===//
//
// For the C ABI of generated kernels (callable from Python through ctypes):
// a wrapper catches the C++ exception, records its message with
// helion_rt_set_last_error and returns non-zero; the caller reads the message
// with helion_rt_last_error. Implemented in runtime/CudaBackend.cpp.
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

#ifdef __cplusplus
}
#endif
