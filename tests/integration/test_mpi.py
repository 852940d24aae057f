"""Distributed runs over MPI (OpenMPI's mpirun), on one machine: 3 ranks against the
built-in target. The merged counts must equal what the target served, the merged summary
must be exactly the merge of the ranks' own histograms, a threshold that only fails on the
merged figures must fail, a rank killed mid-run must not lose what was measured, and
neither does a stop asked of mpirun (SIGUSR1, which it passes on to every rank) or a
Ctrl-C to `--nodes`.
(That the merged percentiles match the target's exact ones is test_mpi_accuracy.py: a
timing check, so the sanitizer build skips it like the accuracy suite.)"""
import glob
import os
import shutil
import signal
import subprocess
import threading
import time
import unittest

from harness import BIN, Target, main, temp_dir
from mpi_harness import MPIRUN, NO_MPIRUN, RANKS, finish, load, mpi_env, mpirun, rank_pid, rate_scenario


def varints(data, at):
    value, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, at


def decode_histogram(hex_text):
    """Histogram::serialize's bytes: 'S' 'H' 1 count [min max sum entries (gap n)*]."""
    data = bytes.fromhex(hex_text)
    assert data[:3] == b"SH\x01", data[:3]
    count, at = varints(data, 3)
    if count == 0:
        return {"count": 0, "buckets": {}}
    lo, at = varints(data, at)
    hi, at = varints(data, at)
    total, at = varints(data, at)
    entries, at = varints(data, at)
    buckets, index = {}, -1
    for _ in range(entries):
        gap, at = varints(data, at)
        n, at = varints(data, at)
        index += gap + 1
        buckets[index] = n
    return {"count": count, "min": lo, "max": hi, "sum": total, "buckets": buckets}


def merge_histograms(hs):
    out = {"count": 0, "buckets": {}}
    for h in hs:
        if h["count"] == 0:
            continue
        out["min"] = min(out.get("min", h["min"]), h["min"])
        out["max"] = max(out.get("max", 0), h["max"])
        out["sum"] = out.get("sum", 0) + h["sum"]
        out["count"] += h["count"]
        for k, n in h["buckets"].items():
            out["buckets"][k] = out["buckets"].get(k, 0) + n
    return out


def metric(dump, name):
    for m in dump["metrics"]:
        if m["name"] == name:
            return m
    return None


def signal_once_served(p, target, count, send, limit=30):
    """Sends the signal once the target has served `count` requests: a fixed delay would
    also count mpirun's start-up, which a sanitizer build on a busy machine stretches past a
    second (CI's ASan run measured 40 requests in 2.5 s at 40/s)."""
    deadline = time.monotonic() + limit
    while p.poll() is None and time.monotonic() < deadline and target.truth()["count"] < count:
        time.sleep(0.05)
    if p.poll() is None:
        send()


