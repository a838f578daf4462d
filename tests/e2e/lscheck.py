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
