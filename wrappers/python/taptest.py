"""taptest.py — the Python tests' TAP runner, as tests/testlib.c is the C
tests': every named case runs, a failure is reported with its exception and
the next case still runs."""


def run(cases, cleanup=None):
    """Run (name, function) pairs, print TAP, return the exit status."""
    failed = 0
    print("1..%d" % len(cases))
    for i, (name, fn) in enumerate(cases, 1):
        try:
            fn()
            print("ok %d - %s" % (i, name))
        except Exception as e:  # report and keep going
            failed += 1
            print("not ok %d - %s" % (i, name))
            print("#   %s: %s" % (type(e).__name__, e))
    if cleanup:
        cleanup()
    return 1 if failed else 0
