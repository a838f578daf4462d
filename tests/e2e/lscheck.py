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


def judged(tool, results, must_hold, first=(), not_asserted=()):
    """The blind samples' verdict: a judge's results ({name: {"ok",
    "lockspan", "truth"}}) where the names in must_hold must be right and
    the rest are known wrong (XFAIL, not counted; XPASS once right), after
    the checker's own checks `first` ((name, ok, got, want) tuples, each
    counted). Prints a line each and the totals; returns the exit code."""
    failed = passed = xfail = xpass = 0
    for name, ok, got, want in first:
        print(("ok    " if ok else "FAIL  ") + "%s: lockspan %s, truth %s" % (name, got, want))
        passed += ok
        failed += not ok
    for name in [n for n in must_hold if n not in results]:
        print("FAIL  %s: the judge made no such check" % name)
        failed += 1
    for name, r in results.items():
        line = "%s: lockspan %s, truth %s" % (name, r["lockspan"], r["truth"])
        if name in not_asserted:
            print("INFO  " + line + " (right by coincidence, not asserted)")
        elif name in must_hold:
            print(("ok    " if r["ok"] else "FAIL  ") + line)
            passed += bool(r["ok"])
            failed += not r["ok"]
        elif r["ok"]:
            xpass += 1
            print("XPASS " + line + " (now right: move it to MUST_HOLD)")
        else:
            xfail += 1
            print("XFAIL " + line)
    print("%s: %d passed, %d failed; %d known wrong (XFAIL, not counted), %d XPASS"
          % (tool, passed, failed, xfail, xpass))
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
