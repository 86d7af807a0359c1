"""The script tests' failure count: expect(ok, what) prints what failed and counts it;
finish(name) prints the count and exits 1 when there was any."""
import sys

failures = 0


def expect(ok, what):
    global failures
    if not ok:
        print("FAIL:", what)
        failures += 1


def finish(name):
    print(f"{name}: {failures} failures")
    sys.exit(1 if failures else 0)
