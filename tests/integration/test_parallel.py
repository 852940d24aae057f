"""--parallel: several scenario files at once, each with its own load model, thresholds and
results. Two scenarios with different loads (closed model, open model) against the built-in
target; only one fails its threshold: exit 1, one summary block each, two results in the
file. Without --parallel the same files run one after the other."""
import json
from datetime import datetime
import os
import re
import subprocess
import time
import unittest

from harness import NEVER_MS, Target, main, run, write_scenario, temp_dir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA = os.path.join(ROOT, "schema", "results.schema.json")
JS = os.path.join(ROOT, "tests", "js")


class Parallel(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:10")
        cls.dir = temp_dir(prefix="stampede-parallel-")
        # Reading: 2 VUs for 2 s (the requests running at its end finish), a p95 no host's
        # speed can fail (NEVER_MS): passes.
        cls.reading = write_scenario(f"""
local http = require "stampede.http"
return {{
  name = "Reading",
  options = {{ vus = 2, duration = "2s", graceful_stop = "1s", thresholds = {{ {{"http.request", p95 = {NEVER_MS}}} }} }},
  run = function() http.get("{cls.target.url}/api/posts") end,
}}""", directory=cls.dir, name="reading.lua")
        # Posting: 40 arrivals/s for 3 s, asking for p95 under 5 ms of a 10 ms server: fails
        # (every request takes at least the 10 ms the server holds it).
        cls.posting = write_scenario(f"""
local http = require "stampede.http"
return {{
  name = "Posting",
  options = {{ rate = 40, duration = "3s", graceful_stop = "1s", thresholds = {{ {{"http.request", p95 = 5}} }} }},
  run = function() http.post("{cls.target.url}/api/posts", {{ json = {{ title = "hi" }} }}) end,
}}""", directory=cls.dir, name="posting.lua")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_scenarios_run_at_once_with_their_own_loads_and_verdicts(self):
        out = os.path.join(self.dir, "parallel.json")
        self.target.reset()
        r = run(["run", self.reading, self.posting, "--parallel", "--out", out])
        self.assertEqual(r.code, 1, r)
        # At once: each started before the other ended (the results' own start times and
        # durations, not the test's clock).
        with open(out) as f:
            spans = {}
            for result in json.load(f)["results"]:
                start = datetime.fromisoformat(result["started_at"].replace("Z", "+00:00")).timestamp()
                spans[result["scenario"]] = (start, start + result["duration_ms"] / 1000)
        (a_start, a_end), (b_start, b_end) = spans["Reading"], spans["Posting"]
        self.assertLess(max(a_start, b_start), min(a_end, b_end), f"ran one after the other? {spans}\n{r}")
        # Each ran for its own duration. "ran for" is the wall time to the last VU stopped and
        # the workers joined: 2.0 and 3.0 here, 2.1 once on a busy CI machine (ASan build).
        # Reading ended before Posting, on the same clock: not held until the longest ended.
        ran_for = {name: float(s) for name, s in re.findall(r"^(\w+) ran for ([0-9.]+)s$", r.out, re.M)}
        self.assertGreaterEqual(ran_for.get("Reading", 0), 2.0, r)
        self.assertGreaterEqual(ran_for.get("Posting", 0), 3.0, r)
        self.assertLess(a_end, b_end, f"Reading ran as long as Posting? {spans}\n{r}")
        self.assertIn("pass http.request p95 <= 120.00s", r.out)
        self.assertIn("fail http.request p95 <= 5.00ms", r.out)
        # Blocks are whole: each one's thresholds follow its own header.
        reading, posting = r.out.index("Reading ran for"), r.out.index("Posting ran for")
        first, second = sorted([reading, posting])
        self.assertEqual(r.out.count("thresholds\n", first, second), 1, r.out)

        p = subprocess.run(["node", os.path.join(JS, "validate_results.js"), SCHEMA, out], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertFalse(doc["passed"])
        results = {res["scenario"]: res for res in doc["results"]}
        self.assertEqual([res["scenario"] for res in doc["results"]], ["Reading", "Posting"])  # in the order given
        self.assertTrue(results["Reading"]["passed"])
        self.assertFalse(results["Posting"]["passed"])
        self.assertEqual(results["Reading"]["options"]["model"], "vus")
        self.assertEqual(results["Posting"]["options"]["model"], "rate")
        self.assertEqual(results["Posting"]["metrics"]["iterations"]["count"], 120)  # 40/s for 3 s, exactly
        # Reading's closed model did what the host let it: at least one request a VU, at most
        # one per 10 ms hold in its 2 s, whatever the host's speed (more would mean it ran on
        # past its own end). Together, exactly what the target served.
        reading = results["Reading"]["metrics"]["http.request"]["count"]
        self.assertGreaterEqual(reading, 2)
        self.assertLessEqual(reading, 2 * (2000 // 10 + 1))
        self.assertEqual(reading + results["Posting"]["metrics"]["http.request"]["count"], self.target.truth()["count"])

    def test_without_parallel_files_run_one_after_the_other(self):
        out = os.path.join(self.dir, "sequential.json")
        started = time.monotonic()
        r = run(["run", self.reading, self.posting, "--quiet", "--out", out])
        self.assertEqual(r.code, 1, r)
        self.assertGreater(time.monotonic() - started, 5.0, r)
        self.assertLess(r.out.index("Reading ran for"), r.out.index("Posting ran for"))
        with open(out) as f:
            results = json.load(f)["results"]
        self.assertGreaterEqual(self.started_at(results[1]) - self.started_at(results[0]), 2.0)

    def test_parallel_with_the_dashboard_is_refused(self):
        r = run(["run", self.reading, self.posting, "--parallel", "--dashboard"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--parallel", r.err)

    @staticmethod
    def started_at(result):
        from datetime import datetime
        return datetime.fromisoformat(result["started_at"].replace("Z", "+00:00")).timestamp()


if __name__ == "__main__":
    main()
