# Helper of pch-identical.test: runs helionc on each file twice, on top of the
# precompiled hl.h and with HELIONC_NO_PCH=1, and fails unless both runs give the same
# exit code, stdout, stderr and output files, byte for byte, and the first run did use
# the PCH (its log, HELIONC_PCH_LOG, says "reused" or "built") where the file allows one.
import filecmp
import os
import re
import subprocess
import sys

helionc, out = sys.argv[1], sys.argv[2]
files = sys.argv[3:]
cache = os.path.join(out, "cache")


def run(args, pch, outdir):
    env = dict(os.environ, HELIONC_CACHE_DIR=cache, HELIONC_PCH_LOG="1")
    if not pch:
        env["HELIONC_NO_PCH"] = "1"
    if args[0] == "compile":
        args = args + ["-o", outdir]
    p = subprocess.run([helionc] + args, env=env, capture_output=True, text=True)
    log = [l for l in p.stderr.splitlines(True) if l.startswith("helionc: pch: ")]
    stderr = "".join(l for l in p.stderr.splitlines(True) if l not in log)
    return p.returncode, p.stdout, stderr, "".join(log)


def same_tree(a, b):
    if not os.path.isdir(a) and not os.path.isdir(b):
        return True
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors


failures = 0
compared = 0
for f in files:
    wants_pch = not os.path.basename(f).startswith("ref_demo")  # starts with #include "add.cpp"
    for mode in (["compile", f], ["compile", f, "--print-after", "all", "--emit", "cuda"],
                 ["spec", f]):
        tag = "%s-%d" % (os.path.basename(f), compared)
        compared += 1
        with_pch = run(mode, True, os.path.join(out, tag, "pch"))
        source = run(mode, False, os.path.join(out, tag, "source"))
        name = " ".join(mode[:1] + mode[2:]) + " " + os.path.basename(f)
        if source[3]:
            print("FAIL %s: HELIONC_NO_PCH=1 still logged: %s" % (name, source[3]))
            failures += 1
        if wants_pch and not re.search(r"^helionc: pch: (reused|built) ", with_pch[3], re.M):
            print("FAIL %s: the precompiled hl.h was not used:\n%s" % (name, with_pch[3]))
            failures += 1
        if with_pch[:3] != source[:3]:
            print("FAIL %s: exit code, stdout or stderr differ" % name)
            print("--- with PCH (exit %d):\n%s%s" % (with_pch[0], with_pch[1], with_pch[2]))
            print("--- from source (exit %d):\n%s%s" % (source[0], source[1], source[2]))
            failures += 1
        if not same_tree(os.path.join(out, tag, "pch"), os.path.join(out, tag, "source")):
            print("FAIL %s: output files differ" % name)
            failures += 1
print("compared %d runs, %d failures" % (compared, failures))
sys.exit(1 if failures else 0)
