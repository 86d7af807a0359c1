"""Adversarial identifier names for the fuzzer's kernels (gen.py, gen_attention.py).

A kernel is renamed with probability RENAME_P (one in four): its tensor and scalar
parameters and locals (outputs, tile and grid variables, values, accumulators), each
but one in four (KEEP_P), get names drawn from pool(), names the compiler itself writes
into its output, so that a kernel's name colliding with a generated identifier shows up
as a wrong value, an NVRTC or g++ error or a crash:
  - DEVICE: locals, template parameters and helpers of the generated CUDA (the generic
    emitter's pid, v, acc, the grid's T_t0, i_t0, tb_t0, the matmul and attention
    functors' a, b, row, col, epi, score, ...);
  - CXX: names of CUDA and C++ that are legal identifiers in a kernel's own host C++
    (threadIdx, half, dim3, min, max, abs, exp, std, hl, ...), each checked to compile
    in ref mode with the helion headers;
  - HOST: locals and parameters of the generated host code, FILE.helion.cpp (kSource,
    kernelKey, found, kernel, name, args, programs, grid, a0, e0, ctas, dev, map, hc_M,
    the C entry's result and stream, ...; and M, N, K, B, G, smem, groupM, names of the
    generated CUDA too, which the matmul, grouped and attention launchers declare as
    well); a collision fails fuzz.py's host check (g++ on FILE.helion.cpp);
  - the kernel's own name (its stream overload and C entry call it).
Names stay distinct within a kernel and never equal a name the kernel keeps or another
identifier its source uses unqualified (Tensor, int64_t, INFINITY, ...); the harness
passes arguments by position and names its own locals after the parameters' roles, so
no name can clash with it. No name holds "__" (reserved in C++) or is a macro.

The draw comes from its own random stream (random.Random("names-SEED")): a seed's code,
shapes and configs are the same renamed or not (those of the kernels before renaming
existed).
"""
import random
import re

RENAME_P = 0.25
KEEP_P = 0.25  # a declared name of a renamed kernel keeps its own name

DEVICE = [
    # the generic emitter: grid loop, lanes, reductions, staging, pipelines
    "pid", "v", "acc", "h", "NT", "VEC", "EXACT", "smem_raw", "red_phase", "total_0",
    "coord", "hmin", "hmax", "hvec", "T_t0", "S_t0", "E_t0", "V_t0", "X_t0", "ST_t0",
    "i_t0", "g_t0", "c_t0", "c0_t0", "id_t0", "tb_t0", "te_t0", "th_t0", "nt_t0",
    "begin_t0", "end_t0", "lim_t0", "i_a0", "off_a0", "ext_a0", "tmp", "base", "lane",
    "rem", "bounds", "compute_t", "axis_vec", "load_hint", "dot_smem", "DOT_SMEM",
    "STAGES", "RDIM0", "COUNT", "kBytes", "tile_src", "pipe_stage", "stage0", "pid_step",
    "pid_end", "pid_first", "pid_next", "per_cta_0", "in_group", "vec", "identity",
    "zero_padding", "row8", "rowPtr",
    # the template functors (matmul, grouped, chain, attention) and their launchers' kernels
    "a", "b", "row", "col", "batch", "k", "kb", "l", "m", "o0", "p", "x", "q", "out",
    "lse", "offsets", "score", "epi", "ptr", "tile_counter", "sk_workspace",
]
CXX = [
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "half", "half2", "float4",
    "int64", "uint32", "hd", "dim3", "min", "max", "abs", "exp", "sqrt", "tanh", "f16",
    "bf16", "f32", "std", "hl", "helion", "main",
]
HOST = [
    "kSource", "kernelKey", "kernelCache", "found", "kernel", "name", "args", "programs",
    "grid", "a0", "a1", "a2", "e0", "e1", "hc_e0", "hc_M", "hc_K", "hc_smem", "hc_stages",
    "stream", "result", "ctas", "dev", "map", "mapA", "mapQ", "iM", "tiles", "staging",
    "ring", "counter", "units", "parts", "ok", "sm90", "tf32", "rows", "cols", "boxRows",
    "helionc_stream", "helionc_on_stream", "mapK", "f8", "tmaReady", "boxK", "lda",
    "helionc_c_api", "helionc_kernel",
    # names of the generated device code too, but declared by the matmul, grouped or
    # attention launchers as well
    "M", "N", "K", "B", "G", "smem", "groupM",
]


def pool():
    """The names a renamed kernel draws from."""
    names = DEVICE + CXX + HOST
    return list(dict.fromkeys(names))


# An identifier outside strings and comments, not after `.` or `::` (a member, or a name
# in a namespace: hl::abs, x0.size) nor part of a number (0.5f).
TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|/\*.*?\*/|//[^\n]*|(?<![\w.:])([A-Za-z_]\w*)',
                   re.S)
DECL = re.compile(r"\b(?:auto|Tensor|int64_t|double)\s+(\w+)\s*[=:]"
                  r"|\bauto\s*\[([^\]]+)\]")
PARAM = re.compile(r"(?:const Tensor&|double|int64_t)\s+(\w+)")


def declared(src):
    """The kernel's parameters, then its locals, in order of appearance."""
    head, _, body = src.partition("{")
    names = PARAM.findall(head[head.index("(") + 1:])
    for m in DECL.finditer(body):
        names += [m.group(1)] if m.group(1) else [n.strip() for n in m.group(2).split(",")]
    return list(dict.fromkeys(names))


def free_names(src):
    """Every identifier of src used unqualified."""
    return {m.group(1) for m in TOKEN.finditer(src) if m.group(1)}


def draw(seed, src, kernel_name):
    """{old: new} for the kernel of `seed` with source `src` ({} for most kernels)."""
    rng = random.Random(f"names-{seed}")
    if rng.random() >= RENAME_P:
        return {}
    names = declared(src)
    renamed = [n for n in names if rng.random() >= KEEP_P] or names[:1]
    # The kernel's own name too: inside its entries a parameter of that name hides it.
    taken = (free_names(src) - set(renamed)) | {kernel_name}
    avail = [kernel_name] + [n for n in pool() if n not in taken]
    renamed = renamed[:len(avail)]
    drawn = zip(renamed, rng.sample(avail, len(renamed)))
    return {old: new for old, new in drawn if old != new}


def rename(src, mapping):
    """src with each identifier in `mapping` (used unqualified) replaced."""
    def sub(m):
        n = m.group(1)
        return mapping.get(n, n) if n else m.group(0)
    return TOKEN.sub(sub, src)
