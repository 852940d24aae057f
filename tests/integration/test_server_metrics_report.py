"""The Server section of the HTML report and of the live dashboard, in a real headless Chromium
(tests/js/server_report_check.js), drawn from real scrapes of the built-in target's /metrics
while a real load ran against it.

Until `stampede run --server-metrics` is wired, the server series come from
stampede-server-scrape (tests/tools/server_scrape.cpp: the same sampler, alone), run next to
`stampede run --out` against the same target; this test puts them into the run's results
file, second by second (the two started within a second of each other; their start times
say by how many whole seconds to shift), as the run will record them itself. The results
file is checked against schema/results.schema.json, and the report made from it by
`stampede report`."""
import datetime
import json
import os
import subprocess
import threading
import unittest

from browser_check import artifact, require_browser, run_check
from harness import BIN, Target, main, run, temp_dir, write_scenario
from test_dashboard import Stampede

SCRAPE_TOOL = os.path.join(os.path.dirname(os.path.abspath(BIN)), "stampede-server-scrape")
JS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")


def started(result):
    return datetime.datetime.fromisoformat(result["started_at"].replace("Z", "+00:00"))


def merge_server_series(run_results, server_results):
    """The run's results with the sampler's series in its timeline and summary, and its
    thresholds (judged on the server series) after the run's own."""
    r, s = run_results["results"][0], server_results["results"][0]
    shift = round((started(s) - started(r)).total_seconds())
    seconds = {entry["second"]: entry for entry in r["timeline"]}
    placed = 0
    for entry in s["timeline"]:
        target = seconds.get(entry["second"] + shift)
        if target is not None:
            target["metrics"].update(entry["metrics"])
            placed += 1
    r["metrics"].update(s["metrics"])
    r["thresholds"] += s["thresholds"]
    return placed


class ServerSection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_browser()
        if not os.path.exists(SCRAPE_TOOL):
            raise RuntimeError(f"{SCRAPE_TOOL} is missing: build the stampede-server-scrape target")
        cls.dir = temp_dir(prefix="stampede-server-report-")
        with Target(delay="uniform:1:6") as target:
            scenario = write_scenario(f"""
local http = require "stampede.http"
local channels = require "stampede.channels"
local stampede = require "stampede"
return {{
  name = "lobby with the server watched",
  options = {{ stages = {{ {{"3s", 12}}, {{"3s", 12}} }}, thresholds = {{ {{"http.request", p95 = 250}} }} }},
  run = function(vu)
    http.get("{target.url}/api/posts")
    if vu.iteration % 10 == 0 then
      local socket = channels.connect("{target.url.replace('http://', 'ws://')}/socket")
      socket:join("room:lobby")
      stampede.sleep(300)
    end
    stampede.sleep(20)
  end,
}}
""", directory=cls.dir)
            cls.run_path = os.path.join(cls.dir, "run.json")
            cls.server_path = os.path.join(cls.dir, "server.json")
            scraper = {}

            def scrape():
                scraper["p"] = subprocess.run(
                    [SCRAPE_TOOL, target.url + "/metrics", "--seconds", "6", "--out", cls.server_path,
                     "--threshold", "server.stampede_target_http_requests_in_flight:max:1000"],
                    capture_output=True, text=True, timeout=60)

            thread = threading.Thread(target=scrape)
            thread.start()
            cls.run_result = run(["run", scenario, "--quiet", "--out", cls.run_path])
            thread.join()
            cls.scrape_result = scraper["p"]
        cls.merged_path = os.path.join(cls.dir, "merged.json")
        with open(cls.run_path) as f:
            run_results = json.load(f)
        with open(cls.server_path) as f:
            cls.server_results = json.load(f)
        cls.placed = merge_server_series(run_results, cls.server_results)
        cls.merged = run_results
        with open(cls.merged_path, "w") as f:
            json.dump(run_results, f)

    def test_the_sampler_recorded_every_second(self):
        self.assertEqual(self.run_result.code, 0, self.run_result)
        self.assertEqual(self.scrape_result.returncode, 0, self.scrape_result.stderr)
        timeline = self.server_results["results"][0]["timeline"]
        self.assertGreaterEqual(len(timeline), 6)
        self.assertEqual([e["second"] for e in timeline], list(range(len(timeline))))
        for entry in timeline[1:6]:
            self.assertIn("server.stampede_target_http_requests_total", entry["metrics"], entry["second"])
            self.assertIn("server.stampede_target_event_loop_lag_seconds", entry["metrics"], entry["second"])
        self.assertGreaterEqual(self.placed, 5)
        threshold = self.server_results["results"][0]["thresholds"][0]
        self.assertTrue(threshold["pass"], threshold)

    def test_the_results_file_with_server_series_fits_the_schema(self):
        schema = os.path.join(JS_DIR, "..", "..", "schema", "results.schema.json")
        p = subprocess.run(["node", os.path.join(JS_DIR, "validate_results.js"), schema, self.merged_path], cwd=JS_DIR,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_the_report_has_a_server_section_on_the_load_charts_time_axis(self):
        html = os.path.join(self.dir, "report.html")
        r = run(["report", self.merged_path, "--html", html])
        self.assertEqual(r.code, 0, r)
        run_check(self, "server_report_check.js", "--html", html, "--screenshot", artifact("server-report.png"))

    def test_the_live_dashboard_shows_the_server_section(self):
        # The dashboard page of a real `stampede run --dashboard`; its event stream replaced by
        # the merged run's seconds (a start, then one message per second, as the run sends them).
        r = self.merged["results"][0]
        header = dict(r, timeline=[])
        events = "event: start\ndata: " + json.dumps(dict(self.merged, results=[header])) + "\n\n"
        for entry in r["timeline"]:
            events += "data: " + json.dumps(entry) + "\n\n"
        events_path = os.path.join(self.dir, "events.txt")
        with open(events_path, "w") as f:
            f.write(events)
        scenario = write_scenario("""
return { options = { vus = 1, duration = "1s" }, run = function() end }
""", name="idle.lua", directory=self.dir)
        dashboard = Stampede(["run", scenario, "--quiet", "--dashboard", "--dashboard-listen", "127.0.0.1:0",
                              "--dashboard-linger", "60s"])
        try:
            run_check(self, "server_report_check.js", "--dashboard", dashboard.url(), "--events", events_path,
                      "--screenshot", artifact("server-dashboard.png"))
        finally:
            dashboard.kill()


if __name__ == "__main__":
    main()
