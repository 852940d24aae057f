"""The HTML report, `stampede run --html` and `stampede report results.json --html`, opened
from a file in a real headless Chromium (tests/js/report_check.js): no console error,
no request leaving the page, charts with data, the summary, thresholds, checks and
errors, and a scenario's text shown as text. Screenshots are kept (browser_check.py)."""
import json
import os
import re
import unittest

from browser_check import LITERAL, artifact, require_browser, run_check
from harness import Target, main, run, write_scenario, temp_dir


def scenario(url):
    # A ramp, a custom timing, a threshold that holds and one that fails, a check, and
    # text meant to run in a browser in the name, a metric name and an error message.
    return f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{
  name = "{LITERAL}",
  options = {{
    stages = {{ {{"3s", 8}}, {{"2s", 8}}, {{"1s", 0}} }},
    thresholds = {{
      {{"http.request", p95 = 250}},
      {{"status is 200", failed_rate = 0.01}},
      {{"iteration.errors", count = 0}},
    }},
  }},
  run = function(vu)
    local res = http.get("{url}/api/posts")
    stampede.check("status is 200", res.status == 200)
    stampede.record("{LITERAL}", 3 + vu.iteration % 5)
    if vu.iteration % 20 == 3 then error("{LITERAL} failed on purpose") end
    stampede.sleep(20)
  end,
}}
"""


def same_figures(a, b):
    """Equal, but for the last digit of a float: a file read back converts milliseconds to
    nanoseconds and back, which may round a mean's 17th significant digit."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_figures(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_figures(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1)
    return a == b


def embedded_results(html_path):
    with open(html_path, encoding="utf-8") as f:
        page = f.read()
    m = re.search(r'<script type="application/json" id="stampede-results">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


class HtmlReport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_browser()
        cls.dir = temp_dir(prefix="stampede-html-")
        cls.json_path = os.path.join(cls.dir, "results.json")
        cls.html_path = os.path.join(cls.dir, "report.html")
        with Target(delay="lognormal:3:0.5") as target:
            path = write_scenario(scenario(target.url), directory=cls.dir)
            cls.result = run(["run", path, "--quiet", "--threads", "2", "--out", cls.json_path, "--html", cls.html_path])

    def test_run_writes_a_report_that_a_browser_shows_in_full(self):
        self.assertEqual(self.result.code, 1, self.result)  # iteration.errors count = 0 fails
        self.assertTrue(os.path.getsize(self.html_path) > 50_000, "the chart library is inlined")
        run_check(self, "report_check.js", "--html", self.html_path, "--screenshot", artifact("report.png"),
                  "--literal", LITERAL)

    def test_report_is_drawn_from_the_results_file(self):
        with open(self.json_path, encoding="utf-8") as f:
            saved = json.load(f)
        self.assertEqual(embedded_results(self.html_path), saved)
        # Nowhere in the page does the scenario's text appear as markup.
        with open(self.html_path, encoding="utf-8") as f:
            self.assertNotIn(LITERAL, f.read())

    def test_report_command_renders_a_saved_results_file(self):
        again = os.path.join(self.dir, "again.html")
        r = run(["report", self.json_path, "--html", again])
        self.assertEqual(r.code, 0, r)
        self.assertTrue(same_figures(embedded_results(again), embedded_results(self.html_path)))
        run_check(self, "report_check.js", "--html", again, "--screenshot", artifact("report-from-json.png"),
                  "--literal", LITERAL)

    def test_a_distribution_of_bytes_reads_as_sizes(self):
        # No scenario API records a distribution, so one is added to a saved file, the way
        # a LiveView run's live.diff.bytes would be written.
        with open(self.json_path, encoding="utf-8") as f:
            saved = json.load(f)
        saved["results"][0]["metrics"]["payload.bytes"] = {
            "kind": "distribution", "unit": "bytes", "count": 3, "rate": 0.5, "mean": 1213.5, "min": 120,
            "p50": 120, "p90": 3400, "p95": 3400, "p99": 3400, "max": 3400}
        with_sizes = os.path.join(self.dir, "with-sizes.json")
        with open(with_sizes, "w", encoding="utf-8") as f:
            json.dump(saved, f)
        html = os.path.join(self.dir, "with-sizes.html")
        r = run(["report", with_sizes, "--html", html])
        self.assertEqual(r.code, 0, r)
        run_check(self, "report_check.js", "--html", html, "--screenshot", artifact("report-distribution.png"),
                  "--distribution-row", "payload.bytes 3 0.5/s 1.21 kB 120 B 3.40 kB")

    def test_report_command_says_what_is_wrong(self):
        not_results = os.path.join(self.dir, "not-results.json")
        with open(not_results, "w") as f:
            f.write('{"hello": "world"}')
        r = run(["report", not_results, "--html", os.path.join(self.dir, "x.html")])
        self.assertEqual(r.code, 2, r)
        self.assertIn("is not a Stampede results file", r.err)

        r = run(["report", self.json_path, "--html", os.path.join(self.dir, "no-such-dir", "x.html")])
        self.assertEqual(r.code, 2, r)
        self.assertIn("cannot write", r.err)

        r = run(["report", self.json_path])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--html", r.err)

    def test_unwritable_html_path_loses_nothing_else(self):
        path = write_scenario('return { options = { vus = 1, iterations = 1 }, run = function() end }')
        out = os.path.join(self.dir, "other.json")
        r = run(["run", path, "--quiet", "--out", out, "--html", os.path.join(self.dir, "no-such-dir", "r.html")])
        self.assertEqual(r.code, 2, r)
        self.assertIn("cannot write", r.err)
        self.assertIn("iterations", r.out)  # the summary
        self.assertTrue(os.path.exists(out))


if __name__ == "__main__":
    main()
