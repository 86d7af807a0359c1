"""The fuzzer's attention template: random flash-attention kernels in the shape of
examples/attention.cpp and examples/attention_causal.cpp, and configs for them.

A kernel takes q [B, M, D] and k, v [B, N, D] (bf16 or f16, one dtype; D from
hl::specialize, 64 or 128), tiles {bh, m} with block_size({1, tunable}) and runs the
online softmax over key tiles. Random variation, all within what
lib/Transforms/RecognizeAttention.cpp accepts (docs/attention.md):
  - q's tile hoisted (`auto qt = q[tb, tm, hl::all]`) or read in the dot;
  - the score: `* scale` (1/sqrt(d)), a constant, the scalar `s`, `scale * s`, or
    soft-capping (`hl::tanh(x * scale / 8) * 8`, not linear);
  - a causal mask through tile indices (`tm.index() >= tn.index()` or `tn <= tm`,
    in a local or inline), top-left aligned as in attention_causal.cpp;
  - the running sum and the rescale in either operand order, the rescale its own
    statement or inside the dot's accumulator;
  - the output in q's dtype (helion::empty_like(q)) or f32, with an optional
    pointwise epilogue after `acc / li` (* 0.5, + 0.25, * s, a maximum with a constant);
    the epilogue may not load (a per-row vector is an error: docs/attention.md);
  - optionally lse [B, M] in f32: mi + log(li) in either order.
The outputs are named out and lse and the scalar s, and gen_names.py renames one kernel
in four (q, k, v, s, out, lse and the locals; case_plan keys on the roles, so tolerances
and dtypes follow them). (Names like the generated functors' own, x or o0, were shadowed
there until session 26; they end in "__" now and lit CodeGen/functor-names.cpp covers
them.)
Values stay tame: inputs in [-2, 2], the softmax subtracts the running max, the mask
compares tile indices only (exact), and the first key block holds key 0, which every
query row sees, so no row's max stays -inf.
"""

ATT_INPUTS = {"q": ("B", "M", "D"), "k": ("B", "N", "D"), "v": ("B", "N", "D")}

EPILOGUES = ["", "", " * 0.5", " + 0.25", " * s", "max"]


def source(g, name):
    """The kernel's source and what the harness needs: (src, params, outputs, meta)."""
    rng = g.rng
    causal = rng.random() < 0.5
    hoist = rng.random() < 0.7
    score_kind = rng.choices(["scale", "const", "s", "scale_s", "softcap"], [4, 1, 1.5, 1.5, 1])[0]
    out_f32 = rng.random() < 0.3
    epi = rng.choice(EPILOGUES)
    lse = rng.random() < 0.5
    uses_s = score_kind in ("s", "scale_s") or epi == " * s"
    sig = ["const Tensor& q", "const Tensor& k", "const Tensor& v"]
    sig += ["double s"] if uses_s else []
    outs = [("out", ["B", "M", "D"], "hl::f32" if out_f32 else "q.dtype()")]
    body = ["  auto [bh, m, dim] = q.shape<3>();",
            "  int64_t d = hl::specialize(dim);",
            "  auto n = k.size(1);",
            '  HELION_CHECK(v.sizes() == k.sizes(), "v: shape");']
    if out_f32:
        body.append("  Tensor out = helion::empty({bh, m, d}, hl::f32, q.device());")
    else:
        body.append("  Tensor out = helion::empty_like(q);")
    if lse:
        outs.append(("lse", ["B", "M"], "hl::f32"))
        body.append("  Tensor lse = helion::empty({bh, m}, hl::f32, q.device());")
    if score_kind in ("scale", "scale_s", "softcap"):
        body.append("  const double scale = 1.0 / std::sqrt(static_cast<double>(d));")
    nl = "hl::newaxis"
    body += ["  for (auto [tb, tm] : hl::tile({bh, m}, hl::block_size({1, hl::tunable}))) {",
             "    auto mi = hl::full({tb, tm}, -INFINITY, hl::f32);",
             "    auto li = hl::zeros({tb, tm}, hl::f32);",
             "    auto acc = hl::zeros({tb, tm, d}, hl::f32);"]
    qt = "q[tb, tm, hl::all]"
    if hoist:
        body.append(f"    auto qt = {qt};")
        qt = "qt"
    body.append("    for (auto tn : hl::tile(n)) {")
    dot = f"hl::dot({qt}, k[tb, tn, hl::all].transpose(1, 2))"
    score = {"scale": f"{dot} * scale",
             "const": f"{dot} * {rng.choice(['0.125', '0.0625', '0.25'])}",
             "s": f"{dot} * s",
             "scale_s": f"{dot} * scale * s",
             # soft-capping at c: |score| < c, tanh close to linear for small scores
             "softcap": f"hl::tanh({dot} * scale * 0.125) * 8.0"}[score_kind]
    row = f"tm.index()[{nl}, hl::all, {nl}]"
    col = f"tn.index()[{nl}, {nl}, hl::all]"
    sv = "s_" if uses_s else "s"
    if causal:
        cond = f"{row} >= {col}" if rng.random() < 0.5 else f"{col} <= {row}"
        body.append(f"      auto qk = {score};")
        if rng.random() < 0.5:
            body.append(f"      auto visible = {cond};")
            cond = "visible"
        body.append(f"      auto {sv} = hl::where({cond}, qk, -INFINITY);")
    else:
        body.append(f"      auto {sv} = {score};")
    body += [f"      auto mi_next = hl::maximum(mi, hl::amax({sv}, 2));",
             f"      auto p = hl::exp({sv} - mi_next[hl::all, hl::all, {nl}]);",
             "      auto alpha = hl::exp(mi - mi_next);"]
    body.append(rng.choice(["      li = li * alpha + hl::sum(p, 2);",
                            "      li = hl::sum(p, 2) + alpha * li;"]))
    rescaled = f"acc * alpha[hl::all, hl::all, {nl}]"
    if rng.random() < 0.5:
        body.append(f"      acc = {rescaled};")
        rescaled = "acc"
    body += [f"      acc = hl::dot(p.to(v.dtype()), v[tb, tn, hl::all], {rescaled});",
             "      mi = mi_next;",
             "    }"]
    e = f"acc / li[hl::all, hl::all, {nl}]"
    if epi == "max":
        e = f"hl::maximum({e}, {rng.choice(['-1.0', '0.0'])})"
    else:
        e += epi
    body.append(f"    out[tb, tm, hl::all] = {e};")
    if lse:
        body.append("    lse[tb, tm] = " + rng.choice(["mi + hl::log(li);", "hl::log(li) + mi;"]))
    body.append("  }")
    ret = "Tensor"
    if lse:
        ret = "std::tuple<Tensor, Tensor>"
        body.append("  return {out, lse};")
    else:
        body.append("  return out;")
    src = f"HELION_KERNEL {ret} {name}({', '.join(sig)}) {{\n" + "\n".join(body) + "\n}\n"
    params = [{"name": n, "kind": "float", "dims": list(dims)} for n, dims in ATT_INPUTS.items()]
    if uses_s:
        params.append({"name": "s", "kind": "double", "dims": []})
    outputs = [{"name": n, "dims": dims, "dtype": dt} for n, dims, dt in outs]
    meta = {"causal": causal, "score": score_kind, "epilogue": epi or "none", "lse": lse,
            "out_f32": out_f32}
    return src, params, outputs, meta


