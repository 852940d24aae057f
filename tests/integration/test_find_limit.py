"""--find-limit against the built-in target made to slow down past a known load
(`stampede target --capacity 5:100`: past 5 requests in flight, each is held 100 ms more).
With a 10 ms delay, N VUs keep at most N requests in flight, so 5 VUs hold and 6 do not; by
rate, R/s keeps about R/100 in flight, so 100/s holds and 800/s does not (levels well apart
from the capacity: near it, a stall of the target makes a burst, one late response makes
the next ones late too, and the step fails for the wrong reason). The search must report exactly that, in
the summary, the results file (valid against the schema), the badge and the HTML report; with
--server-metrics on the target's own /metrics, the verdict names the server signal that moved
(the requests piling up in the target) and the step table carries the server's columns."""
import json
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

from browser_check import artifact, require_browser, run_check
from harness import Target, main, run, run_judged, write_scenario, temp_dir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA = os.path.join(ROOT, "schema", "results.schema.json")
JS = os.path.join(ROOT, "tests", "js")


def validate(path):
    p = subprocess.run(["node", os.path.join(JS, "validate_results.js"), SCHEMA, path],
                       capture_output=True, text=True, timeout=60)
    return p.returncode == 0, p.stdout + p.stderr


class FindLimit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:10", extra=["--capacity", "5:100"])
        cls.dir = temp_dir(prefix="stampede-find-limit-")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def scenario(self, options=""):
        return write_scenario(f"""
local http = require "stampede.http"
return {{
  name = "Capacity",
  options = {{ thresholds = {{ {{"http.request", p95 = 50}}, {{"iteration.errors", count = 0}} }}, {options} }},
  run = function() http.get("{self.target.url}/api/posts") end,
}}""", directory=self.dir, name=f"{self._testMethodName}.lua")

    def path(self, name):
        return os.path.join(self.dir, f"{self._testMethodName}-{name}")

    def test_vus_staircase_stops_at_the_first_failing_step_and_refine_pins_the_limit(self):
        out, badge, html = self.path("r.json"), self.path("badge.svg"), self.path("r.html")
        # Steps 3 and 7 (the staircase stops there: 11 and 15 are never tried), then refine: 5, 6.
        r = run_judged(["run", self.scenario(), "--find-limit", "--start", "3", "--step", "4", "--up-to", "15",
                 "--ramp", "1s", "--hold", "2s", "--refine", "--out", out, "--badge", badge, "--html", html])
        self.assertEqual(r.code, 0, r)
        self.assertIn("Held 5 VUs (known within 1); 6 VUs broke http.request p95 <= 50.00ms", r.out, r)
        lines = r.out[r.out.index("\nlimit\n"):].splitlines()
        rows = [line.split() for line in lines if line[:1].isdigit()]
        self.assertEqual([(row[0], row[-1]) for row in rows[:2]], [("3", "pass"), ("7", "fail")], r.out)
        self.assertEqual([(row[0], row[1], row[-1]) for row in rows[2:]],
                         [("5", "(refine)", "pass"), ("6", "(refine)", "fail")], r.out)
        self.assertIn("iteration.errors count", r.out)  # a column per threshold

        ok, why = validate(out)
        self.assertTrue(ok, why)
        with open(out) as f:
            result = json.load(f)["results"][0]
        fl = result["find_limit"]
        self.assertEqual((fl["by"], fl["limit"], fl["failed_at"]), ("vus", 5, 6))
        self.assertEqual([(s["level"], s["status"], s["refine"]) for s in fl["steps"]],
                         [(3, "pass", False), (7, "fail", False), (11, "not_reached", False), (15, "not_reached", False),
                          (5, "pass", True), (6, "fail", True)])
        judged = fl["steps"][1]["thresholds"][0]
        self.assertGreater(judged["value"], 100, judged)  # 7 VUs: past capacity, held 100 ms more
        self.assertTrue(fl["steps"][0]["thresholds"][0]["pass"], fl["steps"][0])  # 3 VUs: the step's own verdict
        # The staircase ended with its first failing step: the steps above it are "not_reached" (above).
        self.assertIsNotNone(result["generator"])
        self.assertTrue(result["passed"])
        with open(badge) as f:
            self.assertIn("limit 5 VUs", f.read())

        require_browser()
        run_check(self, "find_limit_report_check.js", "--html", html, "--screenshot", artifact("find-limit.png"),
                  "--verdict", "Held 5 VUs", "--steps", "4")

    def test_rate_steps_from_the_scenarios_options(self):
        out = self.path("r.json")
        scenario = self.scenario('find_limit = { by = "rate", start = 100, step = 700, up_to = 1500, ramp = "1s", hold = "2s" }')
        r = run_judged(["run", scenario, "--find-limit", "--quiet", "--out", out])
        self.assertEqual(r.code, 0, r)
        self.assertIn("Held 100 iterations/s; 800 iterations/s broke http.request p95", r.out, r)
        self.assertIn("rate/s", r.out)
        ok, why = validate(out)
        self.assertTrue(ok, why)
        with open(out) as f:
            fl = json.load(f)["results"][0]["find_limit"]
        self.assertEqual((fl["by"], fl["limit"], fl["failed_at"]), ("rate", 100, 800))
        self.assertEqual([s["status"] for s in fl["steps"]], ["pass", "fail", "not_reached"])

    def test_the_verdict_names_the_server_signal_that_moved(self):
        # With the target's own /metrics scraped: at 100/s it holds ~1 request at a time; at
        # 800/s, past its capacity, each is held 110 ms and ~88 pile up. The verdict must name
        # that (the requests in flight), the step table (text, JSON, HTML) carry it per step.
        out, html = self.path("r.json"), self.path("r.html")
        scenario = self.scenario('find_limit = { by = "rate", start = 100, step = 700, up_to = 1500, ramp = "1s", hold = "2s" }')
        r = run_judged(["run", scenario, "--find-limit", "--out", out, "--html", html,
                        "--server-metrics", self.target.url + "/metrics"])
        self.assertEqual(r.code, 0, r)
        m = re.search(r"Held 100 iterations/s; 800 iterations/s broke http\.request p95 <= 50\.00ms \([^)]+\) while "
                      r"the requests in flight went from (\d+) to (\d+): the server answered slower than requests "
                      r"arrived, and they piled up", r.out)
        self.assertIsNotNone(m, r)
        before, after = int(m.group(1)), int(m.group(2))
        self.assertLessEqual(before, 5, r)
        self.assertGreaterEqual(after, 30, r)
        header = next(line for line in r.out.splitlines() if line.startswith("rate/s "))
        self.assertIn("server memory max", header, r)
        self.assertIn("server requests in flight max", header, r)
        ok, why = validate(out)
        self.assertTrue(ok, why)
        with open(out) as f:
            fl = json.load(f)["results"][0]["find_limit"]
        self.assertEqual([s["status"] for s in fl["steps"]], ["pass", "fail", "not_reached"])
        server = fl["server"]
        self.assertEqual([c["key"] for c in server["columns"]], ["memory", "in_flight"], server)
        in_flight = server["columns"][1]
        self.assertEqual(in_flight["metric"], "server.stampede_target_http_requests_in_flight")
        self.assertEqual(in_flight["values"], [before, after, None])
        self.assertEqual(server["first"], "in_flight")
        self.assertIn(server["verdict"], fl["verdict"])

        require_browser()
        run_check(self, "find_limit_report_check.js", "--html", html, "--screenshot", artifact("find-limit-server.png"),
                  "--verdict", "while the requests in flight went from", "--steps", "2",
                  "--server-columns", "memory,in_flight", "--server-first", "in_flight")

    def test_a_level_that_never_held_exits_1(self):
        r = run_judged(["run", self.scenario(), "--find-limit", "--start", "8", "--step", "4", "--up-to", "12",
                 "--ramp", "1s", "--hold", "1s", "--quiet"])
        self.assertEqual(r.code, 1, r)
        self.assertIn("No level held: 8 VUs already broke http.request p95", r.out, r)

    def test_a_failed_search_carries_the_thresholds_that_broke_to_junit_json_and_html(self):
        # No level held: the run fails, and CI must see which threshold broke and where.
        out, junit, html = self.path("r.json"), self.path("j.xml"), self.path("r.html")
        r = run_judged(["run", self.scenario(), "--find-limit", "--start", "8", "--step", "4", "--up-to", "12",
                 "--ramp", "1s", "--hold", "1s", "--quiet", "--out", out, "--junit", junit, "--html", html])
        self.assertEqual(r.code, 1, r)
        self.assertIn("No level held: 8 VUs already broke http.request p95", r.out, r)

        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("failures")), ("3", "2"), ET.tostring(suite))
        cases = {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}
        search = cases[("Capacity.find_limit", "a level held")].find("failure")
        self.assertIsNotNone(search)
        self.assertIn("No level held: 8 VUs already broke http.request p95", search.get("message"))
        broke = cases[("Capacity.thresholds", "http.request p95 <= 50.00ms")].find("failure")
        self.assertIsNotNone(broke)
        self.assertRegex(broke.get("message"), r"^at 8 VUs: http\.request p95 = [\d.]+ms, above 50\.00ms$")
        self.assertIsNone(cases[("Capacity.thresholds", "iteration.errors count <= 0")].find("failure"))

        ok, why = validate(out)
        self.assertTrue(ok, why)
        with open(out) as f:
            result = json.load(f)["results"][0]
        self.assertFalse(result["passed"])
        step = result["find_limit"]["steps"][0]
        self.assertEqual((step["level"], step["status"]), (8, "fail"))
        self.assertEqual(result["thresholds"], step["thresholds"])  # as judged over the step that broke
        self.assertEqual([(t["metric"], t["pass"]) for t in result["thresholds"]],
                         [("http.request", False), ("iteration.errors", True)])

        # The report (from the run, and from the saved file) shows them and draws the line.
        again = self.path("again.html")
        self.assertEqual(run(["report", out, "--html", again]).code, 0)
        require_browser()
        for page, shot in ((html, "find-limit-failed.png"), (again, "find-limit-failed-from-json.png")):
            run_check(self, "find_limit_thresholds_check.js", "--html", page, "--screenshot", artifact(shot),
                      "--statuses", "fail,pass", "--line", "latency:http.request=p95 ≤")

    def test_every_level_held_says_at_least_and_passes_in_junit(self):
        # The scenario's own iteration count is not a load the staircase can step: said, not
        # silently dropped (its steps still run for their hold).
        out, junit, badge = self.path("r.json"), self.path("j.xml"), self.path("badge.svg")
        r = run_judged(["run", self.scenario("iterations = 3"), "--find-limit", "--start", "1", "--step", "1",
                        "--up-to", "2", "--ramp", "1s", "--hold", "1s", "--quiet", "--out", out, "--junit", junit,
                        "--badge", badge])
        self.assertEqual(r.code, 0, r)
        self.assertIn("options.iterations (3) is not used by --find-limit", r.err)
        self.assertIn("Held 2 VUs, the most it was asked to try", r.out, r)
        with open(badge) as f:
            svg = f.read()
        self.assertIn("limit ≥ 2 VUs", svg)  # 2 held; the limit is 2 or more
        self.assertNotIn("limit 2 VUs", svg)
        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("failures")), ("3", "0"), ET.tostring(suite))
        search = [c for c in suite.iter("testcase") if c.get("classname") == "Capacity.find_limit"][0]
        self.assertEqual(search.findtext("system-out"), "Held 2 VUs, the most it was asked to try")
        with open(out) as f:
            result = json.load(f)["results"][0]
        self.assertTrue(result["passed"])
        self.assertEqual(result["thresholds"], result["find_limit"]["steps"][1]["thresholds"])  # at the limit, 2
        self.assertTrue(all(t["pass"] for t in result["thresholds"]) and len(result["thresholds"]) == 2)

    def test_bad_settings_are_usage_errors(self):
        no_thresholds = write_scenario('return { run = function() end }', directory=self.dir, name="none.lua")
        r = run(["run", no_thresholds, "--find-limit", "--step", "1", "--up-to", "2"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("judges each step by the scenario's thresholds", r.err)
        r = run(["run", self.scenario(), "--find-limit", "--step", "1", "--up-to", "2", "--hold", "300ms", "--ramp", "1s"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--hold", r.err)
        r = run(["run", self.scenario(), "--find-limit", "--up-to", "2"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--step", r.err)
        r = run(["run", self.scenario(), "--find-limit=users", "--step", "1", "--up-to", "2"])
        self.assertEqual(r.code, 2, r)
        r = run(["run", self.scenario(), "--find-limit", "--step", "1", "--up-to", "2", "--vus", "10"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("leave out --vus", r.err)


if __name__ == "__main__":
    main()
