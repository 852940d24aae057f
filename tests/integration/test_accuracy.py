"""The accuracy suite (CI version of bench/accuracy): at 1,000 arrivals/s against the
built-in target, Stampede's percentiles must match the target's exact ones, and every
request the target served must be counted once. CI tolerance: max(2%, 1 ms).

`http.request` is held to that tolerance alone. `iteration` is timed from the instant the
arrival was due (coordinated-omission free), so it also carries however late the generator
started it; on a shared CI machine that lag alone can pass 1 ms at p99. The run measures it
as `iteration.lag`, so the iteration check allows exactly that much more, no blanket slack.

The machine's own noise is allowed too, measured beside the run by another process: how
late its 1 ms sleeps woke at the same percentile (host_stalls.py). This host's vCPUs stop
for milliseconds now and then (bench/RESULTS.md, session 10), and a stall that delays
reading a reply moves a tail percentile past 1 ms: a CI run read http.request p99 2.7 ms
over the truth for fixed:10 while the target itself was 3.0 ms late at p99. An idle host's
sleeps are late by ~0.1 ms at p50 and up to ~1 ms at p99, so the check stays within a
millisecond or two of the issue's tolerance; an error in how Stampede times requests is not
in that allowance. A distribution that still misses is measured once more, and only a
second miss fails. Counts are never excused: a stall does not drop or add a request
(docs/design/024-timing-checks-on-a-noisy-host.md)."""
import os
import unittest

from harness import Target, run, write_scenario, main
from host_stalls import HostStalls
from timing_checks import misses_twice, tolerance

# 5,000 requests a distribution: measured and true percentiles are of the same requests, so
# a longer run adds CI time, not rigour (bench/accuracy runs 10,000/s for longer).
SECONDS = int(os.environ.get("ACCURACY_SECONDS", "5"))
RATE = 1000
DISTRIBUTIONS = ["fixed:10", "uniform:5:15", "lognormal:20:0.6", "bimodal:5:300:0.015"]


class Accuracy(unittest.TestCase):
    def measure(self, delay):
        with Target(delay=delay, seed=7) as target:
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = {RATE}, duration = "{SECONDS}s", graceful_stop = "5s", max_vus = 2000 }},
         run = function() http.get("{target.url}/api/posts") end }}
""")
            with HostStalls(SECONDS) as stalls:
                r = run(["run", path, "--quiet"], timeout=SECONDS + 60)
            self.assertEqual(r.code, 0, r)
            return r, target.truth(), stalls

    def misses(self, delay):
        """One run against DELAY: asserts the counts, returns what missed its percentile tolerance."""
        r, truth, stalls = self.measure(delay)
        req = r.metric("http.request")
        it = r.metric("iteration")
        lag = r.metric("iteration.lag")
        self.assertEqual(req["count"], truth["count"], f"{delay}: counted {req['count']}, served {truth['count']}\n{r}")
        self.assertEqual(it["count"], RATE * SECONDS, r)
        self.assertRegex(r.out, r"requests: (\d+) sent, \1 completed, 0 failed, 0 in flight")
        missed = []
        for p in ("p50", "p95", "p99"):
            exact = truth[p + "_ms"]
            host = stalls.percentile(int(p[1:]))
            for name, row, late in (("http.request", req, 0.0), ("iteration", it, lag[p])):
                if abs(row[p] - exact) > tolerance(exact) + host + late:
                    missed.append(f"{delay} {name} {p}: measured {row[p]:.3f} ms, truth {exact:.3f} ms, "
                                  f"host late {host:.3f} ms, iteration.lag {p} {lag[p]:.3f} ms")
        return missed

    def test_percentiles_and_counts_match_the_truth(self):
        for delay in DISTRIBUTIONS:
            with self.subTest(delay=delay):
                missed = misses_twice(lambda: self.misses(delay), delay)
                self.assertEqual(missed, [], "missed twice in a row")


if __name__ == "__main__":
    main()