# --- cases ------------------------------------------------------------------------
# Notable GPU shapes (M queries, N keys): square powers of two and not, one block,
# more queries than keys, ragged both ways.
GPU_SHAPES = [(1000, 1000), (1024, 1024), (128, 128), (700, 300), (333, 517), (1, 1100),
              (1100, 1), (64, 1000), (257, 129)]


def case_plan(k, rng, gpu):
    """Dtypes, scalar value, shapes (M, N, V, B, D) and per-output tolerances."""
    dt = rng.choice(["bf16", "f16"])
    dts = {"q": dt, "k": dt, "v": dt}
    ds = [64, 128]
    rng.shuffle(ds)
    if gpu:
        shapes = [(rng.randint(1, 70), rng.randint(1, 70), 1, rng.randint(1, 4), ds[0])]
        for m, n in rng.sample(GPU_SHAPES, 2):
            shapes.append((m, n, 1, rng.randint(1, 2), rng.choice(ds)))
        shapes.append((rng.randint(1, 1100), rng.randint(1, 1100), 1, 1, ds[1]))
    else:
        shapes = [(rng.randint(1, 40), rng.randint(1, 70), 1, rng.randint(1, 3), ds[0]),
                  (rng.randint(60, 200), rng.randint(1, 200), 1, 1, ds[1])]
    # out: p is rounded to q's dtype before p @ v, and out may be too (2^-8 bf16, 2^-11 f16
    # relative). lse is f32 arithmetic on the same scores (errors ~1e-6): 1e-3, which
    # catches an lse off by 0.03 (1e-2 caught it at a few elements only).
    out_tol = 2e-2 if dt == "bf16" else 1e-2
    tols = [out_tol if o["role"] == "out" else 1e-3 for o in k.outputs]
    return {"dtypes": dts, "s": rng.choice([0.75, 1.25]), "shapes": shapes, "tol": tols}


# --- configs ----------------------------------------------------------------------
SMEM = 232448  # bytes of shared memory per block on sm_90


def sample_config(spec, rng, generic):
    """A config by the attention rules (docs/attention.md) most of the time: sm90
    (tensor_descriptor; 8, 12 or 16 warps, 64 rows per consumer, tn 64 or 128, stages
    within shared memory at head dim 128) or sm80 (pointer or block_ptr; 4 or 8 warps,
    16 or 32 rows per warp, tn 32, 64 or 128, 2 stages); else `generic` (gen.sample_config),
    whose configs the rules may reject with a diagnostic."""
    if rng.random() < 0.2:
        return generic(spec, rng)
    cfg = {}
    pid = rng.choice(["flat", "xyz", "persistent_interleaved"])
    if rng.random() < 0.65:
        nw = rng.choice([8, 12, 16])
        tm = 64 * (nw // 4 - 1)
        tn = rng.choice([64, 128])
        stages = [st for st in (2, 3, 4) if tm * 128 * 2 + st * 4 * tn * 128 + 4096 <= SMEM]
        cfg = {"block_sizes": [tm, tn], "num_warps": nw, "num_stages": rng.choice(stages),
               "indexing": "tensor_descriptor"}
    else:
        nw = rng.choice([4, 8])
        tm = 16 * rng.choice([1, 2]) * nw
        cfg = {"block_sizes": [tm, rng.choice([32, 64, 128])], "num_warps": nw,
               "num_stages": 2, "indexing": rng.choice(["pointer", "block_ptr"])}
    if rng.random() < 0.7:
        cfg["pid_type"] = pid
    return cfg
