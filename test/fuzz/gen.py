#!/usr/bin/env python3
"""Random valid helionc kernels and configs, deterministic per seed.

A kernel is built from top-level loop templates (row reductions over hl::all,
2-D tiles with broadcasts, gathers and masks, looped reductions over an inner
tile loop with an optional second pass, column reductions, hl::grid rows,
tiles over x.sizes(), chained and single hl::dot GEMMs, a grouped GEMM), each
writing its own outputs, filled with random pointwise expressions. A kernel that
draws the attention template is a flash-attention kernel alone (gen_attention.py:
q [B, M, D], k and v [B, N, D], head dim from hl::specialize, an online softmax over
key tiles with a random score scale, causal mask, epilogue and lse output).
Values stay tame: inputs lie in [-2, 2], every expression carries a bound on its
magnitude and is rescaled by a power of two when the bound grows, log/sqrt/rsqrt
see abs(.) + 1, divisors are abs(.) + 1, and comparisons only see exact values
(loaded inputs, indices, constants), so a last-bit difference between the CPU and
the GPU cannot flip a branch.
One kernel in four then has its parameters and locals renamed (gen_names.py) to
names the compiler generates itself (pid, v, acc, T_t0, row, epi, threadIdx, min, the
host launchers' kSource, args, grid, M, ...),
drawn from a random stream of its own: every seed keeps the code, shapes and configs
it had before renaming existed, a renamed kernel the same code under other names. Its
metadata lists them ("names": {role: name}; a parameter's "role" is its generator name).

    gen.py SEED            prints kernel k_SEED and its metadata (JSON) for a look

The GEMM templates live in gen_gemm.py, expression values in gen_expr.py, the config
sampler in gen_config.py. Used as a module by fuzz.py and reduce.py: kernel(seed) ->
Kernel; sample_config(spec, rng) -> dict from a parsed `helionc spec` entry (parse_spec).
"""
import json
import random
import sys

import gen_attention
import gen_names
from gen_config import parse_spec, sample_config  # noqa: F401 (fuzz.py calls gen.*)
from gen_expr import MAX_BOUND, Ctx, Expr, pow2_scale
from gen_gemm import GemmTemplates

# Tensor inputs a kernel may take, in parameter order: name -> (dims, kind).
# M, N, V are the sizes the harness picks; idx holds integers in [0, V).
INPUTS = {
    "x0": (("M", "N"), "float"),
    "x1": (("M", "N"), "float"),
    "w": (("N",), "float"),
    "r": (("M",), "float"),
    "idx": (("M",), "index"),
    "tbl": (("V", "N"), "float"),
    "wv": (("N", "V"), "float"),
    # The grouped GEMM's B and row offsets: G groups (G = 1 + (M + V) % 4 in the
    # harness), offsets from 0 to M covering every row once (fuzz::Runner::offsets).
    "wg": (("G", "N", "V"), "float"),
    "offs": (("G + 1",), "offsets"),
}
SCALARS = {"s": "double", "k": "int64_t"}
HALF_TYPES = ("hl::f16", "hl::bf16")


