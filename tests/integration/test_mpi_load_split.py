"""Distributed runs must match one process with the same load where the split could differ:
an arrival rate with few VUs (every rank's threads take every n-th arrival), gauges that
describe one process (generator.fds against its own limit), several files (all checked before
any runs), a scenario file only rank 0 has, a count of iterations (each rank ends when its
share has), and a failed threshold under plain `mpirun` (exit 1, no MPI_ABORT banner)."""
import json
import os
import re
import shutil
import subprocess
import unittest

from harness import BIN, Target, main, temp_dir, write_scenario
from mpi_harness import MPIRUN, NO_MPIRUN, finish, mpi_env, mpirun


@unittest.skipIf(MPIRUN is None, NO_MPIRUN)
class DistributedLoadSplit(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(prefix="stampede-mpi-split-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def scenario(self, url, options, name="s.lua"):
        return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ {options} }},
         run = function() http.get("{url}/api/posts") end }}
""", directory=self.dir, name=name)

    def test_a_rate_with_fewer_vus_than_threads_drops_nothing(self):
        # 3 VUs over 2 ranks of 2 threads: one thread had no VU and dropped a quarter of the
        # arrivals (30 of 40 ran); one process with the same options runs all 40.
        with Target() as target:
            path = self.scenario(target.url, 'rate = 20, duration = "2s", max_vus = 3, graceful_stop = "5s"')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "2"], ranks=2))
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(out, r"\niterations\s+40\b", out)
        self.assertRegex(out, r"\niterations\.dropped\s+0\b", out)
        self.assertEqual(truth["count"], 40)

    def test_a_count_of_iterations_is_split_between_the_vus_of_every_rank(self):
        # 3 VUs over 2 ranks of 2 threads: one thread has no VU, and so no iteration to run
        # (given some, it waited for the 30 s limit); the run ends on its count.
        with Target() as target:
            path = self.scenario(target.url, 'vus = 3, iterations = 11, duration = "30s"')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "2"], ranks=2))
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(out, r"\niterations\s+11\b", out)
        self.assertEqual(truth["count"], 11)
        took = float(re.search(r"ran for ([0-9.]+)s", out).group(1))
        self.assertLess(took, 30, out)  # the run's own record: ended by the count

    def test_fewer_max_vus_than_processes_is_refused(self):
        with Target() as target:
            path = self.scenario(target.url, 'rate = 20, duration = "2s", max_vus = 1')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1"], ranks=2))
            truth = target.truth()
        self.assertEqual(code, 2, f"{out}\n{err}")
        self.assertIn("max_vus 1 is fewer than the 2 processes", err)
        self.assertEqual(truth["count"], 0)

    def test_generator_gauges_are_the_busiest_process_not_the_sum(self):
        # Each process has ~15-30 files open against its own limit of 20,000; three summed
        # (77) failed a max of 50 that every process kept.
        with Target() as target:
            path = self.scenario(target.url, 'vus = 3, duration = "2s", '
                                             'thresholds = { {"generator.fds", max = 50}, {"vus", max = 3} }')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1"], ranks=3))
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(out, r"pass generator\.fds max <= 50 \(\d\d?\)", out)
        self.assertIn("pass vus max <= 3 (3)", out)  # VUs of the ranks still add up

    def test_the_generator_verdict_counts_every_ranks_drops(self):
        # 2 VUs of 100 ms requests cannot start 100 arrivals/s: most are dropped, on both
        # ranks; the generator figures counted rank 0's alone.
        out_json = os.path.join(self.dir, "r.json")
        with Target(delay="fixed:100") as target:
            path = self.scenario(target.url, 'rate = 100, duration = "2s", max_vus = 2')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1", "--out", out_json], ranks=2))
        self.assertEqual(code, 0, f"{out}\n{err}")
        with open(out_json) as f:
            result = json.load(f)["results"][0]
        dropped = result["metrics"]["iterations.dropped"]["count"]
        self.assertGreater(dropped, 100, out)
        self.assertEqual(result["generator"]["dropped_iterations"], dropped, result["generator"])

    def test_a_broken_second_file_is_found_before_the_first_runs(self):
        with Target() as target:
            good = self.scenario(target.url, 'vus = 1, duration = "2s"', name="good.lua")
            broken = write_scenario("return { run = function() end, options = { vus = 'many' } }",
                                    directory=self.dir, name="broken.lua")
            code, out, err = finish(mpirun(["run", good, broken, "--quiet", "--threads", "1"], ranks=2))
            truth = target.truth()
        self.assertEqual(code, 2, f"{out}\n{err}")
        self.assertIn("broken.lua", err)
        self.assertNotIn("ran for", out)
        self.assertEqual(truth["count"], 0)

    def test_only_rank_0_needs_the_scenario_file(self):
        # Rank 1 starts in a directory without it, as on another machine: rank 0 sends the text.
        with Target() as target:
            path = self.scenario(target.url, 'rate = 20, duration = "1s", graceful_stop = "5s"', name="only0.lua")
            elsewhere = os.path.join(self.dir, "elsewhere")
            os.mkdir(elsewhere)
            cmd = [MPIRUN, "-q", "--oversubscribe", "--mca", "orte_abort_on_non_zero_status", "0"]
            if os.geteuid() == 0:
                cmd.append("--allow-run-as-root")
            rank_args = ["run", "only0.lua", "--quiet", "--threads", "1"]
            binary = os.path.abspath(BIN)  # under -wdir, mpirun looks for a relative path there
            cmd += ["-np", "1", "-wdir", self.dir, binary, *rank_args, ":", "-np", "1", "-wdir", elsewhere, binary, *rank_args]
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env())
            code, out, err = finish(p, timeout=60)
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(out, r"\niterations\s+20\b", out)
        self.assertEqual(truth["count"], 20)

    def test_a_failed_threshold_under_plain_mpirun_exits_1_without_an_abort(self):
        with Target() as target:
            path = self.scenario(target.url, 'rate = 20, duration = "1s", graceful_stop = "5s", '
                                             'thresholds = { {"http.request", count = 5} }')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1"], ranks=2, keep_going=False))
        self.assertEqual(code, 1, f"{out}\n{err}")
        self.assertIn("fail http.request count", out)
        # An MPI_Abort prints OpenMPI's banner, or (with pipes, racing the abort) fails to:
        # "ORTE_ERROR_LOG: Data unpack would read past end of buffer ... show_help.c".
        self.assertNotIn("MPI_ABORT", err)
        self.assertNotIn("ORTE_ERROR_LOG", err)


if __name__ == "__main__":
    main()
