"""Calls the C entries of helionc-generated kernels on torch tensors (ctypes, DLPack).

A host file that `helionc compile` wrote, compiled with -DHELIONC_C_API into a shared
library, exports for each kernel K

    int helionc_K(const DLTensor* t1, ..., <scalars>, DLManagedTensor** result, void* stream)

(docs/calling-kernels.md). This module passes torch tensors as borrowed DLTensors
(torch.utils.dlpack.to_dlpack), the stream torch considers current, and turns the
result back into a torch tensor (torch.utils.dlpack.from_dlpack), which owns it.

    lib = HelioncLibrary("build/py/libsoftmax.so")
    y = lib.call("softmax", x)               # on torch.cuda.current_stream()
"""
import ctypes

import torch
import torch.utils.dlpack

_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class HelioncError(RuntimeError):
    pass


# The 8-bit floats travel as DLPack 1.1's codes (kDLFloat8_e4m3fn 10, kDLFloat8_e5m2
# 12), which not every torch exports or imports: they cross as uint8 with the code
# written into the DLTensor's dtype (offset 20: data, device, ndim come first).
_FLOAT8_CODES = {getattr(torch, n): c for n, c in
                 (("float8_e4m3fn", 10), ("float8_e5m2", 12)) if hasattr(torch, n)}
_FLOAT8_DTYPES = {c: d for d, c in _FLOAT8_CODES.items()}
_DTYPE_CODE_OFFSET = 20


def _dtype_code(dltensor):
    return ctypes.c_uint8.from_address(dltensor + _DTYPE_CODE_OFFSET)


class HelioncLibrary:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.helion_rt_last_error.restype = ctypes.c_char_p
        self.lib.helion_rt_aot_images.restype = ctypes.c_char_p
        self.lib.helion_rt_nvrtc_loaded.restype = ctypes.c_int

    def call(self, kernel, *args, stream=None):
        """Runs helionc_<kernel>(args..., result, stream) and returns the result (a torch
        tensor, a tuple of them for a kernel that returns a pair or tuple, or None for a
        kernel that returns nothing). Tensors are borrowed for the
        call; a Python float is passed as a C double and an int as an int64_t: pass a
        ctypes value (ctypes.c_float(0.5), ctypes.c_int(3)) for the kernel's other scalar
        types. `stream`: a torch.cuda.Stream, or None for torch's current stream."""
        keep = []  # the capsules, alive until the call returns
        c_args = []
        device = None
        for a in args:
            if isinstance(a, torch.Tensor):
                code = _FLOAT8_CODES.get(a.dtype)
                capsule = torch.utils.dlpack.to_dlpack(a if code is None else a.view(torch.uint8))
                keep.append(capsule)
                # A DLManagedTensor starts with its DLTensor.
                ptr = _capsule_pointer(capsule, b"dltensor")
                if code is not None:
                    _dtype_code(ptr).value = code
                c_args.append(ctypes.c_void_p(ptr))
                if a.is_cuda and device is None:
                    device = a.device
            elif isinstance(a, bool):
                c_args.append(ctypes.c_bool(a))
            elif isinstance(a, float):
                c_args.append(ctypes.c_double(a))
            elif isinstance(a, int):
                c_args.append(ctypes.c_int64(a))
            else:
                c_args.append(a)
        if stream is None:
            stream = torch.cuda.current_stream(device)
        # Room for a kernel that returns up to 8 tensors (result[0..N-1]); the entry
        # clears result[0] and writes as many as the kernel returns.
        results = (ctypes.c_void_p * 8)()
        entry = getattr(self.lib, "helionc_" + kernel)
        entry.restype = ctypes.c_int
        rc = entry(*c_args, results, ctypes.c_void_p(stream.cuda_stream))
        del keep
        if rc != 0:
            raise HelioncError(self.lib.helion_rt_last_error().decode())
        # torch takes each DLManagedTensor (renames the capsule) and calls its deleter
        # when the tensor dies; the memory returns to helion's allocator then.
        outs = [self._from_dlpack(r) for r in results if r]
        if not outs:
            return None
        return outs[0] if len(outs) == 1 else tuple(outs)

    @staticmethod
    def _from_dlpack(ptr):
        float8 = _FLOAT8_DTYPES.get(_dtype_code(ptr).value)
        if float8 is not None:
            _dtype_code(ptr).value = 1  # kDLUInt: imported as uint8, viewed back
        t = torch.utils.dlpack.from_dlpack(_capsule_new(ptr, b"dltensor", None))
        return t if float8 is None else t.view(float8)

    def aot_images(self):
        """The embedded images, one "PROGRAM ARCH BYTES NAME" line each."""
        return self.lib.helion_rt_aot_images().decode().splitlines()

    def nvrtc_loaded(self):
        return bool(self.lib.helion_rt_nvrtc_loaded())
