"""`stampede run --cpu-policy batch`: the worker threads, and only they, run under
SCHED_BATCH while the load goes (read from /proc, as `chrt -p` would), and the run
measures the same as ever: every request the target served counted once, no errors.
`--cpu-policy poll`: a busy worker polls its loop instead of sleeping (its thread's CPU time,
read from /proc, is most of the run's), the generator's CPU figure counts its work and not
its empty polls, and by default it runs one worker fewer than the cores. `--cpu-policy
adaptive` (the default from 2 cores): a worker polls only while it works most of its core."""
import json
import os
import re
import subprocess
import time
import unittest

from harness import BIN, Result, Target, main, run, temp_dir, write_scenario

SCHED_OTHER, SCHED_BATCH = 0, 3


def thread_stats(pid):
    """{tid: the fields of /proc/PID/task/TID/stat from field 3 (state) on} of every thread of `pid`."""
    stats = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return stats
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except FileNotFoundError:
            continue
        stats[int(tid)] = stat[stat.rindex(")") + 2:].split()
    return stats


def thread_policies(pid):
    """{tid: scheduling policy} of every thread of `pid` (field 41)."""
    return {tid: int(fields[41 - 3]) for tid, fields in thread_stats(pid).items()}


def thread_cpu_ticks(pid):
    """{tid: utime + stime in clock ticks} of every thread of `pid` (fields 14 and 15)."""
    return {tid: int(fields[14 - 3]) + int(fields[15 - 3]) for tid, fields in thread_stats(pid).items()}


def scenario(url, rate=200):
    return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ rate = {rate}, duration = "3s", graceful_stop = "5s" }},
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
        self.assertEqual(truth["count"], 600, r)  # 200/s for 3 s, every one started and finished
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def test_the_default_changes_no_thread(self):
        with Target(delay="fixed:1") as target:
            r, most_batch, _ = watch_run(["run", scenario(target.url), "--quiet", "--threads", "2"])
        self.assertEqual(r.code, 0, r)
        self.assertEqual(most_batch, 0)

    def test_poll_keeps_a_busy_worker_on_its_core_and_counts_only_its_work(self):
        # 2,000 arrivals/s against a 1 ms target: an arrival or a reply every ~250 µs, well
        # within IdlePoll's 1 ms budget, so the worker never sleeps (0.98 of a core here),
        # while its work is ~11-19% of one; a normal worker sleeps between them (~12%).
        with Target(delay="fixed:1") as target:
            out = os.path.join(temp_dir(), "results.json")
            p = subprocess.Popen([BIN, "run", scenario(target.url, rate=2000), "--quiet", "--cpu-policy", "poll",
                                  "--out", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            most_ticks, deadline = {}, time.time() + 60
            while p.poll() is None and time.time() < deadline:
                for tid, t in thread_cpu_ticks(p.pid).items():
                    most_ticks[tid] = max(most_ticks.get(tid, 0), t)
                time.sleep(0.05)
            out_text, err = p.communicate(timeout=60)
            truth = target.truth()
        r = Result(p.returncode, out_text, err)
        self.assertEqual(r.code, 0, r)
        with open(out) as f:
            [result] = json.load(f)["results"]
        self.assertEqual(result["cpu_policy"], "poll", "the results file says how the workers ran")
        self.assertEqual(result["threads"], max(1, os.cpu_count() - 1), "one worker fewer than the cores")
        busiest = max(most_ticks.values()) / os.sysconf("SC_CLK_TCK") / 3.0  # share of a core over the 3 s
        self.assertGreater(busiest, 0.5, f"a polling worker holds its core: {busiest:.2f} of one")
        work = result["generator"]["cpu_percent_mean"] / 100
        self.assertLess(work, busiest / 2, f"generator.cpu counts the work ({work:.2f}), not the polls ({busiest:.2f})")
        self.assertIn("(busiest worker thread, empty polls aside;", r.out, "the summary says what the figure is")
        self.assertEqual(r.metric("http.request")["count"], truth["count"], r)
        self.assertEqual(truth["count"], 6000, r)  # 2,000/s for 3 s, every one started and finished
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def test_with_no_flags_the_setup_fits_the_machine_and_the_summary_says_why(self):
        # docs/design/047: on 1 or 2 cores one worker, the other core left to the target;
        # above 2, half the cores when the target is on this machine. Sleeping on 1 core,
        # adaptive from 2 (054): at 200/s it never works enough of its core to poll.
        cores = len(os.sched_getaffinity(0))
        threads = 1 if cores <= 2 else cores // 2
        policy = "normal" if cores == 1 else "adaptive"
        with Target(delay="fixed:1") as target:
            out = os.path.join(temp_dir(), "results.json")
            r = run(["run", scenario(target.url), "--out", out])
        self.assertEqual(r.code, 0, r)
        with open(out) as f:
            [result] = json.load(f)["results"]
        self.assertEqual((result["threads"], result["cpu_policy"]), (threads, policy), r)
        host = target.url.split("//")[1]
        self.assertIn(f"the target {host} on this machine", result["generator"]["setup"])
        line = next(l for l in r.out.splitlines() if l.startswith("generator: "))
        self.assertIn(f"generator: {threads} worker", line)
        self.assertIn(f"the target {host} on this machine", line)
        if policy == "adaptive":
            self.assertIn(", adaptive (never busy enough to poll; ", line)
        # Asked for, it is what runs, and the line says so.
        with Target(delay="fixed:1") as target:
            r = run(["run", scenario(target.url), "--threads", "2", "--cpu-policy", "normal"])
        self.assertEqual(r.code, 0, r)
        self.assertIn("generator: 2 workers, sleeping (as asked)", r.out)

    def test_adaptive_polls_only_while_the_worker_is_busy(self):
        # docs/design/054. One VU spends ~2 ms of CPU (Lua spinning on os.clock) and then
        # waits for one request: its worker works most of its core, so it polls from ~0.3 s
        # in, and its empty polls (the request's wait) keep it on its core without counting
        # as work. The same scenario paced at 20 iterations a second works a twentieth of
        # its core and never polls.
        def spinning(url, rate=None):
            load = f"rate = {rate}" if rate else "vus = 1"
            return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ {load}, duration = "3s", graceful_stop = "5s" }},
         run = function()
           local t = os.clock()
           while os.clock() - t < 0.002 do end
           http.get("{url}/")
         end }}
