"""The C entry of test/gpu/grouped_rows.cu's shared library (an nvcc build of the row-fitting
grouped GEMM, as scripts/grouped_rows_check.sh makes) and one draw's inputs, for the
scripts that call it (grouped_rows_check.py, grouped_rows_ncu.py, gemm_clocks.py)."""
import ctypes


def load(path):
    """The library at `path` with grouped_rows' argument types set."""
    lib = ctypes.CDLL(path)
    lib.grouped_rows.restype = ctypes.c_int
    lib.grouped_rows.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p] + \
        [ctypes.c_int] * 6 + [ctypes.c_void_p]
    return lib


def bf16_inputs(sizes, n, k):
    """Offsets (a list, from 0) and bf16 CUDA tensors a [M, k], b [G, k, n], int32 offsets
    and an output c [M, n] for groups of `sizes` rows."""
    import torch
    offs = [0]
    for s in sizes:
        offs.append(offs[-1] + s)
    M, G = offs[-1], len(sizes)
    a = torch.randn(M, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(G, k, n, device="cuda", dtype=torch.bfloat16)
    o = torch.tensor(offs, device="cuda", dtype=torch.int32)
    c = torch.empty(M, n, device="cuda", dtype=torch.bfloat16)
    return offs, a, b, o, c
