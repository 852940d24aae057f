"""Distributed runs over MPI: a rank that dies before the run starts (here while rank 0 runs
setup(), which the others wait for) must not hang the job. Rank 0 gives every other rank
--rank-timeout to answer, then names the rank and ends the job with exit 3; the others wait
for rank 0 as long as it beats, so a setup() longer than the timeout is no failure; and if
rank 0 itself dies, the others end the job once it has been silent for its timeout.
(docs/design/026-bounded-waits-before-the-run.md)"""
import os
import shutil
import signal
import time
import unittest

from harness import Target, main, temp_dir, write_scenario
from mpi_harness import MPIRUN, NO_MPIRUN, finish, load, mpirun, rank_pid, wait_for_file

SETUP_SECONDS = 4
RANK_TIMEOUT = 2
# Rank 0 ends the job with MPI_Abort(3), but mpirun exits with the first failure it saw:
# a rank killed by SIGKILL before that is 128 + 9 (design 013). A stalled rank is no
# failure to mpirun, so there the 3 comes through.
KILLED = (3, 137)


def setup_scenario(url, marker, directory, name="scenario.lua"):
    """20/s for 2 s, after a setup() (on rank 0 only) that writes MARKER and then takes
    SETUP_SECONDS."""
    return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = 20, duration = "2s", graceful_stop = "2s", max_vus = 30 }},
         setup = function()
           local f = assert(io.open("{marker}", "w"))
           f:write("in setup")
           f:close()
           os.execute("sleep {SETUP_SECONDS}")
           return {{}}
         end,
         run = function() http.get("{url}/api/posts") end }}
""", name=name, directory=directory)


@unittest.skipIf(MPIRUN is None, NO_MPIRUN)
class RankLostBeforeTheRun(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(prefix="stampede-mpi-startup-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def kill_during_setup(self, rank, path, marker, args, sig=9):
        """Starts the job, kills RANK (SIGKILL, or SIG) once rank 0 is in setup(), and returns
        the job's status, output and the seconds from the kill to the job's end."""
        p = mpirun(["run", *args, "--quiet", "--threads", "1", "--rank-timeout", f"{RANK_TIMEOUT}s"])
        try:
            self.assertTrue(wait_for_file(marker, timeout=30), "rank 0 never reached setup()")
            pid = rank_pid(rank, path)
            self.assertIsNotNone(pid, f"rank {rank} was not found")
            os.kill(pid, sig)
            killed = time.monotonic()
        except BaseException:
            p.kill()
            p.communicate()
            raise
        try:
            code, out, err = finish(p, timeout=SETUP_SECONDS + RANK_TIMEOUT + 30)  # a hang fails here
        finally:
            if sig != 9:
                try:
                    os.kill(pid, 9)  # a stopped rank the job did not take down
                except ProcessLookupError:
                    pass
        return code, out, err, time.monotonic() - killed

    def test_a_rank_killed_during_setup_is_named_and_ends_the_job(self):
        marker = os.path.join(self.dir, "in-setup")
        with Target(delay="fixed:1") as target:
            path = setup_scenario(target.url, marker, self.dir)
            code, out, err, took = self.kill_during_setup(1, path, marker, [path])
        self.assertIn(code, KILLED, f"{out}\n{err}")
        self.assertRegex(err, r"rank 1 did not answer within 2\.0 s when rank 0 sent the plan for .*scenario\.lua"
                              r".*; it may have died", err)
        self.assertNotRegex(err, r"ranks? [0-9, ]*\b2\b[0-9, ]* did not answer", "rank 2 was alive")
        self.assertGreater(took, RANK_TIMEOUT, "rank 0 gave up before the rank timeout")

    def test_a_rank_killed_between_two_files_keeps_the_first_files_results(self):
        marker = os.path.join(self.dir, "in-setup")
        out_json = os.path.join(self.dir, "r.json")
        with Target(delay="fixed:1") as target:
            first = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = 20, duration = "1s", max_vus = 30 }},
         run = function() http.get("{target.url}/api/posts") end }}
""", name="first.lua", directory=self.dir)
            second = setup_scenario(target.url, marker, self.dir, name="second.lua")
            code, out, err, took = self.kill_during_setup(1, second, marker, [first, second, "--out", out_json])
        self.assertIn(code, KILLED, f"{out}\n{err}")
        self.assertRegex(err, r"rank 1 did not answer within 2\.0 s when rank 0 sent the plan for .*second\.lua", err)
        results = load(out_json)["results"]
        self.assertEqual(len(results), 1, "the first file's results were not kept")
        self.assertGreater(results[0]["metrics"]["http.request"]["count"], 0)

    def test_a_rank_stalled_during_setup_is_named_and_the_job_ends_with_3(self):
        marker = os.path.join(self.dir, "in-setup")
        with Target(delay="fixed:1") as target:
            path = setup_scenario(target.url, marker, self.dir)
            code, out, err, took = self.kill_during_setup(2, path, marker, [path], sig=signal.SIGSTOP)
        self.assertEqual(code, 3, f"{out}\n{err}")
        self.assertRegex(err, r"rank 2 did not answer within 2\.0 s when rank 0 sent the plan for .*; it may have died",
                         err)

    def test_rank_0_killed_during_setup_ends_the_job(self):
        marker = os.path.join(self.dir, "in-setup")
        with Target(delay="fixed:1") as target:
            path = setup_scenario(target.url, marker, self.dir)
            code, out, err, took = self.kill_during_setup(0, path, marker, [path])
        self.assertNotEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(err, r"rank [12]: error: rank 0 sent nothing for [0-9.]+ s .*it may have died", err)

    def test_a_setup_longer_than_the_rank_timeout_is_waited_for(self):
        marker = os.path.join(self.dir, "in-setup")
        with Target(delay="fixed:1") as target:
            path = setup_scenario(target.url, marker, self.dir)
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1", "--rank-timeout", f"{RANK_TIMEOUT}s"]),
                                    timeout=60)
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertRegex(out, r"http\.request\s+40\b", out)
        self.assertEqual(truth["count"], 40)
        self.assertNotIn("error", err)


if __name__ == "__main__":
    main()