""")
        with Target(delay="fixed:0") as target:
            out = os.path.join(temp_dir(), "results.json")
            busy = run(["run", spinning(target.url), "--cpu-policy", "adaptive", "--threads", "1", "--out", out])
            light = run(["run", spinning(target.url, rate=20), "--cpu-policy", "adaptive", "--threads", "1"])
            served = target.truth()["count"]
        self.assertEqual(busy.code, 0, busy)
        self.assertEqual(light.code, 0, light)
        with open(out) as f:
            [result] = json.load(f)["results"]
        self.assertEqual(result["cpu_policy"], "adaptive")
        polled = re.fullmatch(r"1 worker, adaptive \(polled ([0-9.]+) s when busy; as asked\)", result["generator"]["setup"])
        self.assertIsNotNone(polled, result["generator"]["setup"])
        self.assertGreaterEqual(float(polled.group(1)), 1.0, "polling from ~0.3 s of a 3 s run")
        self.assertIn("empty polls aside", busy.out, "its CPU figure leaves the empty polls out")
        self.assertIn("generator: 1 worker, adaptive (never busy enough to poll; as asked)", light.out)
        requests = busy.metric("http.request")["count"] + light.metric("http.request")["count"]
        self.assertEqual(requests, served, "every request the target served, counted once")
        self.assertEqual(busy.metric("iteration.errors")["count"] + light.metric("iteration.errors")["count"], 0)

    def test_an_unknown_policy_is_a_usage_error_naming_the_option(self):
        path = write_scenario("return { run = function() end }")
        r = run(["run", path, "--cpu-policy", "fifo"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--cpu-policy", r.err, r)
        self.assertIn("fifo", r.err, r)


if __name__ == "__main__":
    main()
