// A stand-in libcuda.so.1 for tests without a GPU: the entry points the runtime
// resolves (runtime/DriverApi.h), with device memory in host memory, kernels that
// are loaded and "launched" without running, and each module load, function lookup,
// launch, fill and copy printed to stdout with the stream it went to. The device's
// compute capability is $FAKE_CUDA_CC (default 9.0). A fake clock times launches for
// events: each launch takes 1 us per program (grid x * y * z), so a config with fewer,
// larger programs is "faster" (the run-time choice test, test/lit/Aot/choice.test). NVRTC, when a test falls back
// to it, finds this library too and asks for cuGetExportTable (its compute cache).
//   c++ -shared -fPIC -I/usr/local/cuda/include fake_cuda.cpp -o DIR/libcuda.so.1
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
CUcontext current = nullptr;
int fakeContext = 0;

void capability(int& major, int& minor) {
  const char* cc = std::getenv("FAKE_CUDA_CC");
  major = 9;
  minor = 0;
  if (cc && std::sscanf(cc, "%d.%d", &major, &minor) != 2)
    major = 9, minor = 0;
}

struct Function {
  std::string name;
};

double clockMs = 0; ///< advanced by each launch
struct Event {
  double ms = 0;
};
} // namespace

#define FAKE_OK return CUDA_SUCCESS

extern "C" {
CUresult cuInit(unsigned) { FAKE_OK; }
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  FAKE_OK;
}
CUresult cuGetErrorName(CUresult, const char** s) {
  *s = "CUDA_ERROR_FAKE";
  FAKE_OK;
}
CUresult cuGetErrorString(CUresult, const char** s) {
  *s = "fake driver error";
  FAKE_OK;
}
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  FAKE_OK;
}
CUresult cuDeviceGet(CUdevice* d, int i) {
  *d = i;
  FAKE_OK;
}
CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU");
  FAKE_OK;
}
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  int major, minor;
  capability(major, minor);
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = major; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = minor; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 48 * 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 227 * 1024; break;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *v = 50 << 20; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  default: *v = 0;
  }
  FAKE_OK;
}
CUresult cuDeviceTotalMem(size_t* bytes, CUdevice) {
  *bytes = size_t(80) << 30;
  FAKE_OK;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&fakeContext);
  FAKE_OK;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  current = c;
  FAKE_OK;
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = current;
  FAKE_OK;
}
CUresult cuCtxSynchronize() { FAKE_OK; }
CUresult cuStreamSynchronize(CUstream) { FAKE_OK; }
CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  // A cubin is an ELF64 file whose e_flags (offset 48) hold the SM version in bits 8-15.
  if (std::memcmp(image, "\177ELF", 4) == 0) {
    unsigned flags = 0;
    std::memcpy(&flags, static_cast<const char*>(image) + 48, sizeof flags);
    std::printf("fake-cuda: module load (cubin for sm_%u)\n", (flags >> 8) & 0xff);
  } else {
    std::printf("fake-cuda: module load (not a cubin)\n");
  }
  *m = reinterpret_cast<CUmodule>(const_cast<void*>(image));
  FAKE_OK;
}
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char* name) {
  *f = reinterpret_cast<CUfunction>(new Function{name});
  FAKE_OK;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { FAKE_OK; }
CUresult cuFuncGetAttribute(int* v, CUfunction_attribute, CUfunction) {
  *v = 0;
  FAKE_OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction, int, size_t) {
  *n = 1;
  FAKE_OK;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned, CUstream stream, void**, void**) {
  std::printf("fake-cuda: launch %s grid %ux%ux%u block %ux%ux%u stream %p\n",
              reinterpret_cast<Function*>(f)->name.c_str(), gx, gy, gz, bx, by, bz,
              static_cast<void*>(stream));
  clockMs += 1e-3 * double(gx) * gy * gz;
  FAKE_OK;
}
CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  *p = reinterpret_cast<CUdeviceptr>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  FAKE_OK;
}
CUresult cuMemFree(CUdeviceptr p) {
  std::free(reinterpret_cast<void*>(p));
  FAKE_OK;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) {
  std::memcpy(reinterpret_cast<void*>(d), s, n);
  FAKE_OK;
}
CUresult cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) {
  std::memcpy(d, reinterpret_cast<void*>(s), n);
  FAKE_OK;
}
CUresult cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
  FAKE_OK;
}
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void*>(d), v, n);
  FAKE_OK;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream stream) {
  std::printf("fake-cuda: copy to the device stream %p\n", static_cast<void*>(stream));
  std::memcpy(reinterpret_cast<void*>(d), s, n);
  FAKE_OK;
}
CUresult cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream stream) {
  std::printf("fake-cuda: copy to the host stream %p\n", static_cast<void*>(stream));
  std::memcpy(d, reinterpret_cast<void*>(s), n);
  FAKE_OK;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream stream) {
  std::printf("fake-cuda: copy on the device stream %p\n", static_cast<void*>(stream));
  std::memcpy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
  FAKE_OK;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream stream) {
  std::printf("fake-cuda: fill stream %p\n", static_cast<void*>(stream));
  std::memset(reinterpret_cast<void*>(d), v, n);
  FAKE_OK;
}
CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType, cuuint32_t rank,
                                void* base, const cuuint64_t* dims, const cuuint64_t*,
                                const cuuint32_t* box, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion,
                                CUtensorMapFloatOOBfill) {
  static unsigned long long encoded = 0;
  std::printf("fake-cuda: encode map %llu of %p rank %u dims[0] %llu box[0] %u\n", ++encoded,
              base, rank, static_cast<unsigned long long>(dims[0]), box[0]);
  std::memset(map, 0, sizeof(*map)); // the map carries its number: a kept one is told apart
  std::memcpy(map, &encoded, sizeof(encoded));
  FAKE_OK;
}
CUresult cuEventCreate(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(new Event);
  FAKE_OK;
}
CUresult cuEventRecord(CUevent e, CUstream stream) {
  std::printf("fake-cuda: event stream %p\n", static_cast<void*>(stream));
  reinterpret_cast<Event*>(e)->ms = clockMs;
  FAKE_OK;
}
CUresult cuEventSynchronize(CUevent) { FAKE_OK; }
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent stop) {
  *ms = float(reinterpret_cast<Event*>(stop)->ms - reinterpret_cast<Event*>(start)->ms);
  FAKE_OK;
}
CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  FAKE_OK;
}
// NVRTC opens libcuda.so.1 itself for its compute cache: none here.
CUresult cuGetExportTable(const void** table, const CUuuid*) {
  *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
}
}
