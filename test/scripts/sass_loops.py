#!/usr/bin/env python3
"""scripts/sass_loops.py on a small dump in cuobjdump -sass's format (no GPU or
disassembler needed): a kernel whose k-loop (two HGMMAs, one R2UR) sits inside a tile
loop is counted once, as the inner loop; a loop without an HGMMA is not one; kernels are
told apart by name; a loop longer than --max is left out. Exit 1 on a failure."""
import os
import subprocess
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(root, "scripts"))
import sass_loops  # noqa: E402
from expect import expect, finish  # noqa: E402

DUMP = """
\tcode for sm_90a
\t\tFunction : _Z6kernelv
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x00000a0000017a02 */
        /*0010*/                   S2R R0, SR_TID.X ;                     /* 0x0000000000007919 */
        /*0020*/                   IADD3 R2, R2, 0x1, RZ ;                /* 0x0000000102027810 */
        /*0030*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR8], R4 ;  /* 0x0 */
        /*0040*/                   R2UR UR4, R10 ;                        /* 0x000000000a0472ca */
        /*0050*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4].tnspB, R24 ;  /* 0x0 */
        /*0060*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4].tnspB, R24, gsb0 ;  /* 0x0 */
        /*0070*/               @!P0 BRA 0x30 ;                            /* 0x0 */
        /*0080*/                   STG.E [R2.64], R24 ;                   /* 0x0 */
        /*0090*/               @!P1 BRA 0x20 ;                            /* 0x0 */
        /*00a0*/                   IADD3 R5, R5, 0x1, RZ ;                /* 0x0 */
        /*00b0*/               @!P2 BRA 0xa0 ;                            /* 0x0 */
        /*00c0*/                   EXIT ;                                 /* 0x0 */
\t\t..........
\t\tFunction : _Z5otherv
        /*0000*/                   IADD3 R5, R5, 0x1, RZ ;                /* 0x0 */
        /*0010*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24 ;  /* 0x0 */
        /*0020*/               @!P2 BRA 0x0 ;                             /* 0x0 */
        /*0030*/                   EXIT ;                                 /* 0x0 */
"""


ks = sass_loops.kernels(DUMP)
expect(list(ks) == ["_Z6kernelv", "_Z5otherv"], f"kernels {list(ks)}")
expect(len(ks["_Z6kernelv"]) == 13, f"{len(ks['_Z6kernelv'])} instructions")
got = sass_loops.loops(ks["_Z6kernelv"])
expect(got == [(5, 1, 2)], f"k-loops {got}")  # 0x30 .. 0x70: not the tile loop 0x20 .. 0x90
expect(sass_loops.loops(ks["_Z5otherv"]) == [(3, 0, 1)], "the other kernel")
expect(sass_loops.loops(ks["_Z6kernelv"], limit=4) == [], "--max")
line = sass_loops.summary("_Z6kernelv", ks["_Z6kernelv"])
expect("13 instructions; k-loops: 5 instructions, 1 R2UR, 2 HGMMA (x1)" in line, line)

script = os.path.join(root, "scripts", "sass_loops.py")
run = subprocess.run([sys.executable, script, "--kernel", "_Z5"], input=DUMP,
                     capture_output=True, text=True)
expect(run.returncode == 0 and run.stdout.startswith("_Z5otherv: 4 instructions"),
       f"cli: {run.returncode} {run.stdout!r}")
run = subprocess.run([sys.executable, script, "--kernel", "_Z9none"], input=DUMP,
                     capture_output=True, text=True)
expect(run.returncode == 1 and "no kernel" in run.stderr, f"cli, no kernel: {run.returncode}")

finish("sass_loops")
