"""The fuzzer's expression values (gen.py, gen_gemm.py): an expression's C++ text with a
bound on its magnitude and what it may be used for, and the context a loop body draws
its leaves from.
"""

MAX_BOUND = 64.0


def pow2_scale(bound):
    """The power of two that brings `bound` to at most 8 (exact in every dtype)."""
    s = 1.0
    while bound * s > 8:
        s /= 2
    return s


class Expr:
    def __init__(self, text, bound, full, exact=False, half=False):
        self.text = text        # C++ source
        self.bound = bound      # |value| <= bound
        self.full = full        # has the loop's full block shape (else broadcasts to it)
        self.exact = exact      # same bits on CPU and GPU (loaded values, constants)
        self.half = half        # rounded to f16/bf16 somewhere inside


class Ctx:
    """What a loop body can refer to: leaves of the full shape, leaves that
    broadcast to it, axes that span a whole dim (reducible) and index blocks."""

    def __init__(self, rank, full, bcast=(), red_axes=(), conds=(), keepdim_only=False):
        self.rank = rank
        self.full = list(full)        # (text, uses)
        self.bcast = list(bcast)      # (text, uses)
        self.red_axes = list(red_axes)
        self.conds = list(conds)      # boolean exact blocks (text, uses)
        self.keepdim_only = keepdim_only
        self.vars = []                # Expr of local variables
