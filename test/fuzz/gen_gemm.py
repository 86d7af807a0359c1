"""The fuzzer's GEMM loop templates (gen.py's Gen inherits them): two chained hl::dot
over [tm, tn] tiles (the general lowering), one hl::dot over a [tm, tv] grid with an A
prologue and an epilogue (the matmul template), and a grouped GEMM over the groups of
wg with row offsets offs (the grouped template).
"""
import re

from gen_expr import Ctx, Expr


class GemmTemplates:
    """Loop templates of Gen (gen.py) that call hl::dot; they use Gen's helpers."""

    def dots(self):
        """Two chained hl::dot over [tm, tn] tiles (the general lowering): h = A @ B over
        tk (A from x0, B from wv, each loaded or computed), a pointwise activation cast
        or not, then acc += act @ wv[tn, tv]^T (loaded through .transpose or computed),
        and a pointwise epilogue."""
        tm, tn, tv, tk = self.fresh("tm"), self.fresh("tn"), self.fresh("tv"), self.fresh("tk")
        self.use("wv")
        scale = "0.015625"  # 1/64: sums over up to a few thousand products of [-2, 2]

        def operand(load, shape):
            if self.rng.random() < 0.6:
                return load
            return self.pick([f"hl::maximum({load}, hl::zeros({{{shape}}}, hl::f32))",
                              f"({load} * 0.5)", f"hl::abs({load})", f"(-{load})"])

        a = operand(f"x0[{tm}, {tk}]", f"{tm}, {tk}")
        b = operand(f"wv[{tk}, {tv}]", f"{tk}, {tv}")
        act = self.pick([f"hl::maximum(h, hl::zeros({{{tm}, {tv}}}, hl::f32))", "h",
                         f"hl::abs(h) * {scale}", f"h * {scale}"])
        cast = self.pick([".to(x0.dtype())", ".to(x0.dtype())", ""])
        b2 = f"wv[{tn}, {tv}].transpose(0, 1)"
        if self.rng.random() < 0.3:
            b2 = f"(wv[{tn}, {tv}].transpose(0, 1) * 0.5)"
        self.emit(f"for (auto [{tm}, {tn}] : hl::tile({{m, n}})) {{")
        self.indent += 1
        self.emit(f"auto acc = hl::zeros({{{tm}, {tn}}}, hl::f32);")
        self.emit(f"for (auto {tv} : hl::tile(wv.size(1))) {{")
        self.indent += 1
        self.emit(f"auto h = hl::zeros({{{tm}, {tv}}}, hl::f32);")
        self.emit(f"for (auto {tk} : hl::tile(n)) {{")
        self.emit(f"  h = hl::dot({a}, {b}, h);")
        self.emit("}")
        self.emit(f"h = h * {scale};")
        self.emit(f"acc = hl::dot(({act}){cast}, {b2}, acc);")
        self.indent -= 1
        self.emit("}")
        # The result is no exact value (comparisons must not see it): a local, scaled.
        self.emit("auto y = acc * 0.000244140625;")
        ctx = Ctx(2, full=[(f"x0[{tm}, {tn}]", ["x0"])],
                  bcast=[(f"w[{tn}][hl::newaxis, hl::all]", ["w"]),
                         (f"r[{tm}][hl::all, hl::newaxis]", ["r"])])
        ctx.vars.append(Expr("y", 8.0, True))
        name = self.output(("M", "N"))
        e = self.full_expr(ctx, self.rng.randint(1, 2)).text
        if not re.search(r"\by\b", e):
            e = f"y + {self.paren(e)}"
        self.emit(f"{name}[{tm}, {tn}] = {e};")
        self.indent -= 1
        self.emit("}")

    def matmul(self):
        """One hl::dot over a [tm, tv] grid, K the n dim: x0 (or a computed A: the GEMM
        templates' A prologue, a scale along rows or K, a product with x1 at A's
        subscripts, a triangle of A's tile indices) @ wv, then a pointwise epilogue."""
        tm, tv, tk = self.fresh("tm"), self.fresh("tv"), self.fresh("tk")
        self.use("wv")
        x = f"x0[{tm}, {tk}]"
        forms = [(x, []), (f"({x} * 0.5).to(x0.dtype())", []),
                 (f"({x} * r[{tm}][hl::all, hl::newaxis]).to(x0.dtype())", ["r"]),
                 (f"({x} * w[{tk}][hl::newaxis, hl::all]).to(x0.dtype())", ["w"]),
                 (f"({x} * x1[{tm}, {tk}]).to(x0.dtype())", ["x1"]),
                 (f"hl::where({tk}.index()[hl::newaxis, hl::all] <= "
                  f"{tm}.index()[hl::all, hl::newaxis], "
                  f"{x}, 0.0f).to(x0.dtype())", []),
                 (f"hl::abs({x}).to(x0.dtype())", [])]
        a, uses = self.pick(forms)
        self.use(*uses)
        # 3 in 10 scale each K block's product (the templates' K-scale mainloop when A is
        # its own load, else the general lowering): a row factor, a column factor, both,
        # or a constant row factor times a scalar per block.
        factor = None
        if self.rng.random() < 0.3:
            row = f"x0[{tm}, {tk}.id()][hl::all, hl::newaxis]"
            col = f"wv[{tk}.id(), {tv}][hl::newaxis, hl::all]"
            factor, uses = self.pick([(row, []), (col, []), (f"{row} * {col}", []),
                                      (f"r[{tm}][hl::all, hl::newaxis] * w[{tk}.id()]",
                                       ["r", "w"])])
            self.use(*uses)
        self.emit(f"for (auto [{tm}, {tv}] : hl::tile({{m, wv.size(1)}})) {{")
        self.indent += 1
        self.emit(f"auto acc = hl::zeros({{{tm}, {tv}}}, hl::f32);")
        self.dot_epilogue(tm, tv, tk, f"{a}, wv[{tk}, {tv}]", factor=factor)
        self.indent -= 1
        self.emit("}")

    def dot_epilogue(self, tm, tv, tk, operands, plain=False, factor=None):
        """The K loop of one hl::dot (`operands`: A, B) into acc over [tm, tv], then a
        pointwise epilogue stored into a new [M, V] output; `plain`: acc stored as is
        into an output of x0's dtype (the grouped GEMM's row-fitting kernel); `factor`:
        each K block's product times it (`acc = acc + hl::dot(a, b) * factor`)."""
        if factor:
            # The factor reads tk.id(): the K tile is fixed in the source (the scales'
            # block), or each block size would read other factors.
            block = self.pick([32, 64, 128])
            self.emit(f"for (auto {tk} : hl::tile(n, hl::block_size({block}))) {{")
            self.emit(f"  acc = acc + hl::dot({operands}) * {factor};")
        else:
            self.emit(f"for (auto {tk} : hl::tile(n)) {{")
            self.emit(f"  acc = hl::dot({operands}, acc);")
        self.emit("}")
        if plain:
            self.plain_acc = True
            name = self.output(("M", "V"), dtype="x0.dtype()")
            self.emit(f"{name}[{tm}, {tv}] = acc;")
            return
        # |acc| <= 4n: scaled into the tame range; no exact value (comparisons must not see it).
        self.emit("auto y = acc * 0.000244140625;")
        name = self.output(("M", "V"))
        epilogue = self.pick(["y", f"y + r[{tm}][hl::all, hl::newaxis]",
                              f"hl::maximum(y, hl::zeros({{{tm}, {tv}}}, hl::f32))", "y * 2.0f"])
        if "r[" in epilogue:
            self.use("r")
        self.emit(f"{name}[{tm}, {tv}] = {epilogue};")

    def grouped(self):
        """A grouped GEMM (the matmul template's grouped form): rows offs[g] .. offs[g+1]
        of x0 @ wg[g] for every group, K the n dim, then a pointwise epilogue that may
        read a vector at the rows or the columns."""
        g, tm, tv, tk = self.fresh("g"), self.fresh("tm"), self.fresh("tv"), self.fresh("tk")
        self.use("wg", "offs")
        self.emit(f"for (auto {g} : hl::grid(wg.size(0))) {{")
        self.indent += 1
        self.emit(f"auto {g}_start = offs[{g}];")
        self.emit(f"auto {g}_end = offs[{g} + 1];")
        self.emit(f"for (auto {tm} : hl::tile({g}_start, {g}_end)) {{")
        self.indent += 1
        self.emit(f"for (auto {tv} : hl::tile(wg.size(2))) {{")
        self.indent += 1
        self.emit(f"auto acc = hl::zeros({{{tm}, {tv}}}, hl::f32);")
        self.dot_epilogue(tm, tv, tk, f"x0[{tm}, {tk}], wg[{g}, {tk}, {tv}]",
                          plain=self.rng.random() < 0.3)
        for _ in range(3):
            self.indent -= 1
            self.emit("}")
