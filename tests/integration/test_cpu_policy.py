"""`stampede run --cpu-policy batch`: the worker threads, and only they, run under
SCHED_BATCH while the load goes (read from /proc, as `chrt -p` would), and the run
measures the same as ever: every request the target served counted once, no errors."""
import json
import os
import subprocess
import time
import unittest

from harness import BIN, Result, Target, main, run, temp_dir, write_scenario

SCHED_OTHER, SCHED_BATCH = 0, 3


def thread_policies(pid):
    """{tid: scheduling policy} of every thread of `pid` (field 41 of /proc/PID/task/TID/stat)."""
    policies = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return policies
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # fields from 3 (state) on
        policies[int(tid)] = int(fields[41 - 3])
    return policies


def scenario(url):
    return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = 200, duration = "3s", graceful_stop = "5s" }},
         run = function() http.get("{url}/") end }}
""")


def watch_run(args):
    """Runs `stampede ARGS`, reading its threads' policies every 50 ms; returns the result
    and the most threads seen under SCHED_BATCH at once, and the main thread's policies."""
    p = subprocess.Popen([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    most_batch, main_policies = 0, set()
    deadline = time.time() + 60
    while p.poll() is None and time.time() < deadline:
        policies = thread_policies(p.pid)
        most_batch = max(most_batch, sum(1 for v in policies.values() if v == SCHED_BATCH))
        if p.pid in policies:
            main_policies.add(policies[p.pid])
        time.sleep(0.05)
    out, err = p.communicate(timeout=60)
    return Result(p.returncode, out, err), most_batch, main_policies


class CpuPolicy(unittest.TestCase):
    def test_batch_puts_the_workers_under_sched_batch_and_measures_as_ever(self):
        with Target(delay="fixed:1") as target:
            out = os.path.join(temp_dir(), "results.json")
            r, most_batch, main_policies = watch_run(
                ["run", scenario(target.url), "--quiet", "--threads", "2", "--cpu-policy", "batch", "--out", out])
            truth = target.truth()
        self.assertEqual(r.code, 0, r)
        with open(out) as f:
            [result] = json.load(f)["results"]
        self.assertEqual(result["cpu_policy"], "batch", "the results file says how the workers were scheduled")
        self.assertEqual(most_batch, 2, "both workers, and no other thread, under SCHED_BATCH")
        self.assertEqual(main_policies, {SCHED_OTHER}, "the main thread keeps the default policy")
        self.assertEqual(r.metric("http.request")["count"], truth["count"], r)
        self.assertGreaterEqual(truth["count"], 550, r)  # 200/s for 3 s
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def test_the_default_changes_no_thread(self):
        with Target(delay="fixed:1") as target:
            r, most_batch, _ = watch_run(["run", scenario(target.url), "--quiet", "--threads", "2"])
        self.assertEqual(r.code, 0, r)
        self.assertEqual(most_batch, 0)

    def test_an_unknown_policy_is_a_usage_error_naming_the_option(self):
        path = write_scenario("return { run = function() end }")
        r = run(["run", path, "--cpu-policy", "fifo"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--cpu-policy", r.err, r)
        self.assertIn("fifo", r.err, r)


if __name__ == "__main__":
    main()
