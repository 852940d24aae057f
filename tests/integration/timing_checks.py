"""The rules every timing check in CI follows (docs/design/024-timing-checks-on-a-noisy-host.md):
the issue's tolerance, widened by the host's own lateness (host_stalls.py), and one more
run after a miss; only a second miss fails."""
import sys


def tolerance(truth_ms, relative=0.02, absolute_ms=1.0):
    """The issue's CI bound: max(2%, 1 ms)."""
    return max(relative * truth_ms, absolute_ms)


def misses_twice(one_run, label):
    """`one_run()` measures once and returns what missed (empty when all held). After a
    miss it runs once more, saying so on stderr; returns the second run's misses."""
    missed = one_run()
    if missed:
        print(f"{label}: missed once, measuring again:\n  " + "\n  ".join(missed), file=sys.stderr)
        missed = one_run()
    return missed
