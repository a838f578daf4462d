"""A tiny assertion counter shared by the end-to-end checks: each check()
counts, report() prints "N passed, N failed" and returns the exit code."""

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def report():
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def run_pty(*args):
    """Run with stderr on a pseudo-terminal, as a person's shell would;
    returns (exit status, what it wrote on stderr, seconds)."""
    import os
    import pty
    import subprocess
    import time
    master, slave = pty.openpty()
    t0 = time.monotonic()
    p = subprocess.Popen(list(args), stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        chunks.append(b)
    rc = p.wait()
    os.close(master)
    return rc, b"".join(chunks).decode("utf-8", "replace"), time.monotonic() - t0
