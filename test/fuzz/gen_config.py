"""Random configs within a kernel's `helionc spec` (fuzz.py draws one per kernel and
variant): parse_spec reads the spec's text, sample_config draws from it.
"""
import json
import re


def parse_spec(text):
    """`helionc spec FILE` output -> {kernel: {"keys": {key: [entries]}, "default": dict}}.

    An entry is (name, legal-values text); the default config is the JSON line."""
    specs = {}
    cur = None
    key = None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"config spec of kernel '([^']+)'", line)
        if m:
            cur = specs.setdefault(m.group(1), {"keys": {}, "default": {}})
            key = None
            continue
        if cur is None:
            continue
        if line.startswith("default config:") and i + 1 < len(lines):
            cur["default"] = json.loads(lines[i + 1])
            continue
        if line and not line.startswith(" "):
            # A section after the keys (a template's "restrictions:"): its indented
            # lines name keys too, but are not their specs.
            key = "#section"
            continue
        if key == "#section":
            continue
        m = re.match(r"  (\w+)\s+(.*)$", line)
        if m and not line.startswith("    "):
            key = m.group(1)
            cur["keys"][key] = {"text": m.group(2), "entries": []}
            continue
        m = re.match(r"    \[(\d+)\]\s+(.*?)\s{2,}(.*?)\s+default (.*)$", line)
        if m and key:
            cur["keys"][key]["entries"].append({"name": m.group(2), "legal": m.group(3),
                                                "default": m.group(4)})
    return specs


def _range(legal):
    m = re.search(r"\[(-?\d+), (-?\d+)\]", legal)
    return (int(m.group(1)), int(m.group(2))) if m else (1, 1024)


def _listed(text):
    """The values of a spec line that lists them (`warps per program: 8 | 12; default 12`),
    else []: the tensor-core templates' keys."""
    m = re.search(r":\s*([0-9 |]+);", text)
    if not m or "|" not in m.group(1):
        return []
    values = [int(v) for v in m.group(1).split("|") if v.strip()]
    return values if len(values) <= 8 else []


def _pow2s(lo, hi):
    out, v = [], 1
    while v <= hi:
        if v >= lo:
            out.append(v)
        v *= 2
    return out


def sample_config(spec, rng, p_key=0.6):
    """A random config within the spec: each key taken with probability p_key, else default."""
    d = dict(spec["default"])
    keys = spec["keys"]
    cfg = {}
    # A tensor-core template (matmul, attention): tiles of 16 or more, and its keys list
    # their legal values (`warps per program: 8 | 12`).
    template = any(_range(e["legal"])[0] >= 16
                   for e in keys.get("block_sizes", {}).get("entries", []))

    def take(k):
        return k in d and rng.random() < p_key

    if take("block_sizes"):
        bs, los = [], []
        for e, dv in zip(keys.get("block_sizes", {}).get("entries", []), d["block_sizes"]):
            lo, hi = _range(e["legal"])
            choices = _pow2s(lo, min(hi, 256)) or [dv]
            bs.append(rng.choice(choices))
            los.append(lo)
        # Keep a program's block small: a persistent reduction multiplies it by
        # the reduction extent, and NVRTC then takes minutes (tiles of 256 rows x
        # 512 columns with one warp: 108 s, a 2.6 MB cubin). Never below an entry's
        # smallest legal size (a matmul template's tiles start at 64).
        # (A tensor-core template has no such blowup.)
        cap = 8 if "reduction_loops" in d else 1 << 62 if template else 4096
        while bs and _prod(bs) > cap:
            shrinkable = [j for j in range(len(bs)) if bs[j] // 2 >= los[j]]
            if not shrinkable:
                break
            j = max(shrinkable, key=lambda j: bs[j])
            bs[j] //= 2
        cfg["block_sizes"] = bs
    if take("reduction_loops"):
        rl = []
        for e in keys.get("reduction_loops", {}).get("entries", []):
            lo, hi = _range(e["legal"])
            rl.append(None if rng.random() < 0.4
                      else rng.choice(_pow2s(lo, min(hi, 1024)) or [None]))
        cfg["reduction_loops"] = rl
    if take("loop_orders"):
        cfg["loop_orders"] = [rng.sample(o, len(o)) for o in d["loop_orders"]]
    if take("l2_groupings"):
        cfg["l2_groupings"] = [rng.choice([1, 2, 4, 8, 64]) for _ in d["l2_groupings"]]
    if take("range_unroll_factors"):
        cfg["range_unroll_factors"] = [rng.randint(0, 4) for _ in d["range_unroll_factors"]]
    if take("num_warps"):
        listed = _listed(keys.get("num_warps", {}).get("text", "")) if template else []
        cfg["num_warps"] = rng.choice(listed or ([2, 4, 8, 16, 32] if "reduction_loops" in d
                                                 else [1, 2, 4, 8, 16, 32]))
    # 16 warps on a template = 3 consumer warpgroups of 64 rows: its first tile (the row
    # tile of the fuzzer's matmuls) 192, off the powers of two drawn above, mostly.
    if template and cfg.get("num_warps") == 16 and d.get("block_sizes") and \
            rng.random() < 0.8:
        entries = keys.get("block_sizes", {}).get("entries", [])
        if entries and _range(entries[0]["legal"])[1] >= 192:
            cfg["block_sizes"] = [192] + list(cfg.get("block_sizes", d["block_sizes"]))[1:]
    if take("num_stages"):
        listed = _listed(keys.get("num_stages", {}).get("text", "")) if template else []
        cfg["num_stages"] = rng.choice(listed[:4]) if listed else rng.randint(1, 4)
    if take("pid_type"):
        legal = [v for v in ["flat", "xyz", "persistent_blocked", "persistent_interleaved"]
                 if v in keys.get("pid_type", {}).get("text", v)]
        cfg["pid_type"] = rng.choice(legal or ["flat"])
    if take("num_sm_multiplier"):
        cfg["num_sm_multiplier"] = rng.choice([1, 2, 4])
    if take("maxnreg") and rng.random() < 0.3:
        cfg["maxnreg"] = rng.choice([None, 64, 128, 255])
    if take("indexing"):
        n = len(d["indexing"]) if isinstance(d["indexing"], list) else None
        vals = ["pointer", "block_ptr", "tensor_descriptor"]
        cfg["indexing"] = rng.choice(vals) if n is None or rng.random() < 0.5 else \
            [rng.choice(vals) for _ in range(n)]
    if take("load_eviction_policies"):
        cfg["load_eviction_policies"] = [rng.choice(["", "first", "last"])
                                         for _ in d["load_eviction_policies"]]
    if take("vector_bytes"):
        cfg["vector_bytes"] = rng.choice([0, 4, 8, 16])
    return cfg


def _prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p

