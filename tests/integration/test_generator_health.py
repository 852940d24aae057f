"""The generator watching itself: every run reports its own CPU, event-loop delay and open
files (summary line, results file, per-second timeline), thresholds may use them, and
when the generator is the bottleneck the verdict names it rather than the server. The
starved case pins Stampede to one core (taskset) with one worker thread and a scenario
that burns CPU in Lua."""
import json
import os
import shutil
import subprocess
import unittest

from harness import BIN, Result, Target, main, run, run_judged, write_scenario, temp_dir

BURN = """
local stampede = require "stampede"
return {
  name = "Burner",
  options = { %s },
  run = function()
    -- 100 ms of CPU per iteration without yielding: the worker's loop can do nothing else.
    local t0, x = stampede.now(), 0
    while stampede.now() - t0 < 100 do x = x + 1 end
  end,
}
"""


class GeneratorHealth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = temp_dir(prefix="stampede-generator-")
        if shutil.which("taskset") is None:
            raise RuntimeError("taskset (util-linux) is needed to pin the generator to one core")

    def path(self, name):
        return os.path.join(self.dir, f"{self._testMethodName}-{name}")

    def test_a_starved_generator_is_named_in_the_verdict(self):
        scenario = write_scenario(BURN % 'vus = 2, duration = "3s", thresholds = { {"generator.loop_delay", p99 = 50} }',
                                  directory=self.dir, name="burn.lua")
        out = self.path("r.json")
        r = self.pinned(["run", scenario, "--threads", "1", "--quiet", "--out", out])
        # The loop delay, not generator.cpu: the 100 ms burns make it late whatever else runs on
        # that core, while the CPU share falls when ctest puts another busy process beside it.
        self.assertEqual(r.code, 1, r)  # generator.loop_delay p99 = 50 fails
        self.assertRegex(r.out, r"inconclusive: Stampede( used \d+% of its CPU|'s event loop ran [0-9.]+ms late)", r)
        self.assertIn("latency at this load measures the load generator, not the server", r.out)
        self.assertRegex(r.out, r"fail generator\.loop_delay p99 <= 50\.00ms \(\d+", r.out)
        with open(out) as f:
            result = json.load(f)["results"][0]
        g = result["generator"]
        self.assertTrue(g["bottleneck"], g)
        self.assertTrue(g["verdict"].startswith("inconclusive: Stampede"), g)
        # Its CPU share depends on what else runs on that core; its loop is late either way.
        self.assertGreater(g["cpu_percent_peak"], 0, g)
        self.assertGreater(g["loop_delay_p99_ms"], 50, g)
        # Each second of the timeline carries the generator's figures.
        cpu = [s["metrics"]["generator.cpu"]["last"] for s in result["timeline"] if "generator.cpu" in s["metrics"]]
        self.assertGreaterEqual(len(cpu), 2, result["timeline"])

    def test_find_limit_stops_with_the_generators_verdict(self):
        scenario = write_scenario(BURN % 'thresholds = { {"iteration", p95 = 10000} }', directory=self.dir,
                                  name="burn-limit.lua")
        out = self.path("r.json")
        r = self.pinned(["run", scenario, "--threads", "1", "--quiet", "--find-limit", "--start", "2", "--step", "2",
                         "--up-to", "6", "--ramp", "1s", "--hold", "2s", "--out", out])
        self.assertEqual(r.code, 1, r)  # no level could be judged
        self.assertIn("No level could be judged: the generator was the bottleneck", r.out, r)
        self.assertIn("inconclusive: Stampede", r.out)
        with open(out) as f:
            result = json.load(f)["results"][0]
        fl = result["find_limit"]
        self.assertTrue(fl["inconclusive"], fl)
        self.assertEqual([s["status"] for s in fl["steps"]], ["inconclusive", "not_reached", "not_reached"])
        self.assertTrue(fl["steps"][0]["generator"]["bottleneck"])
        # The run's own generator verdict agrees (the whole staircase's average said nothing).
        self.assertTrue(result["generator"]["bottleneck"], result["generator"])
        self.assertEqual(result["generator"]["verdict"], fl["steps"][0]["generator"]["verdict"])

    def test_a_healthy_run_reports_its_generator_and_passes_its_thresholds(self):
        with Target(delay="fixed:5") as target:
            scenario = write_scenario(f"""
local http = require "stampede.http"
return {{
  options = {{ vus = 2, duration = "2s",
               thresholds = {{ {{"generator.cpu", max = 90}}, {{"generator.loop_delay", p99 = 50}},
                               {{"generator.fds", max = 1000}} }} }},
  run = function() http.get("{target.url}/") end,
}}""", directory=self.dir, name="healthy.lua")
            out = self.path("r.json")
            r = run_judged(["run", scenario, "--quiet", "--out", out])
        self.assertEqual(r.code, 0, r)
        # After what the load ran on (design 047): "1 worker, polling (...); cpu 4% (busiest ...".
        self.assertRegex(r.out, r"generator: \d+ workers?, [a-z ]+ \(.*\); cpu \d+% \(busiest worker thread"
                                r"(, empty polls aside)?; peak second \d+%\), loop delay p99 ", r.out)
        self.assertNotIn("inconclusive", r.out)
        self.assertIn("pass generator.cpu max <= 90", r.out)
        with open(out) as f:
            g = json.load(f)["results"][0]["generator"]
        self.assertFalse(g["bottleneck"], g)
        self.assertEqual(g["verdict"], "")
        self.assertGreater(g["open_files_peak"], 3)  # at least stdio and a socket
        self.assertGreater(g["open_files_limit"], g["open_files_peak"])

    def pinned(self, args):
        """Runs stampede pinned to CPU 0: its worker thread shares one core with everything else it runs."""
        p = subprocess.run(["taskset", "-c", "0", BIN, *args], capture_output=True, text=True, timeout=120)
        return Result(p.returncode, p.stdout, p.stderr)


if __name__ == "__main__":
    main()