class Gen(GemmTemplates):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.uses = set()
        self.nvar = 0
        self.lines = []
        self.indent = 1
        self.outputs = []   # dicts: name, dims, dtype text, init
        self.has_mask_load = False
        self.plain_acc = False  # a dot's accumulator stored unscaled (tolerance as half)

    # --- helpers ---------------------------------------------------------
    def emit(self, line):
        self.lines.append("  " * self.indent + line)

    def use(self, *names):
        for n in names:
            if n:
                self.uses.add(n)

    def pick(self, items):
        return self.rng.choice(list(items))

    def fresh(self, prefix="v"):
        self.nvar += 1
        return f"{prefix}{self.nvar}"

    def output(self, dims, masked=False, dtype=None):
        name = f"o{len(self.outputs)}"
        dt = dtype or self.pick(["x0.dtype()", "hl::f32", "hl::f32", "hl::bf16", "hl::f16"])
        init = "zeros" if masked else self.pick(["empty", "empty", "zeros"])
        if dims == ("M", "N") and dt == "x0.dtype()" and init == "empty" \
                and self.rng.random() < 0.5:
            alloc = "helion::empty_like(x0)"
        else:
            v = "wg.size(2)" if "wg" in self.uses and "wv" not in self.uses else "wv.size(1)"
            sizes = ", ".join({"M": "m", "N": "n", "V": v}[d] for d in dims)
            alloc = f"helion::{init}({{{sizes}}}, {dt}, x0.device())"
        self.outputs.append({"name": name, "dims": list(dims), "dtype": dt, "alloc": alloc})
        return name

    # --- expressions -----------------------------------------------------
    def leaf(self, ctx, want_full=False, exact=False):
        r = self.rng.random()
        if ctx.vars and r < 0.3:
            cands = [v for v in ctx.vars if (v.full or not want_full) and (v.exact or not exact)]
            if cands:
                v = self.pick(cands)
                return Expr(v.text, v.bound, v.full, v.exact, v.half)
        if want_full or not ctx.bcast or r < 0.75:
            text, uses = self.pick(ctx.full)
            self.use(*uses)
            e = Expr(text, 2.0, True, exact=True)
        else:
            text, uses = self.pick(ctx.bcast)
            self.use(*uses)
            e = Expr(text, 2.0, False, exact=True)
        if self.rng.random() < 0.3:
            e = Expr(f"{self.paren(e.text)}.to(hl::f32)", e.bound, e.full, True, e.half)
        return e

    def cond(self, ctx):
        r = self.rng.random()
        if ctx.conds and r < 0.35:
            text, uses = self.pick(ctx.conds)
            self.use(*uses)
            c = text
        else:
            a = self.leaf(ctx, exact=True)
            op = self.pick(["<", "<=", ">", ">=", "!="])
            if self.rng.random() < 0.5:
                b = self.pick(["0", "0.5", "-0.25", "1"])
            else:
                b = self.leaf(ctx, exact=True).text
            c = f"({a.text} {op} {b})"
        if self.rng.random() < 0.15:
            c2 = self.cond(ctx)
            c = f"({c} {self.pick(['&', '|'])} {c2})"
        elif self.rng.random() < 0.1:
            c = f"!{c}"
        return c

    def rescale(self, e):
        if e.bound <= MAX_BOUND:
            return e
        s = pow2_scale(e.bound)
        return Expr(f"({e.text}) * {s!r}", e.bound * s, e.full, False, e.half)

    def expr(self, ctx, depth):
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf(ctx)
        kind = self.rng.choices(
            ["unary", "binary", "scalar", "where", "reduce", "cast"],
            [3, 4, 2, 1.2, 1.5 if ctx.red_axes else 0, 0.7])[0]
        if kind == "unary":
            a = self.expr(ctx, depth - 1)
            op = self.pick(["neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid"])
            t, b = a.text, a.bound
            if op == "neg":
                return Expr(f"-{self.paren(t)}", b, a.full, a.exact, a.half)
            if op == "abs":
                return Expr(f"hl::abs({t})", b, a.full, a.exact, a.half)
            if op == "exp":
                if b <= 2:
                    return Expr(f"hl::exp({t})", 7.4, a.full, half=a.half)
                return Expr(f"hl::exp(hl::tanh({t}))", 2.72, a.full, half=a.half)
            if op == "log":
                return Expr(f"hl::log(hl::abs({t}) + 1)", b, a.full, half=a.half)
            if op == "sqrt":
                return Expr(f"hl::sqrt(hl::abs({t}) + 1.0)", b ** 0.5 + 1, a.full, half=a.half)
            if op == "rsqrt":
                return Expr(f"hl::rsqrt({self.paren(t)} * {self.paren(t)} + 1)", 1.0, a.full,
                            half=a.half)
            return Expr(f"hl::{op}({t})", 1.0, a.full, half=a.half)
        if kind == "binary":
            a = self.expr(ctx, depth - 1)
            b = self.expr(ctx, depth - 1)
            op = self.pick(["+", "-", "*", "/", "maximum", "minimum"])
            full, half = a.full or b.full, a.half or b.half
            if op in "+-":
                e = Expr(f"{self.paren(a.text)} {op} {self.paren(b.text)}", a.bound + b.bound, full,
                         half=half)
            elif op == "*":
                e = Expr(f"{self.paren(a.text)} * {self.paren(b.text)}", a.bound * b.bound, full,
                         half=half)
            elif op == "/":
                e = Expr(f"{self.paren(a.text)} / (hl::abs({b.text}) + 1)", a.bound, full,
                         half=half)
            else:
                e = Expr(f"hl::{op}({a.text}, {b.text})", max(a.bound, b.bound), full,
                         a.exact and b.exact, half)
            return self.rescale(e)
        if kind == "scalar":
            a = self.expr(ctx, depth - 1)
            form = self.rng.randrange(6)
            if form == 0:
                self.use("s")
                return Expr(f"{self.paren(a.text)} * s", a.bound * 1.5, a.full, half=a.half)
            if form == 1:
                return Expr(f"2.0 * {self.paren(a.text)}", a.bound * 2, a.full, half=a.half)
            if form == 2:
                return Expr(f"{self.paren(a.text)} + 0.5", a.bound + 0.5, a.full, half=a.half)
            if form == 3:
                return Expr(f"{self.paren(a.text)} / 4", a.bound / 4, a.full, half=a.half)
            if form == 4:
                self.use("k")
                return Expr(f"{self.paren(a.text)} - k", a.bound + 3, a.full, half=a.half)
            return Expr(f"1 - {self.paren(a.text)}", a.bound + 1, a.full, half=a.half)
        if kind == "where":
            c = self.cond(ctx)
            a = self.expr(ctx, depth - 1)
            b = self.expr(ctx, depth - 1) if self.rng.random() < 0.7 \
                else Expr("0.0", 0, False, True)
            return Expr(f"hl::where({c}, {a.text}, {b.text})", max(a.bound, b.bound),
                        a.full or b.full, half=a.half or b.half)
        if kind == "reduce":
            a = self.expr(ctx, depth - 1)
            if not a.full:
                f = self.leaf(ctx, want_full=True)
                a = Expr(f"{self.paren(a.text)} + {self.paren(f.text)}", a.bound + f.bound, True,
                         half=a.half)
            op = self.pick(["sum", "amax", "amin", "mean", "mean"])
            axis = self.pick(ctx.red_axes)
            bound = a.bound * (300 if op == "sum" else 1)
            if ctx.keepdim_only or self.rng.random() < 0.5:
                t = f"hl::{op}({a.text}, {axis}, {self.pick(['true', '/*keepdim=*/true'])})"
            else:
                # The reduced axis comes back as the new axis (-1 is the last, as 1).
                nd = "hl::all, hl::newaxis" if axis % ctx.rank == 1 else "hl::newaxis, hl::all"
                t = f"hl::{op}({a.text}, {axis})[{nd}]"
            return self.rescale(Expr(t, bound, False, half=a.half))
        # cast
        a = self.expr(ctx, depth - 1)
        dt = self.pick(["hl::f32", "hl::f16", "hl::bf16"])
        if dt != "hl::f32" and a.bound > 60000:
            dt = "hl::f32"
        return Expr(f"{self.paren(a.text)}.to({dt})", a.bound, a.full, a.exact and dt == "hl::f32",
                    a.half or dt != "hl::f32")

    @staticmethod
    def paren(t):
        depth = 0
        for ch in t:
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif depth == 0 and ch in " +-*/<>=!&|?":
                return f"({t})"
        if t.startswith("-") or t[:1].isdigit():
            return f"({t})"
        return t

    def full_expr(self, ctx, depth):
        e = self.expr(ctx, depth)
        if not e.full:
            f = self.leaf(ctx, want_full=True)
            e = Expr(f"{self.paren(e.text)} + {self.paren(f.text)}", e.bound + f.bound, True,
                     half=e.half)
        return e

    def locals(self, ctx, n):
        for _ in range(n):
            e = self.expr(ctx, self.rng.randint(1, 3))
            name = self.fresh()
            self.emit(f"auto {name} = {e.text};")
            ctx.vars.append(Expr(name, e.bound, e.full, e.exact, e.half))

    # --- loop templates --------------------------------------------------
    def rows(self):
        """A tile of rows, whole rows loaded (hl::all): persistent or looped reduction."""
        tm = self.fresh("tm")
        ctx = Ctx(2,
                  full=[(f"x0[{tm}, hl::all]", ["x0"]), (f"x1[{tm}, hl::all]", ["x1"]),
                        (f"tbl[idx[{tm}], hl::all]", ["tbl", "idx"])],
                  bcast=[(f"r[{tm}][hl::all, hl::newaxis]", ["r"]),
                         (f"w[hl::all][hl::newaxis, hl::all]", ["w"]),
                         (f"w[hl::newaxis, hl::all]", ["w"]),
                         (f"hl::load(tbl, {{idx[{tm}], 0}})[hl::all, hl::newaxis]", ["tbl", "idx"]),
                         (f"hl::load(r, {{{tm}}})[hl::all, hl::newaxis]", ["r"])],
                  red_axes=[1, -1] if self.rng.random() < 0.2 else [1],
                  conds=[(f"({tm}.index()[hl::all, hl::newaxis] < 5)", [])])
        self.emit(f"for (auto {tm} : hl::tile(m)) {{")
        self.indent += 1
        self.locals(ctx, self.rng.randint(0, 3))
        outs = self.rng.choice([["full"], ["row"], ["full", "row"]])
        for o in outs:
            if o == "full":
                name = self.output(("M", "N"))
                e = self.full_expr(ctx, self.rng.randint(1, 4))
                self.emit(f"{name}[{tm}, hl::all] = {e.text};")
            else:
                name = self.output(("M",))
                e = self.full_expr(ctx, self.rng.randint(1, 3))
                op = self.pick(["sum", "amax", "amin", "mean"])
                self.emit(f"{name}[{tm}] = hl::{op}({e.text}, 1);")
        self.indent -= 1
        self.emit("}")

    def tiles2d(self):
        """2-D tiles (a tuple or two nested loops): broadcasts, gathers, masks."""
        tm, tn = self.fresh("tm"), self.fresh("tn")
        row = f"{tm}.index()[hl::all, hl::newaxis]"
        col = f"{tn}.index()[hl::newaxis, hl::all]"
        tri = f"({col} <= {row})"
        full = [(f"x0[{tm}, {tn}]", ["x0"]), (f"x1[{tm}, {tn}]", ["x1"]),
                (f"tbl[idx[{tm}], {tn}]", ["tbl", "idx"])]
        if self.rng.random() < 0.3:
            self.has_mask_load = True
            full.append((f"hl::load(x0, {{{row}, {col}}}, {tri})", ["x0"]))
        ctx = Ctx(2, full=full,
                  bcast=[(f"r[{tm}][hl::all, hl::newaxis]", ["r"]),
                         (f"w[{tn}][hl::newaxis, hl::all]", ["w"]),
                         (f"{col}.to(hl::f32) / 64", [])],
                  conds=[(tri, []), (f"({row} > 3)", []), (f"({col} != 2)", [])])
        style = self.rng.randrange(3)
        if style == 0:
            self.emit(f"for (auto [{tm}, {tn}] : hl::tile({{m, n}})) {{")
            self.indent += 1
        else:
            self.emit(f"for (auto {tm} : hl::tile(m)) {{")
            self.indent += 1
            self.emit(f"for (auto {tn} : hl::tile(n)) {{")
            self.indent += 1
        self.locals(ctx, self.rng.randint(0, 3))
        e = self.full_expr(ctx, self.rng.randint(1, 4))
        if self.rng.random() < 0.3:
            name = self.output(("M", "N"), masked=True)
            mask = self.pick([tri, f"({row} > 3)", f"!{tri}"])
            self.emit(f"hl::store({name}, {{{row}, {col}}}, {e.text}, {mask});")
        else:
            name = self.output(("M", "N"))
            self.emit(f"{name}[{tm}, {tn}] = {e.text};")
        for _ in range(1 + (style != 0)):
            self.indent -= 1
            self.emit("}")

    def looped(self):
        """Rows reduced over an inner tile loop (accumulator), then maybe a second pass."""
        tm, tn = self.fresh("tm"), self.fresh("tn")
        ctx = Ctx(2, full=[(f"x0[{tm}, {tn}]", ["x0"]), (f"x1[{tm}, {tn}]", ["x1"]),
                           (f"tbl[idx[{tm}], {tn}]", ["tbl", "idx"])],
                  bcast=[(f"r[{tm}][hl::all, hl::newaxis]", ["r"]),
                         (f"w[{tn}][hl::newaxis, hl::all]", ["w"])])
        fixed = self.rng.random() < 0.3
        if fixed:
            bn = self.fresh("bn")
            self.emit(f"int64_t {bn} = hl::register_block_size(n);")
            loop_n = f"hl::tile(n, hl::block_size({bn}))"
        else:
            loop_n = "hl::tile(n)"
        self.emit(f"for (auto {tm} : hl::tile(m)) {{")
        self.indent += 1
        acc = self.fresh("acc")
        kind = self.pick(["sum", "max", "min"])
        if kind == "sum":
            self.emit(f"auto {acc} = hl::zeros({{{tm}}}, hl::f32);")
        else:
            inf = ("-" if kind == "max" else "") + "INFINITY"
            self.emit(f"auto {acc} = hl::full({{{tm}}}, {inf}, hl::f32);")
        self.emit(f"for (auto {tn} : {loop_n}) {{")
        self.indent += 1
        e = self.full_expr(ctx, self.rng.randint(1, 3))
        if kind == "sum":
            if self.rng.random() < 0.5:
                self.emit(f"{acc} = {acc} + hl::sum({e.text}, 1);")
            else:
                self.emit(f"{acc} += hl::sum({e.text}, 1);")
            bound = e.bound * 300
        else:
            self.emit(f"{acc} = hl::{'maximum' if kind == 'max' else 'minimum'}({acc}, "
                      f"hl::{'amax' if kind == 'max' else 'amin'}({e.text}, 1));")
            bound = e.bound
        self.indent -= 1
        self.emit("}")
        s = pow2_scale(bound)
        stat = f"{acc} * {s!r}" if s != 1 else acc
        if self.rng.random() < 0.6:
            name = self.output(("M",))
            self.emit(f"{name}[{tm}] = {stat};")
        if self.rng.random() < 0.6:
            ctx.vars = []
            ctx.bcast.append((f"({stat})[hl::all, hl::newaxis]", []))
            self.emit(f"for (auto {tn} : {loop_n}) {{")
            self.indent += 1
            name = self.output(("M", "N"))
            self.emit(f"{name}[{tm}, {tn}] = {self.full_expr(ctx, self.rng.randint(1, 3)).text};")
            self.indent -= 1
            self.emit("}")
        elif not self.outputs or self.outputs[-1]["dims"] != ["M"]:
            name = self.output(("M",))
            self.emit(f"{name}[{tm}] = {stat};")
        self.indent -= 1
        self.emit("}")

    def columns(self):
        """Columns reduced over the whole first dim (hl::all in dim 0)."""
        tn = self.fresh("tn")
        ctx = Ctx(2, full=[(f"x0[hl::all, {tn}]", ["x0"]), (f"x1[hl::all, {tn}]", ["x1"])],
                  bcast=[(f"w[{tn}][hl::newaxis, hl::all]", ["w"]),
                         ("r[hl::all, hl::newaxis]", ["r"])],
                  red_axes=[0])
        self.emit(f"for (auto {tn} : hl::tile(n)) {{")
        self.indent += 1
        self.locals(ctx, self.rng.randint(0, 2))
        e = self.full_expr(ctx, self.rng.randint(1, 3))
        name = self.output(("N",))
        op = self.pick(["sum", "amax", "amin", "mean"])
        self.emit(f"{name}[{tn}] = hl::{op}({e.text}, 0);")
        self.indent -= 1
        self.emit("}")

    def grid_rows(self):
        """hl::grid over rows; an inner tile loop or whole rows."""
        i = self.fresh("i")
        whole = self.rng.random() < 0.5
        self.emit(f"for (auto {i} : hl::grid(m)) {{")
        self.indent += 1
        if whole:
            ctx = Ctx(1, full=[(f"x0[{i}, hl::all]", ["x0"]), (f"x1[{i}, hl::all]", ["x1"])],
                      bcast=[("w[hl::all]", ["w"])], red_axes=[0], keepdim_only=True)
            self.locals(ctx, self.rng.randint(0, 2))
            name = self.output(("M", "N"))
            self.emit(f"{name}[{i}, hl::all] = {self.full_expr(ctx, self.rng.randint(1, 4)).text};")
        else:
            tn = self.fresh("tn")
            ctx = Ctx(1, full=[(f"x0[{i}, {tn}]", ["x0"]), (f"x1[{i}, {tn}]", ["x1"])],
                      bcast=[(f"w[{tn}]", ["w"])], conds=[(f"({tn}.index() < 7)", [])])
            self.emit(f"for (auto {tn} : hl::tile(n)) {{")
            self.indent += 1
            self.locals(ctx, self.rng.randint(0, 2))
            name = self.output(("M", "N"))
            self.emit(f"{name}[{i}, {tn}] = {self.full_expr(ctx, self.rng.randint(1, 4)).text};")
            self.indent -= 1
            self.emit("}")
        self.indent -= 1
        self.emit("}")

    def flat(self):
        """Tiles over every dim of a tensor (rank known at specialization)."""
        t = self.fresh("t")
        ctx = Ctx(2, full=[(f"x0[{t}]", ["x0"]), (f"x1[{t}]", ["x1"])])
        name = self.output(("M", "N"))
        self.emit(f"for (auto {t} : hl::tile({name}.sizes())) {{")
        self.indent += 1
        self.locals(ctx, self.rng.randint(0, 2))
        self.emit(f"{name}[{t}] = {self.full_expr(ctx, self.rng.randint(1, 4)).text};")
        self.indent -= 1
        self.emit("}")


