"""What fuzz.py, fuzz_checks.py and reduce.py share: running a command, classifying
helionc's outcome, a batch's kernel file, the names of renamed kernels."""
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import gen  # noqa: E402


# --- running helionc -----------------------------------------------------------
ERR_RE = re.compile(r"^(.*?):(\d+):(\d+): error: ", re.M)


def run(cmd, timeout, env=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) \
            else (e.stdout or "")
        return "timeout", out, time.monotonic() - t0


def classify(rc, text, kfile, cfgfile):
    """None when (rc, text) is an acceptable outcome, else why not."""
    if rc == "timeout":
        return "timeout"
    if rc < 0:
        return f"killed by signal {-rc}"
    if rc not in (0, 1):
        return f"exit code {rc}"
    if "internal compiler error" in text:
        return "internal compiler error"
    if "NVRTC failed" in text or "nvrtc" in text.lower() and rc == 1 and "error" in text.lower() \
            and "NVRTC" in text:
        # The instantiation's own diagnostic (a static_assert helionc emits, e.g. the general
        # dot's blocks past 48 KB once the dtypes stage them as f32): a rejection, located
        # at the source line it names.
        errs = [ln for ln in text.splitlines() if ".cu(" in ln and "error:" in ln]
        if errs and all('static assertion failed with "helionc: ' in ln for ln in errs):
            return None
        return "NVRTC rejected the generated CUDA"
    if rc == 1:
        located = any(os.path.basename(m.group(1)) == os.path.basename(kfile)
                      for m in ERR_RE.finditer(text))
        config = cfgfile and (os.path.basename(cfgfile) in text) and "error" in text
        if not located and not config:
            return "exit 1 without a located diagnostic"
    return None


def error_lines(text, kfile):
    return sorted({int(m.group(2)) for m in ERR_RE.finditer(text)
                   if os.path.basename(m.group(1)) == os.path.basename(kfile)})


class Batch:
    """Kernels of one file, with the line span of each."""

    def __init__(self, kernels):
        self.kernels = kernels
        self.text = gen.kernel_file(kernels)
        self.spans = {}
        line = gen.PRELUDE.count("\n") + 1
        for k in kernels:
            n = k.source.count("\n")
            self.spans[k.name] = (line, line + n)
            line += n + 1

    def owner(self, lineno):
        for name, (a, b) in self.spans.items():
            if a <= lineno <= b:
                return name
        return None


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def names_of(kernels):
    """{kernel: its renamed roles} of the renamed ones (gen_names.py)."""
    return {k.name: k.names for k in kernels if k.names}


def names_note(failure):
    """The names of a failure's renamed kernels for its line: " names: k_5 x0=pid ..."."""
    names = failure.get("names", {})
    return "".join(f" names: {k} " + " ".join(f"{a}={b}" for a, b in m.items())
                   for k, m in names.items())
