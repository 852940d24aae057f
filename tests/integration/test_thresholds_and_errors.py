"""Thresholds decide the exit status; iteration errors are grouped by message with file:line."""
import glob
import json
import os
import re
import unittest

from harness import NEVER_MS, Target, run, write_scenario, main, temp_dir

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def builtin_kinds():
    """{name: kind} from src/metrics/builtin_metrics.cpp, its names:: constants resolved."""
    constants = {}
    for header in glob.glob(os.path.join(ROOT, "src", "metrics", "*.hpp")):
        constants.update(re.findall(r"string_view\s+(k\w+)\s*=\s*\"([^\"]+)\"", read(header)))
    table = read(os.path.join(ROOT, "src", "metrics", "builtin_metrics.cpp"))
    kinds = {}
    for name, kind in re.findall(r"\{(\"[^\"]+\"|names::k\w+),\s*Kind::(\w+)\}", table):
        kinds[name.strip('"') if name.startswith('"') else constants[name.split("::")[1]]] = kind.lower()
    return kinds


class Thresholds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:5")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def scenario(self, thresholds, body=None):
        # 4 iterations shared by 2 VUs (each runs one at least, and one VU a second one): the
        # run ends when the last has, however busy the cores.
        body = body or f'require("stampede.http").get("{self.target.url}/api/posts")'
        return write_scenario(f"""
return {{ options = {{ vus = 2, iterations = 4, thresholds = {{ {thresholds} }} }},
         run = function(vu) {body} end }}
""")

    def test_failing_threshold_exits_1_and_says_why(self):
        r = run(["run", self.scenario('{"http.request", p50 = 1}')])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"fail http\.request p50 <= 1\.00ms \(\d+\.\d+ms\)")

    def test_passing_threshold_exits_0(self):
        # Limits no host can fail: a p99 of NEVER_MS (harness.py); 4 requests in all.
        r = run(["run", self.scenario(f'{{"http.request", p99 = {NEVER_MS}, count = 1000000}}, {{"iterations", rate = 100000}}')])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"pass http\.request p99")

    def test_count_rate_and_max_judge_checks_counters_and_gauges(self):
        # count and rate apply to every kind; max to a gauge's highest value. Each verdict
        # must come out as the figures say, failing ones included (exit 1).
        r = run(["run", self.scenario(
            '{"iterations", rate = 1}, {"ok", count = 1}, {"ok", rate = 1}, {"vus", max = 1}, '
            '{"vus", max = 2}, {"ok", count = 1000000}, {"iterations", rate = 1000000}',
            'local s = require("stampede"); s.check("ok", true)')])
        self.assertEqual(r.code, 1, r)
        for line in [r"fail iterations rate <= 1\.00/s \(\d+\.\d+/s\)", r"fail ok count <= 1 \(\d+\)",
                     r"fail ok rate <= 1\.00/s \(\d+\.\d+/s\)", r"fail vus max <= 1 \(2\)",
                     r"pass vus max <= 2 \(2\)", r"pass ok count <= 1000000 \(4\)",
                     r"pass iterations rate <= 1000000\.00/s \(\d+\.\d+/s\)"]:
            self.assertRegex(r.out, "\n" + line + "\n", r)

    def test_threshold_on_a_metric_with_no_samples_fails(self):
        r = run(["run", self.scenario('{"never.recorded", p95 = 100}')])
        self.assertEqual(r.code, 1, r)
        self.assertIn("no samples", r.out)

    def test_unknown_threshold_key_is_a_usage_error_before_the_run(self):
        r = run(["run", self.scenario('{"http.request", p42 = 100}')])
        self.assertEqual(r.code, 2, r)
        self.assertIn('unknown threshold key "p42"', r.err)
        self.assertNotIn("ran for", r.out)

    def test_an_aggregation_a_builtin_metric_lacks_is_a_usage_error_before_the_run(self):
        # Built-in metrics have fixed kinds: a counter has no p95, a gauge no failed_rate.
        for threshold, why in (('{"iteration.errors", p95 = 1}', 'p95 applies to a timing, but "iteration.errors" is a counter'),
                               ('{"vus", failed_rate = 0.1}', 'failed_rate applies to a check, but "vus" is a gauge'),
                               ('{"http.request", failed = 0}', 'failed applies to a check, but "http.request" is a timing')):
            r = run(["run", self.scenario(threshold)])
            self.assertEqual(r.code, 2, r)
            self.assertIn(why, r.err)
            self.assertNotIn("ran for", r.out)
        # A scenario's own metric gets its kind when recorded, so it is judged after the run.
        r = run(["run", self.scenario('{"mine", p95 = 1}', body='require("stampede").increment("mine", 1)')])
        self.assertEqual(r.code, 1, r)
        self.assertIn('p95 applies to a timing, but "mine" is a counter', r.out)

    def test_a_threshold_on_a_named_request_row_is_checked_before_the_run(self):
        # http.request.<name> is always a timing: failed_rate on it used to fail only after the load.
        r = run(["run", self.scenario('{"http.request.login", failed_rate = 0.01}',
                                      body=f'require("stampede.http").get("{self.target.url}/api/posts", {{name = "login"}})')])
        self.assertEqual(r.code, 2, r)
        self.assertIn('failed_rate applies to a check, but "http.request.login" is a timing', r.err)
        self.assertNotIn("ran for", r.out)

    def test_a_metric_never_recorded_near_a_builtin_name_says_which_was_meant(self):
        r = run(["run", self.scenario('{"http.requests", p95 = 250}')])
        self.assertEqual(r.code, 1, r)
        self.assertIn('no samples: "http.requests" was never recorded (did you mean "http.request"?)', r.out)

    def test_a_counter_never_incremented_says_how_to_record_zero(self):
        # The rare-event counter of a healthy run does not exist: the failure says how to make zero count.
        body = ('local stampede = require("stampede") stampede.increment("recorded.zero", 0) '
                'if vu.iteration < 0 then stampede.increment("bad") end')
        r = run(["run", self.scenario('{"bad", count = 0}, {"recorded.zero", count = 0}', body=body)])
        self.assertEqual(r.code, 1, r)
        self.assertIn('fail bad count <= 0 (no samples: "bad" was never recorded (a counter of events that may not happen: '
                      'call stampede.increment("bad", 0) in run so that zero is recorded))', r.out)
        self.assertIn("pass recorded.zero count <= 0 (0)", r.out)

    def test_thresholds_print_in_a_fixed_order(self):
        # Written max, p50, p95: a Lua table does not keep that order, so they print in the
        # summary's column order on every run.
        r = run(["run", self.scenario('{"http.request", max = 5000, p50 = 4000, p95 = 4500}')])
        self.assertEqual(r.code, 0, r)
        lines = [line.split()[2] for line in r.out.splitlines() if line.startswith("pass http.request")]
        self.assertEqual(lines, ["p50", "p95", "max"], r.out)

    def test_iteration_errors_are_grouped_with_file_and_line(self):
        path = self.scenario('{"iteration.errors", count = 0}',
                             body='if vu.id % 2 == 1 then error("boom") end')
        r = run(["run", path])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"scenario\.lua:3: boom")
        self.assertRegex(r.out, r"fail iteration\.errors count <= 0 \(\d+\)")

    def test_error_objects_use_their_tostring(self):
        path = self.scenario('{"iteration.errors", count = 1000000}', body=(
            'error(setmetatable({kind = "custom"}, {__tostring = function() return "custom failure" end})) '))
        r = run(["run", path])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"scenario\.lua:3: custom failure")

    def test_tables_raised_without_tostring_group_by_their_fields(self):
        # Each used to be its own message, "table: 0x7feb...", one summary row per iteration.
        path = self.scenario('{"iteration.errors", count = 1000000}', body=(
            'error({ code = 42, why = "busy", [1] = true, nested = {} }) '))
        r = run(["run", path])
        self.assertEqual(r.code, 0, r)
        errors = r.metric("iteration.errors")["count"]
        self.assertEqual(errors, 4, r)
        self.assertRegex(r.out, r"scenario\.lua:3: error \{\[1\] = true, code = 42, nested = \{\.\.\.\}, why = \"busy\"\}\s+"
                         + str(errors), r)
        self.assertNotIn("table: 0x", r.out)

    def test_checks_failed_rate(self):
        path = self.scenario('{"even", failed_rate = 0.1}',
                             body='require("stampede").check("even", vu.iteration % 2 == 0)')
        r = run(["run", path])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"fail even failed_rate")


class BuiltinKinds(unittest.TestCase):
    def test_the_table_of_builtin_kinds_matches_what_a_run_records(self):
        # Thresholds on built-in metrics are checked against that table before the run; a
        # kind in it that the code does not record would reject a valid threshold.
        kinds = builtin_kinds()
        with Target() as target:
            text = read(os.path.join(ROOT, "templates", "demo.lua")).replace("{{url}}", target.url)
            for slot in ("{{ramp}}", "{{hold}}", "{{down}}"):
                text = text.replace(slot, "1s")
            path = write_scenario(text, "demo.lua")
            out = os.path.join(temp_dir(), "demo.json")
            r = run(["run", path, "--rate", "20", "--duration", "2s", "--max-vus", "40", "--quiet", "--out", out])
        self.assertIn(r.code, (0, 1), r)
        recorded = json.loads(read(out))["results"][0]["metrics"]
        checked = {name: recorded[name]["kind"] for name in kinds if name in recorded}
        self.assertEqual(checked, {name: kinds[name] for name in checked})
        # Rate mode, HTTP, WebSockets, channels and LiveView all ran: most of the table is here.
        self.assertGreater(len(checked), 30, sorted(set(kinds) - set(checked)))


if __name__ == "__main__":
    main()