TEMPLATES = ["rows", "tiles2d", "looped", "columns", "grid_rows", "flat", "dots", "matmul",
             "grouped", "attention"]
# attention, when drawn, is the kernel's only loop (gen_attention.py).
TEMPLATE_WEIGHTS = [3, 3, 3, 1.5, 1.5, 1, 1.5, 1.5, 1, 1.2]


class Kernel:
    """One generated kernel: its source (a function) and what the harness needs. A
    parameter's or output's "name" is the one in the source, its "role" the generator's
    (x0, idx, s, o0, q, ...: what case_plan and the harness key on); `names` maps each
    role renamed by gen_names.py to its name ({} for most kernels)."""

    def __init__(self, seed, name, source, params, outputs, templates, half, mask_load,
                 variant=None):
        self.seed, self.name, self.source = seed, name, source
        self.params, self.outputs, self.templates = params, outputs, templates
        self.half, self.mask_load = half, mask_load
        self.variant = variant  # the attention template's choices (gen_attention.source)
        self.names = gen_names.draw(seed, source, name)
        self.source = gen_names.rename(source, self.names)
        for p in params + outputs:
            p["role"] = p["name"]
            p["name"] = self.names.get(p["name"], p["name"])

    def param(self, role):
        """The name of the parameter or output whose role is `role`."""
        return self.names.get(role, role)

    def meta(self):
        m = {"seed": self.seed, "name": self.name, "params": self.params,
             "outputs": self.outputs, "templates": self.templates, "half": self.half,
             "mask_load": self.mask_load}
        if self.variant:
            m["attention"] = self.variant
        if self.names:
            m["names"] = self.names
        return m


