"""A VU whose iteration fails because the generator ran out of file descriptors backs off
(10 ms doubling to 1 s) instead of failing again at once: the run ends normally, says what
ran out and what to do, and the error count does not explode (the backoff's timers bound it,
however fast or slow the host). What the backoff saves in CPU time, and how late the open
model's arrivals start meanwhile, are bench/exhaustion-backoff's (a host's speed is no test
verdict); that no arrival waits for a resting VU is the simulated clock's
(OpenModel.AVuOutOfALocalResourceSitsOutItsBackoffWhileArrivalsGoOn).
docs/design/016-backoff-when-the-generator-runs-out.md"""
import resource
import subprocess
import unittest

from harness import BIN, Result, Target, write_scenario, main

FD_LIMIT = 64  # fewer than the VUs: most of them cannot open a socket
VUS = 200
DURATION_S = 3


def low_fd_limit():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, hard))


def run_limited(path):
    """Runs the scenario under the low fd limit; returns the process and the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([BIN, "run", path, "--quiet", "--threads", "1"], capture_output=True, text=True,
                       timeout=60, preexec_fn=low_fd_limit)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p, cpu


def row(stdout, metric):
    found = Result(0, stdout, "").metric(metric)
    if found is None:
        raise AssertionError(f"no {metric} row in:\n{stdout}")
    return found


def count_of(stdout, metric):
    return row(stdout, metric)["count"]


# A VU that got its connection keeps it and sleeps; one that did not fails at once. Without a
# backoff those retry in a tight loop: ~500,000 failed iterations and a full core for 3 s.
SCENARIO = """
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {options},
         run = function()
           local res = http.get("{url}/")
           if res.error then error(res.error) end
           stampede.sleep("1s")
         end }}
"""


class LocalExhaustionBackoff(unittest.TestCase):
    def test_closed_model_vus_back_off_when_file_descriptors_run_out(self):
        with Target() as target:
            path = write_scenario(SCENARIO.format(
                options=f'{{ vus = {VUS}, duration = "{DURATION_S}s" }}', url=target.url))
            p, cpu = run_limited(path)
        report = f"cpu {cpu:.2f}s\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr[-3000:]}"
        self.assertEqual(p.returncode, 0, report)
        # The errors say what ran out, and the summary still says what to do about it.
        self.assertIn("too many open files", p.stdout, report)
        self.assertRegex(p.stdout, r"\n\s+fd\s+\d+", report)
        self.assertIn("ulimit -n", p.stdout + p.stderr, report)
        self.assertIn("fewer VUs per process", p.stdout + p.stderr, report)
        errors = count_of(p.stdout, "iteration.errors")
        self.assertGreater(errors, 0, report)
        # A VU that retried every 10 ms (the backoff's first step) for the whole run could fail
        # VUS * duration / 10 ms times; backing off, each fails about ten times in 3 s.
        tight_bound = VUS * DURATION_S * 1000 // 10
        self.assertLess(errors, tight_bound, report)
        self.assertLess(errors, VUS * 20, report)

    def test_websocket_connects_back_off_too(self):
        with Target() as target:
            path = write_scenario(f"""
local websocket = require "stampede.websocket"
local stampede = require "stampede"
return {{ options = {{ vus = {VUS}, duration = "{DURATION_S}s" }},
         run = function()
           local ws = websocket.connect("{target.url.replace('http://', 'ws://')}/ws")
           stampede.sleep("1s")
         end }}
""")
            p, cpu = run_limited(path)
        report = f"cpu {cpu:.2f}s\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr[-3000:]}"
        self.assertEqual(p.returncode, 0, report)
        self.assertIn("too many open files", p.stdout, report)
        errors = count_of(p.stdout, "ws.connect.errors")
        self.assertGreater(errors, 0, report)
        self.assertLess(errors, VUS * 20, report)  # without the backoff: ~25,000

    def test_open_model_keeps_the_schedule_and_rests_the_vu_instead(self):
        rate = 1000
        with Target() as target:
            path = write_scenario(SCENARIO.format(
                options=f'{{ rate = {rate}, duration = "{DURATION_S}s", max_vus = {VUS} }}', url=target.url))
            p, cpu = run_limited(path)
        report = f"cpu {cpu:.2f}s\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr[-3000:]}"
        self.assertEqual(p.returncode, 0, report)
        self.assertIn("too many open files", p.stdout, report)
        # Arrivals are never delayed by the backoff: they start on another VU, or are counted
        # as dropped when every VU is busy or resting (none is counted twice: those running at
        # the end are cut off, in neither).
        dropped = count_of(p.stdout, "iterations.dropped")
        self.assertGreater(dropped, 0, report)
        self.assertLessEqual(count_of(p.stdout, "iterations") + dropped, rate * DURATION_S, report)
        self.assertLess(count_of(p.stdout, "iteration.errors"), rate * DURATION_S, report)


if __name__ == "__main__":
    main()
