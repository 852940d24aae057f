"""Thresholds decide the exit status; iteration errors are grouped by message with file:line."""
import unittest

from harness import Target, run, write_scenario, main


class Thresholds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:5")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def scenario(self, thresholds, body=None):
        body = body or f'require("stampede.http").get("{self.target.url}/api/posts")'
        return write_scenario(f"""
return {{ options = {{ vus = 2, duration = "1s", thresholds = {{ {thresholds} }} }},
         run = function(vu) {body} end }}
""")

    def test_failing_threshold_exits_1_and_says_why(self):
        r = run(["run", self.scenario('{"http.request", p50 = 1}')])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"fail http\.request p50 <= 1\.00ms \(\d+\.\d+ms\)")

    def test_passing_threshold_exits_0(self):
        r = run(["run", self.scenario('{"http.request", p99 = 1000, count = 1000000}, {"iterations", rate = 100000}')])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"pass http\.request p99")

    def test_threshold_on_a_metric_with_no_samples_fails(self):
        r = run(["run", self.scenario('{"never.recorded", p95 = 100}')])
        self.assertEqual(r.code, 1, r)
        self.assertIn("no samples", r.out)

    def test_unknown_threshold_key_is_a_usage_error_before_the_run(self):
        r = run(["run", self.scenario('{"http.request", p42 = 100}')])
        self.assertEqual(r.code, 2, r)
        self.assertIn('unknown threshold key "p42"', r.err)
        self.assertNotIn("ran for", r.out)

    def test_iteration_errors_are_grouped_with_file_and_line(self):
        path = self.scenario('{"iteration.errors", count = 0}',
                             body='if vu.id % 2 == 1 then error("boom") end require("stampede").sleep(5)')
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

    def test_checks_failed_rate(self):
        path = self.scenario('{"even", failed_rate = 0.1}',
                             body='require("stampede").check("even", vu.iteration % 2 == 0); require("stampede").sleep(5)')
        r = run(["run", path])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"fail even failed_rate")


if __name__ == "__main__":
    main()