def kernel(seed, name=None):
    g = Gen(seed)
    name = name or f"k_{seed}"
    nloops = g.rng.choices([1, 2, 3], [5, 3, 1])[0]
    templates = g.rng.choices(TEMPLATES, TEMPLATE_WEIGHTS, k=nloops)
    if "attention" in templates:
        src, params, outputs, variant = gen_attention.source(g, name)
        return Kernel(seed, name, src, params, outputs, ["attention"], True, False, variant)
    g.use("x0")
    for t in templates:
        getattr(g, t)()
    # Rounded to 16 bits somewhere, or a dot's accumulator stored unscaled (tf32's error
    # on values up to 4n is past the f32 tolerance): the bf16 tolerance.
    half = g.plain_acc or any(".to(hl::f16)" in l or ".to(hl::bf16)" in l for l in g.lines)
    params = []
    sig = []
    for n, (dims, kind) in INPUTS.items():
        if n in g.uses:
            params.append({"name": n, "kind": kind, "dims": list(dims)})
            sig.append(f"const Tensor& {n}")
    for n, ty in SCALARS.items():
        if n in g.uses:
            params.append({"name": n, "kind": ty, "dims": []})
            sig.append(f"{ty} {n}")
    outs = g.outputs
    ret = "Tensor" if len(outs) == 1 else \
        "std::tuple<" + ", ".join(["Tensor"] * len(outs)) + ">"
    body = ["  auto [m, n] = x0.shape<2>();"]
    if "x1" in g.uses:
        body.append('  HELION_CHECK(x1.sizes() == x0.sizes(), "x1: shape");')
    for o in outs:
        body.append(f"  Tensor {o['name']} = {o['alloc']};")
    body += g.lines
    if len(outs) == 1:
        body.append(f"  return {outs[0]['name']};")
    else:
        body.append("  return {" + ", ".join(o["name"] for o in outs) + "};")
    src = f"HELION_KERNEL {ret} {name}({', '.join(sig)}) {{\n" + "\n".join(body) + "\n}\n"
    outputs = [{"name": o["name"], "dims": o["dims"], "dtype": o["dtype"]} for o in outs]
    return Kernel(seed, name, src, params, outputs, templates, half, g.has_mask_load)


PRELUDE = ("#include <helion/hl.h>\n\n#include <cmath>\n#include <tuple>\n\n"
           "using helion::Tensor;\n\n")


def kernel_file(kernels):
    """One translation unit holding several kernels."""
    return PRELUDE + "\n".join(k.source for k in kernels)


if __name__ == "__main__":
    k = kernel(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(kernel_file([k]))
    print("// " + json.dumps(k.meta()))
