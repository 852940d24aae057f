"""A distributed run's merged percentiles match the target's exact ones: 3 ranks under
mpirun at 150 arrivals/s against the built-in target, within the accuracy suite's CI
tolerance, max(2%, 1 ms), plus the host's own lateness measured beside the run.

A timing check (the file name gives it ctest's `timing` label): the sanitizer build skips
it, as it skips the accuracy suite. There, three sanitized ranks and the target share two
cores, and a CI host's stalls moved p95 by 2.9 ms once while an idle machine stays within
0.25 ms. That the merge itself is exact, whatever the timings, is test_mpi.py's check and
runs in both builds."""
import os
import shutil
import unittest

from harness import Target, main, temp_dir
from host_stalls import HostStalls
from mpi_harness import MPIRUN, NO_MPIRUN, finish, load, mpirun, rate_scenario
from timing_checks import misses_twice, tolerance


@unittest.skipIf(MPIRUN is None, NO_MPIRUN)
class DistributedAccuracy(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(prefix="stampede-mpi-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def misses(self):
        """One run: asserts the counts, returns the percentiles that missed their tolerance."""
        rate, seconds = 150, 3
        with Target(delay="uniform:5:15", seed=3) as target:
            path = rate_scenario(target.url, rate, f"{seconds}s", self.dir)
            out_json = os.path.join(self.dir, "r.json")
            with HostStalls(seconds) as stalls:
                code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1", "--out", out_json]))
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        request = load(out_json)["results"][0]["metrics"]["http.request"]
        self.assertEqual(request["count"], truth["count"], out)
        missed = []
        for p in ("p50", "p95", "p99"):
            measured, exact = request[p + "_ms"], truth[p + "_ms"]
            host = stalls.percentile(int(p[1:]))
            if abs(measured - exact) > tolerance(exact) + host:
                missed.append(f"{p}: merged {measured:.3f} ms, truth {exact:.3f} ms, host late {host:.3f} ms")
        return missed

    def test_merged_percentiles_match_the_targets_truth(self):
        # The host's own lateness allowed, and measured again once after a miss, as in the
        # accuracy suite (docs/design/024).
        self.assertEqual(misses_twice(self.misses, "merged percentiles"), [], "missed twice in a row")


if __name__ == "__main__":
    main()