@unittest.skipIf(MPIRUN is None, NO_MPIRUN)
class DistributedRun(unittest.TestCase):
    def setUp(self):
        self.dir = temp_dir(prefix="stampede-mpi-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def scenario(self, url, rate, duration, extra=""):
        return rate_scenario(url, rate, duration, self.dir, extra)

    def test_merged_results_equal_the_targets_count_and_the_ranks_own(self):
        rate, seconds = 150, 3
        with Target(delay="uniform:5:15", seed=3) as target:
            path = self.scenario(target.url, rate, f"{seconds}s")
            out_json = os.path.join(self.dir, "r.json")
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1", "--out", out_json,
                                            "--rank-dump", self.dir]))
            truth = target.truth()
        self.assertEqual(code, 0, f"{out}\n{err}")
        results = load(out_json)["results"][0]
        self.assertEqual(results["ranks"], RANKS)
        counts = results["metrics"]
        # Every request the target served was counted once, over all ranks.
        self.assertEqual(counts["http.request"]["count"], truth["count"], out)
        self.assertEqual(counts["iteration"]["count"], rate * seconds, out)

        # The merged summary is exactly the merge of each rank's own histograms.
        dumps = [load(os.path.join(self.dir, f"rank-{r}.json")) for r in range(RANKS)]
        merged = load(os.path.join(self.dir, "merged.json"))
        for name in ("http.request", "iteration"):
            own = [decode_histogram(metric(d, name)["histogram"]) for d in dumps]
            # The arrivals were split evenly: one worker thread per rank, every third arrival each.
            for r, h in enumerate(own):
                self.assertEqual(h["count"], rate * seconds // RANKS, f"rank {r} {name}")
            self.assertEqual(merge_histograms(own), decode_histogram(metric(merged, name)["histogram"]), name)
        self.assertEqual(sum(d["requests"]["completed"] for d in dumps), truth["count"])

    def test_a_threshold_that_only_fails_on_the_merged_figures_fails(self):
        rate, seconds = 30, 2  # 60 requests in all, 20 per rank
        with Target() as target:
            path = self.scenario(target.url, rate, f"{seconds}s",
                                 ', thresholds = { {"http.request", count = 40} }')
            code, out, err = finish(mpirun(["run", path, "--quiet", "--threads", "1", "--rank-dump", self.dir]))
        self.assertEqual(code, 1, f"{out}\n{err}")
        self.assertRegex(out, r"http\.request\s+60\b")
        for r in range(RANKS):
            dump = load(os.path.join(self.dir, f"rank-{r}.json"))
            self.assertLessEqual(metric(dump, "http.request")["count"], 40, f"rank {r} alone would pass")

    def test_a_rank_that_dies_is_named_and_what_was_measured_is_kept(self):
        with Target() as target:
            path = self.scenario(target.url, 60, "20s")
            out_json = os.path.join(self.dir, "r.json")
            p = mpirun(["run", path, "--quiet", "--threads", "1", "--rank-timeout", "2s", "--out", out_json])
            killed = []

            def kill_rank_2():
                # Rank 2 of this job, once the run has merged its first seconds (rank 0 keeps
                # --out current: design 037), so that it dies during the load, not during
                # MPI's wire-up (slow under the sanitizers), which OpenMPI always aborts.
                pid = rank_pid(2, path, timeout=15)
                deadline = time.monotonic() + 20
                while pid is not None and not os.path.exists(out_json) and time.monotonic() < deadline:
                    time.sleep(0.05)
                if pid is not None:
                    time.sleep(1)
                    os.kill(pid, 9)
                    killed.append(pid)

            killer = threading.Thread(target=kill_rank_2)
            killer.start()
            code, out, err = finish(p, timeout=40)
            killer.join()
            truth = target.truth()
        self.assertTrue(killed, "rank 2 was never found to be killed")
        # OpenMPI passes on the first failed process's status: the killed rank's (128 + 9).
        self.assertEqual(code, 137, f"{out}\n{err}")
        self.assertRegex(err, r"rank 2 was lost [0-9.]+ s into the run", err)
        doc = load(out_json)
        self.assertLess(doc["results"][0]["duration_ms"], 20000, "the run was not stopped when the rank was lost")
        self.assertTrue(doc["complete"])
        self.assertFalse(doc["passed"], "a run that lost a rank passed")
        self.assertEqual(doc["verdict"], "rank lost")
        self.assertRegex(doc["reason"], r"^rank 2 was lost [0-9.]+ s into the run \(sent nothing")
        results = doc["results"][0]
        self.assertFalse(results["passed"])
        self.assertEqual(results["verdict"], "rank lost")
        self.assertEqual([l["rank"] for l in results["lost_ranks"]], [2], results.get("lost_ranks"))
        self.assertIn("sent nothing", results["lost_ranks"][0]["reason"])
        counts = results["metrics"]
        # What ranks 0 and 1 (and rank 2 until it died) measured is there.
        self.assertGreater(counts["http.request"]["count"], 60)
        self.assertLessEqual(counts["http.request"]["count"], truth["count"])

    def kill_rank_once_measured(self, p, path, rank, sig, out_json, seconds=3):
        """Sends SIG to rank RANK of the job running PATH once OUT_JSON (kept current while
        the run goes) holds SECONDS seconds; returns the number of seconds it then held."""
        pid = rank_pid(rank, path, timeout=20)
        self.assertIsNotNone(pid, f"rank {rank} never started")
        deadline = time.monotonic() + 30
        held = 0
        while p.poll() is None and time.monotonic() < deadline and held < seconds:
            time.sleep(0.1)
            try:
                held = len(load(out_json)["results"][0]["timeline"])
            except (OSError, ValueError, KeyError, IndexError):
                pass  # not written yet
        self.assertGreaterEqual(held, seconds, "the results file was not kept current")
        os.kill(pid, sig)
        return held

    def test_under_plain_mpirun_a_killed_rank_ends_the_job_but_not_the_results(self):
        # mpirun's default ends the job when a rank dies: SIGTERM to the others, SIGKILL a
        # second later. What rank 0 measured until then is on disk, marked incomplete.
        with Target() as target:
            path = self.scenario(target.url, 60, "30s")
            out_json = os.path.join(self.dir, "r.json")
            p = mpirun(["run", path, "--threads", "1", "--out", out_json], keep_going=False)
            held = self.kill_rank_once_measured(p, path, 2, signal.SIGKILL, out_json)
            code, out, err = finish(p, timeout=40)
            truth = target.truth()
        self.assertEqual(code, 137, f"{out}\n{err}")
        self.assertIn("note: this mpirun ends the whole job if a rank dies", err)
        doc = load(out_json)
        self.assertFalse(doc["complete"])
        self.assertFalse(doc["passed"])
        self.assertEqual(doc["verdict"], "incomplete")
        # Rank 0 rewrites the file at mpirun's SIGTERM, but its SIGKILL follows within
        # milliseconds to a second: either write may be the last.
        self.assertRegex(doc["reason"], r"^(the process was sent SIGTERM|written while the run went on)", err)
        results = doc["results"][0]
        self.assertGreaterEqual(len(results["timeline"]), held)
        self.assertGreater(results["metrics"]["http.request"]["count"], 0)
        self.assertLessEqual(results["metrics"]["http.request"]["count"], truth["count"])

    def test_a_killed_rank_0_leaves_its_last_complete_second(self):
        with Target() as target:
            path = self.scenario(target.url, 60, "30s")
            out_json = os.path.join(self.dir, "r.json")
            p = mpirun(["run", path, "--quiet", "--threads", "1", "--out", out_json, "--rank-timeout", "2s"])
            held = self.kill_rank_once_measured(p, path, 0, signal.SIGKILL, out_json)
            finish(p, timeout=40)
        doc = load(out_json)
        self.assertFalse(doc["complete"])
        self.assertEqual(doc["verdict"], "incomplete")
        self.assertIn("the process ended before it could write the end of the run", doc["reason"])
        results = doc["results"][0]
        # What was on disk before the kill is still there, whole, and adds up (how many more
        # seconds rank 0 merged and wrote before the kill landed is the host's speed).
        self.assertGreaterEqual(len(results["timeline"]), held)
        self.assertEqual(results["metrics"]["iterations"]["count"], sum(s["iterations"] for s in results["timeline"]))

    def test_nodes_exits_3_for_a_lost_rank_whether_it_died_or_stalled(self):
        for sig in (signal.SIGKILL, signal.SIGSTOP):
            with self.subTest(signal=sig.name), Target() as target:
                path = self.scenario(target.url, 60, "30s")
                out_json = os.path.join(self.dir, f"r-{sig.name}.json")
                p = subprocess.Popen([BIN, "run", path, "--quiet", "--threads", "1", "--nodes", "localhost",
                                      "--procs-per-node", "3", "--rank-timeout", "2s", "--out", out_json],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=mpi_env())
                self.kill_rank_once_measured(p, path, 2, sig, out_json, seconds=2)
                code, out, err = finish(p, timeout=40)
                self.assertEqual(code, 3, f"{out}\n{err}")
                doc = load(out_json)
                self.assertTrue(doc["complete"])
                self.assertEqual(doc["verdict"], "rank lost")
                self.assertFalse(doc["passed"])
                self.assertIn("rank 2 was lost", doc["reason"])

    def test_nodes_runs_itself_under_mpirun(self):
        with Target() as target:
            path = self.scenario(target.url, 40, "1s")
            r = subprocess.run([BIN, "run", path, "--quiet", "--threads", "1", "--nodes", "localhost",
                                "--procs-per-node", "2", "--out", os.path.join(self.dir, "r.json")],
                               capture_output=True, text=True, timeout=60, env=mpi_env())
            truth = target.truth()
        self.assertEqual(r.returncode, 0, f"{r.stdout}\n{r.stderr}")
        results = load(os.path.join(self.dir, "r.json"))["results"][0]
        self.assertEqual(results["ranks"], 2)
        self.assertEqual(results["metrics"]["http.request"]["count"], truth["count"])


    def interrupted_run_kept_everything(self, code, out, err, out_json, truth, private_tmp):
        """What a run stopped early in its 20 s (once the target had served 40 requests) must
        have printed and written: the verdicts (exit 0), the interrupt, the summary, and the
        merged results of both ranks, counting what the target served; and rank 1 took its
        private scenario copy away."""
        self.assertEqual(code, 0, f"{out}\n{err}")
        self.assertIn("interrupted", err)
        self.assertRegex(out, r"http\.request\s+\d+", out)
        self.assertRegex(out, r"pass http\.request p95", out)
        results = load(out_json)["results"][0]
        self.assertEqual(results["ranks"], 2)
        self.assertGreaterEqual(results["interrupts"], 1)
        counted = results["metrics"]["http.request"]["count"]
        self.assertGreaterEqual(counted, 40, "the first seconds were measured")
        # Stopped at the signal: before its 20 s and its 800 arrivals (the results' own figures).
        self.assertLess(results["duration_ms"], 20000, "the run was not stopped at the signal")
        self.assertLess(results["metrics"]["iteration"]["count"], 40 * 20, "the run stopped early")
        # graceful_stop lets what was in flight finish, so nothing the target served is lost;
        # at 40/s and 1 ms a request each, at most one per rank could be in flight.
        self.assertLessEqual(counted, truth["count"])
        self.assertLessEqual(truth["count"] - counted, 2, f"target {truth['count']}, counted {counted}")
        self.assertEqual(glob.glob(os.path.join(private_tmp, "stampede-rank*")), [],
                         "a rank left its scenario copy behind")

    def test_sigusr1_to_mpirun_stops_every_rank_and_keeps_the_results(self):
        # OpenMPI's mpirun kills the whole job on Ctrl-C (SIGINT) but passes SIGUSR1 on to
        # every rank: rank 0 reads it as a Ctrl-C. Rank 1 runs in a directory holding an older
        # scenario.lua (as on another machine), so it writes rank 0's text under its TMPDIR.
        private_tmp = os.path.join(self.dir, "tmp")
        elsewhere = os.path.join(self.dir, "elsewhere")
        os.makedirs(private_tmp)
        os.makedirs(elsewhere)
        with Target(delay="fixed:1") as target:
            path = self.scenario(target.url, 40, "20s", ', thresholds = { {"http.request", p95 = 5000} }')
            with open(path) as f, open(os.path.join(elsewhere, "scenario.lua"), "w") as stale:
                stale.write("-- an older copy\n" + f.read())
            out_json = os.path.join(self.dir, "r.json")
            # An absolute path: mpirun would look for a relative one under -wdir.
            args = [os.path.abspath(BIN), "run", "scenario.lua", "--quiet", "--threads", "1", "--out", out_json]
            cmd = [MPIRUN, "-q", "--oversubscribe", "--mca", "orte_abort_on_non_zero_status", "0"]
            if os.geteuid() == 0:
                cmd.append("--allow-run-as-root")
            cmd += ["-np", "1", "-wdir", self.dir, *args, ":", "-np", "1", "-wdir", elsewhere, *args]
            env = dict(mpi_env(), TMPDIR=private_tmp)
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            signal_once_served(p, target, 40, lambda: p.send_signal(signal.SIGUSR1))
            code, out, err = finish(p, timeout=40)
            truth = target.truth()
        self.interrupted_run_kept_everything(code, out, err, out_json, truth, private_tmp)

    def test_ctrl_c_to_nodes_stops_every_rank_and_keeps_the_results(self):
        # A terminal's Ctrl-C goes to the foreground process group: here that of `stampede
        # --nodes`, which keeps mpirun out of it and turns the SIGINT into a SIGUSR1 to it.
        private_tmp = os.path.join(self.dir, "tmp")
        os.makedirs(private_tmp)
        with Target(delay="fixed:1") as target:
            path = self.scenario(target.url, 40, "20s", ', thresholds = { {"http.request", p95 = 5000} }')
            out_json = os.path.join(self.dir, "r.json")
            p = subprocess.Popen([BIN, "run", path, "--quiet", "--threads", "1", "--nodes", "localhost",
                                  "--procs-per-node", "2", "--out", out_json],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=dict(mpi_env(), TMPDIR=private_tmp), start_new_session=True)
            signal_once_served(p, target, 40, lambda: os.killpg(p.pid, signal.SIGINT))
            code, out, err = finish(p, timeout=40)
            truth = target.truth()
        self.interrupted_run_kept_everything(code, out, err, out_json, truth, private_tmp)


if __name__ == "__main__":
    main()
