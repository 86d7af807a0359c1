# Helper of many-kernels.test: times `helionc compile` (user + system CPU) on files
# of N trivial kernels and fails when the ratio of the two runs exceeds the bound.
import os
import resource
import subprocess
import sys

helionc, out, small, large, bound = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
KERNEL = """HELION_KERNEL Tensor k{i}(const Tensor& x) {{
  Tensor out = helion::empty_like(x);
  for (auto t : hl::tile(x.size(0))) {{
    out[t] = x[t];
  }}
  return out;
}}
"""


def cpu_seconds(n):
    src = os.path.join(out, "many%d.cpp" % n)
    with open(src, "w") as f:
        f.write("#include <helion/hl.h>\nusing helion::Tensor;\n")
        f.write("".join(KERNEL.format(i=i) for i in range(n)))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([helionc, "compile", src, "-o", os.path.join(out, str(n))], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(out, str(n), "many%d.helion.cpp" % n)) as f:
        launchers = f.read().count("helionc: launcher of kernel")
    assert launchers == n, "expected %d launchers, found %d" % (n, launchers)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


cpu_seconds(1)  # first, so that neither timed run builds the precompiled hl.h
t_small, t_large = cpu_seconds(small), cpu_seconds(large)
ratio = t_large / max(t_small, 1e-3)
print("%d kernels: %.2f s, %d kernels: %.2f s, ratio %.1f (bound %.0f)" % (small, t_small, large, t_large, ratio, bound))
sys.exit(0 if ratio < bound else 1)
