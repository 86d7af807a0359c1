# Helper of pch-concurrent.test: runs N `helionc compile` at once on an empty cache.
import filecmp
import os
import subprocess
import sys

helionc, kernel, out, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
env = dict(os.environ, HELIONC_CACHE_DIR=os.path.join(out, "cache"), HELIONC_PCH_LOG="1")
procs = [subprocess.Popen([helionc, "compile", kernel, "-o", os.path.join(out, str(i))], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
         for i in range(n)]
logs = [p.communicate()[0] for p in procs]
failures = []
for i, (p, log) in enumerate(zip(procs, logs)):
    print("--- process %d (exit %d):\n%s" % (i, p.returncode, log), end="")
    if p.returncode != 0:
        failures.append("process %d exited %d" % (i, p.returncode))
    if "helionc: pch: built " not in log and "helionc: pch: reused " not in log:
        failures.append("process %d did not use the PCH" % i)
    match, mismatch, errors = filecmp.cmpfiles(os.path.join(out, "0"), os.path.join(out, str(i)),
                                               os.listdir(os.path.join(out, "0")), shallow=False)
    if mismatch or errors:
        failures.append("process %d wrote other files: %s" % (i, mismatch + errors))
built = sum(log.count("helionc: pch: built ") for log in logs)
if built != 1:
    failures.append("%d processes built the PCH, expected 1" % built)
left = sorted(os.listdir(os.path.join(out, "cache", "pch")))
if len(left) != 2 or not left[0].endswith(".manifest") or not left[1].endswith(".pch"):
    failures.append("the cache holds %s, expected one .manifest and one .pch" % left)
again = subprocess.run([helionc, "compile", kernel, "-o", os.path.join(out, "again")], env=env,
                       capture_output=True, text=True)
if "helionc: pch: reused " not in again.stderr:
    failures.append("the next run did not reuse the PCH: %s" % again.stderr)
for f in failures:
    print("FAIL " + f)
sys.exit(1 if failures else 0)
