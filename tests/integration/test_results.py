"""Result files and live exports: --out (checked against schema/results.schema.json by Ajv),
--out-stream, --junit, --badge, --prometheus (scraped while the run goes and parsed by the
official Prometheus Python client's parser), and `stampede compare`. Files are written however the run ends, and a
path that cannot be written never loses the summary."""
import json
import math
import os
import re
import subprocess
import threading
import time
import unittest
import xml.etree.ElementTree as ET

from harness import BIN, Result, Target, run, write_scenario, main, temp_dir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA = os.path.join(ROOT, "schema", "results.schema.json")
JS = os.path.join(ROOT, "tests", "js")

# Markup and quotes in a scenario name and an error message: every writer must escape them.
NASTY_NAME = 'Api <script>alert("x")</script> & \'q\''
NASTY_ERROR = 'bad <script>"quoted"</script> & more'


def validate(path, stream=False):
    """Validates a results file (or an --out-stream file) with Ajv; returns (ok, output)."""
    args = ["node", os.path.join(JS, "validate_results.js"), SCHEMA, path] + (["--stream"] if stream else [])
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    return p.returncode == 0, p.stdout + p.stderr


# Debian's python3-prometheus-client is installed for Debian's interpreter, which need not
# be the `python3` running this test.
DEBIAN_PYTHON = "/usr/bin/python3"


def scrape(url):
    """Scrapes and parses the endpoint (prometheus_scrape.py); returns {family: {type, samples}}."""
    p = subprocess.run([DEBIAN_PYTHON, os.path.join(os.path.dirname(__file__), "prometheus_scrape.py"), url],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise AssertionError(f"scrape of {url} failed: {p.stderr}")
    return json.loads(p.stdout)


def samples(family, name=None, **labels):
    """The samples of `family` named `name` (default: any) whose labels include `labels`."""
    return [s for s in family["samples"]
            if (name is None or s["name"] == name) and all(s["labels"].get(k) == v for k, v in labels.items())]


def load(path):
    with open(path) as f:
        return json.load(f)


class ResultFiles(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:2")
        cls.dir = temp_dir(prefix="stampede-results-")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def path(self, name):
        return os.path.join(self.dir, f"{self._testMethodName}-{name}")

    def scenario(self, duration="2s", thresholds='{"http.request", p95 = 5000}', vus=2, name=NASTY_NAME):
        """DURATION, or "twice": each VU's two iterations (a count of iterations, the run ended
        when the last has), the second of which raises."""
        load = f'iterations = {2 * vus}' if duration == "twice" else f'duration = "{duration}", graceful_stop = "1s"'
        return write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ name = {json.dumps(name)},
         options = {{ vus = {vus}, {load},
                     thresholds = {{ {thresholds}, {{"status is 200", failed_rate = 1}} }} }},
         run = function(vu)
           local res = http.get("{self.target.url}/api/posts")
           stampede.check("status is 200", res.status == 200)
           if vu.iteration == 1 then error({json.dumps(NASTY_ERROR)}) end
         end }}
""")

    def test_out_is_valid_against_the_schema_and_holds_the_run(self):
        out, stream = self.path("r.json"), self.path("s.ndjson")
        r = run(["run", self.scenario(), "--out", out, "--out-stream", stream, "--threads", "2", "-q"])
        self.assertEqual(r.code, 0, r)
        ok, message = validate(out)
        self.assertTrue(ok, message)
        doc = load(out)
        self.assertEqual(doc["version"], 1)
        self.assertEqual(doc["tool"]["name"], "stampede")
        self.assertTrue(doc["passed"])
        [result] = doc["results"]
        self.assertEqual(result["scenario"], NASTY_NAME)
        self.assertEqual(result["threads"], 2)
        self.assertEqual(result["cpu_policy"], "normal")
        self.assertEqual(result["ranks"], 1)
        self.assertRegex(result["started_at"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        self.assertEqual(result["options"]["model"], "vus")
        self.assertEqual(result["options"]["stages"], [{"duration_ms": 2000, "target": 2}])
        self.assertEqual(result["options"]["graceful_stop_ms"], 1000)
        self.assertEqual([t["metric"] for t in result["options"]["thresholds"]], ["http.request", "status is 200"])
        # The whole plan ran; how long after it the last VU stopped is the host's speed.
        self.assertGreaterEqual(result["duration_ms"], 2000)

        # The same figures as the summary on stdout.
        request = result["metrics"]["http.request"]
        self.assertEqual(request["count"], r.metric("http.request")["count"])
        self.assertAlmostEqual(request["p95_ms"], r.metric("http.request")["p95"], delta=0.01)
        self.assertGreaterEqual(request["p50_ms"], 2.0)
        self.assertEqual(result["checks"]["status is 200"]["fails"], 0)
        self.assertEqual(result["checks"]["status is 200"]["passes"], request["count"])
        self.assertEqual([t["pass"] for t in result["thresholds"]], [True, True])
        self.assertEqual(result["iteration_errors"][0]["count"], 2)  # one per VU, iteration 1
        self.assertIn(NASTY_ERROR, result["iteration_errors"][0]["message"])
        self.assertRegex(r.out, rf"requests: {result['requests']['sent']} sent, {result['requests']['completed']} completed")

        # The timeline covers every second, and adds up to the summary.
        timeline = result["timeline"]
        self.assertEqual([s["second"] for s in timeline], list(range(len(timeline))))
        # Every second the run lasted, the last maybe a sliver: as many as its own duration says.
        self.assertEqual(len(timeline), math.ceil(result["duration_ms"] / 1000), result["duration_ms"])
        self.assertEqual(sum(s["metrics"].get("http.request", {}).get("count", 0) for s in timeline), request["count"])
        self.assertEqual(sum(s["iterations"] for s in timeline), result["metrics"]["iterations"]["count"])
        self.assertEqual(sum(s["errors"] for s in timeline), 2)
        self.assertEqual(timeline[0]["vus"], 2)
        cpu = [s["cpu_cores"] for s in timeline]
        self.assertTrue(all(c is not None and 0 <= c < 8 for c in cpu), cpu)

        # The stream has one valid line per second of the timeline, with the same figures.
        ok, message = validate(stream, stream=True)
        self.assertTrue(ok, message)
        with open(stream) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(len(lines), len(timeline))
        self.assertEqual([l["second"] for l in lines], [s["second"] for s in timeline])
        self.assertTrue(all(l["scenario"] == NASTY_NAME for l in lines))
        self.assertEqual(lines[0]["metrics"]["http.request"]["count"], timeline[0]["metrics"]["http.request"]["count"])

    def test_several_scenarios_are_one_result_each(self):
        out = self.path("r.json")
        r = run(["run", self.scenario(duration="twice", name="First"), self.scenario(duration="twice", name="Second"),
                 "--out", out, "-q"])
        self.assertEqual(r.code, 0, r)
        ok, message = validate(out)
        self.assertTrue(ok, message)
        self.assertEqual([x["scenario"] for x in load(out)["results"]], ["First", "Second"])

    def test_failing_threshold_still_writes_every_file(self):
        out, junit, badge = self.path("r.json"), self.path("j.xml"), self.path("b.svg")
        r = run(["run", self.scenario(duration="twice", thresholds='{"http.request", p95 = 0.001}'), "--out", out, "--junit", junit,
                 "--badge", badge, "-q"])
        self.assertEqual(r.code, 1, r)
        ok, message = validate(out)
        self.assertTrue(ok, message)
        doc = load(out)
        self.assertFalse(doc["passed"])
        self.assertFalse(doc["results"][0]["thresholds"][0]["pass"])

        suites = ET.parse(junit).getroot()
        self.assertEqual(suites.tag, "testsuites")
        [suite] = suites.findall("testsuite")
        self.assertEqual(suite.get("name"), NASTY_NAME)  # escaped in the file, intact once parsed
        self.assertEqual((suite.get("tests"), suite.get("failures")), ("3", "1"))
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        failure = cases["http.request p95 <= 1.00µs"].find("failure")
        self.assertIsNotNone(failure)
        self.assertRegex(failure.get("message"), r"^http\.request p95 = [\d.]+ms, above 1\.00µs$")
        self.assertIsNone(cases["status is 200 failed_rate <= 100.00%"].find("failure"))
        self.assertIsNone(cases["status is 200"].find("failure"))  # the check itself never failed

        svg = ET.parse(badge).getroot()
        self.assertEqual(svg.tag, "{http://www.w3.org/2000/svg}svg")
        texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
        self.assertIn("failed", texts)
        self.assertIn("stampede", texts)

    def test_passing_run_gets_a_passing_badge(self):
        badge = self.path("b.svg")
        r = run(["run", self.scenario(duration="twice"), "--badge", badge, "-q"])
        self.assertEqual(r.code, 0, r)
        texts = [t.text for t in ET.parse(badge).getroot().iter("{http://www.w3.org/2000/svg}text")]
        self.assertIn("passed", texts)

    def test_first_ctrl_c_still_writes_the_files(self):
        out, junit = self.path("r.json"), self.path("j.xml")
        stream = self.path("s.ndjson")
        r = run(["run", self.scenario(duration="1m"), "--out", out, "--junit", junit, "--out-stream", stream, "-q"],
                input_signal_after=0, signals_once_written=stream, timeout=60)
        self.assertEqual(r.code, 0, r)
        self.assertIn("interrupted", r.err)
        ok, message = validate(out)
        self.assertTrue(ok, message)
        [result] = load(out)["results"]
        self.assertEqual(result["interrupts"], 1)
        self.assertLess(result["duration_ms"], 60000, "the interrupt did not end the 1-minute run")
        self.assertGreater(result["metrics"]["http.request"]["count"], 0)
        self.assertEqual(ET.parse(junit).getroot().find("testsuite/properties/property[@name='interrupted']").get("value"),
                         "true")

    def test_second_ctrl_c_still_writes_the_files(self):
        slow = Target(delay="fixed:3000")
        try:
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 3, duration = "1m", graceful_stop = "30s" }},
         run = function() http.get("{slow.url}/api/posts") end }}
""")
            out = self.path("r.json")
            stream = self.path("s.ndjson")
            r = run(["run", path, "--out", out, "--out-stream", stream, "-q"], input_signal_after=0,
                    second_signal_after=0.5, signals_once_written=stream, timeout=30)
        finally:
            slow.close()
        self.assertEqual(r.code, 0, r)
        self.assertIn("interrupted again", r.err)
        ok, message = validate(out)
        self.assertTrue(ok, message)
        [result] = load(out)["results"]
        self.assertEqual(result["interrupts"], 2)
        self.assertEqual(result["requests"]["in_flight"], 3)

    def test_a_killed_run_leaves_what_it_measured_up_to_its_last_second(self):
        # kill -9 (or the OOM killer) gives no chance to write anything at the end: the files
        # kept current while the run goes are what is left, valid and marked incomplete.
        out, html = self.path("r.json"), self.path("r.html")
        p = subprocess.Popen([BIN, "run", self.scenario(duration="1m"), "--out", out, "--html", html, "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            seconds = 0
            while time.monotonic() < deadline and seconds < 3:
                time.sleep(0.1)
                try:
                    seconds = len(load(out)["results"][0]["timeline"])
                except (OSError, ValueError, KeyError, IndexError):
                    pass  # not written yet; a half-written file is what this test would catch below
        finally:
            p.kill()
            p.wait()
        self.assertGreaterEqual(seconds, 3, "the results file was not kept current")
        ok, message = validate(out)
        self.assertTrue(ok, message)
        doc = load(out)
        self.assertFalse(doc["complete"])
        self.assertFalse(doc["passed"])
        self.assertEqual(doc["verdict"], "incomplete")
        self.assertIn("the process ended before it could write the end of the run", doc["reason"])
        [result] = doc["results"]
        # Up to the last complete second: at least what was on disk before the kill (how many
        # more the process merged and wrote before the kill landed is the host's speed).
        self.assertGreaterEqual(len(result["timeline"]), seconds)
        self.assertEqual(result["window"]["end_ms"], 1000 * len(result["timeline"]))
        self.assertEqual(result["metrics"]["iterations"]["count"], sum(s["iterations"] for s in result["timeline"]))
        with open(html) as f:
            page = f.read()
        self.assertIn('"complete":false', page)
        self.assertEqual([n for n in os.listdir(self.dir) if n.endswith(".partial")], [])

    def test_the_summary_shows_what_the_run_used(self):
        # A scenario that uses HTTP and one check: the summary lists those, folds each
        # timing's errors into its row, keeps the metrics thresholds name (even with nothing
        # recorded), and leaves out the rest; --summary all lists them all; --out has all.
        path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ vus = 2, iterations = 2,
                     thresholds = {{ {{"http.request", p95 = 5000}}, {{"iterations.dropped", count = 0}} }} }},
         run = function()
           stampede.check("status is 200", http.get("{self.target.url}/api/posts").status == 200)
         end }}
""")
        out = self.path("r.json")
        compact = run(["run", path, "--out", out], summary="compact")
        self.assertEqual(compact.code, 0, compact)
        rows = [line.split()[0] for line in compact.out.split("\nrequests:")[0].splitlines()[2:]
                if line and not line.startswith(" ") and not line.startswith("(")]
        self.assertIn("http.request", rows)
        self.assertIn("iteration", rows)
        self.assertIn("iterations.dropped", rows)  # 0, but a threshold names it
        # Not generator.cpu: sampled once a second, a run that busy cores stretch past a second
        # has a sample, and then it is rightly shown.
        for hidden in ("http.request.errors", "iteration.errors", "vu.crashes"):
            self.assertNotIn(hidden, rows, compact.out)
        header = compact.out.splitlines()[1].split()
        self.assertEqual(header[-1], "errors", compact.out)
        self.assertEqual(compact.metric("http.request.errors"), {"count": 0})  # the http.request row's last column
        self.assertRegex(compact.out, r"\(\d+ metrics? with nothing recorded not shown: --summary all lists every one\)")
        self.assertIn("pass http.request p95", compact.out)
        self.assertIn("pass iterations.dropped count", compact.out)

        every = run(["run", path, "--summary", "all"])
        self.assertEqual(every.code, 0, every)
        for shown in ("vu.crashes", "generator.cpu"):
            self.assertRegex(every.out, rf"\n{re.escape(shown)}\s", every.out)
        self.assertNotIn("not shown", every.out)
        # The results file has every metric, whatever the summary showed.
        metrics = load(out)["results"][0]["metrics"]
        for name in ("http.request.errors", "iteration.errors", "vu.crashes"):
            self.assertIn(name, metrics)

    def test_unwritable_paths_are_errors_and_never_lose_the_summary(self):
        good = self.path("r.json")
        missing_dir = os.path.join(self.dir, "no", "such", "dir", "r.json")
        r = run(["run", self.scenario(duration="twice"), "--out", missing_dir, "--junit", "/dev/full", "--badge",
                 self.path("b.svg"), "-q"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("ran for", r.out)  # the summary is on stdout all the same
        self.assertIn("thresholds", r.out)
        self.assertIn(f"error: cannot write {missing_dir}: No such file or directory", r.err)
        self.assertIn("error: cannot write /dev/full: No space left on device", r.err)
        self.assertTrue(os.path.exists(self.path("b.svg")))  # the others are still written
        self.assertFalse(os.path.exists(good))

    def test_a_stream_that_fills_the_disk_is_a_warning_and_the_run_goes_on(self):
        out = self.path("r.json")
        r = run(["run", self.scenario(duration="2s"), "--out-stream", "/dev/full", "--out", out, "-q"])
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.err.count("--out-stream: cannot write /dev/full: No space left on device"), 1, r)
        self.assertIn("ran for", r.out)
        self.assertTrue(validate(out)[0])

    def test_a_stream_that_cannot_be_opened_stops_before_the_run(self):
        r = run(["run", self.scenario(duration="1s"), "--out-stream", os.path.join(self.dir, "no", "dir", "s.ndjson")])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--out-stream: cannot write", r.err)
        self.assertNotIn("ran for", r.out)


def run_with_prometheus(path, during, timeout=60):
    """`stampede run PATH --prometheus 127.0.0.1:0 -q`: the kernel picks the port and the run
    says where it serves (`prometheus: http://.../metrics` on stderr). `during(url, ended)`
    runs in a thread from then on; `ended` is set when the run has exited. Returns the run's
    Result once the run and `during` are done."""
    p = subprocess.Popen([BIN, "run", path, "--prometheus", "127.0.0.1:0", "-q", "--summary", "all"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err_lines, workers, ended = [], [], threading.Event()

    def read_stderr():
        for line in p.stderr:
            err_lines.append(line)
            found = re.fullmatch(r"prometheus: (http://127\.0\.0\.1:\d+/metrics)\n", line)
            if found and not workers:
                workers.append(threading.Thread(target=during, args=(found.group(1), ended)))
                workers[0].start()

    reader = threading.Thread(target=read_stderr)
    reader.start()
    killer = threading.Timer(timeout, p.kill)  # a hang guard: the test then fails on the code
    killer.start()
    try:
        out = p.stdout.read()
        p.wait()
    finally:
        killer.cancel()
        ended.set()
        reader.join()
        for worker in workers:
            worker.join()
    return Result(p.returncode, out, "".join(err_lines))


class Prometheus(unittest.TestCase):
    """`--prometheus 127.0.0.1:0`: the run says where it serves, and the tests scrape that."""

    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:5")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_endpoint_serves_live_metrics_while_the_run_goes(self):
        path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ name = {json.dumps(NASTY_NAME)}, options = {{ vus = 4, duration = "4s" }},
         run = function(vu)
           local res = http.get("{self.target.url}/api/posts")
           stampede.check("status is 200", res.status == 200)
           if vu.iteration == 0 then error({json.dumps(NASTY_ERROR)}) end
         end }}
""")
        scraped = {}

        def scrape_during_run(url, ended):
            # Until a merged second holds every VU's first iteration (each raised once): a
            # fixed delay raced the process's start-up, which a busy sanitizer build stretches.
            while not ended.is_set() and "families" not in scraped:
                time.sleep(0.25)
                try:
                    families = scrape(url)
                except AssertionError as e:
                    scraped["error"] = str(e)  # not listening yet
                    continue
                errors = families.get("stampede_iteration_errors_by_reason", {"samples": []})
                if sum(s["value"] for s in samples(errors)) >= 4:
                    scraped["families"] = families

        r = run_with_prometheus(path, scrape_during_run)
        self.assertEqual(r.code, 0, r)
        self.assertIn("families", scraped, f"no scrape during the run saw its first second: {scraped.get('error')}")
        families = scraped["families"]
        elapsed = families["stampede_elapsed_seconds"]["samples"][0]["value"]

        timing = families["stampede_http_request_seconds"]
        self.assertEqual(timing["type"], "summary")
        quantiles = {s["labels"]["quantile"]: s["value"] for s in samples(timing, "stampede_http_request_seconds")}
        self.assertEqual(set(quantiles), {"0.5", "0.9", "0.95", "0.99"})
        self.assertTrue(all(s["labels"]["scenario"] == NASTY_NAME for s in timing["samples"]))
        # In seconds: the target holds each request 5 ms, so p95 reads 0.005 and more (a busy
        # host adds to it), never 5 (ms) or 5000 (µs): no request it timed took longer than the
        # run had lasted when scraped (a figure of the same exposition, not the test's clock).
        self.assertGreaterEqual(quantiles["0.95"], 0.004, quantiles)
        self.assertLessEqual(quantiles["0.99"], elapsed, (quantiles, elapsed))
        self.assertTrue(quantiles["0.5"] <= quantiles["0.9"] <= quantiles["0.95"] <= quantiles["0.99"], quantiles)
        [count] = samples(timing, "stampede_http_request_seconds_count")
        [total] = samples(timing, "stampede_http_request_seconds_sum")
        self.assertGreater(count["value"], 0)
        self.assertGreaterEqual(total["value"] / count["value"], 0.004)
        self.assertLessEqual(total["value"] / count["value"], elapsed)

        self.assertEqual(families["stampede_vus"]["type"], "gauge")
        self.assertEqual(families["stampede_vus"]["samples"][0]["value"], 4)
        self.assertEqual(families["stampede_iterations"]["type"], "counter")
        # One request an iteration, counted in the same merged seconds, except that a second
        # can end between an iteration's request and its own end: each of the 4 VUs may have
        # its request counted and its iteration not yet.
        iterations = samples(families["stampede_iterations"], "stampede_iterations_total")[0]["value"]
        self.assertTrue(iterations <= count["value"] <= iterations + 4, (iterations, count["value"]))
        errors = samples(families["stampede_iteration_errors_by_reason"])
        self.assertEqual(len(errors), 1)
        self.assertIn(NASTY_ERROR, errors[0]["labels"]["reason"])
        self.assertEqual(errors[0]["value"], 4)  # one per VU
        checks = families["stampede_checks"]
        self.assertEqual(samples(checks, check="status is 200", result="fail")[0]["value"], 0)
        self.assertGreater(samples(checks, check="status is 200", result="pass")[0]["value"], 0)
        ran_for = float(re.search(r"ran for ([0-9.]+)s", r.out).group(1))
        self.assertTrue(0 < elapsed <= ran_for + 0.05, (elapsed, ran_for))  # scraped mid-run ("ran for" is rounded)
        self.assertIn("stampede_generator_cpu_cores", families)
        self.assertGreater(families["stampede_requests_sent"]["samples"][0]["value"], 0)

    def test_request_counters_say_what_they_count(self):
        # A 404 is an answer, and it is counted as failed: the help text must say so.
        import urllib.request
        path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 1, duration = "5s" }},
         run = function() http.get("{self.target.url}/no-such-page"); require("stampede").sleep(20) end }}
""")
        seen = {}

        def scrape_text(url, ended):
            # Until the first merged second with requests in it is there: a fixed 1.5 s read
            # an empty exposition once on a busy ASan run, whose start-up took most of it.
            while not ended.is_set():
                time.sleep(0.25)
                try:
                    with urllib.request.urlopen(url, timeout=5) as response:
                        seen["text"] = response.read().decode()
                except OSError:
                    continue  # not listening yet
                if re.search(r"^stampede_requests_failed_total\{", seen["text"], re.M):
                    return

        r = run_with_prometheus(path, scrape_text)
        self.assertEqual(r.code, 0, r)
        text = seen.get("text", "")
        helps = dict(re.findall(r"^# HELP (stampede_requests_\w+) (.*)$", text, re.M))
        failed = float(re.search(r"^stampede_requests_failed_total\{.*\} (\S+)$", text, re.M).group(1))
        self.assertGreater(failed, 0, text)  # the 404s
        self.assertNotIn("without a response", helps["stampede_requests_failed_total"])
        self.assertIn("status 400 or above", helps["stampede_requests_failed_total"])
        self.assertIn("no answer at all", helps["stampede_requests_failed_total"])
        self.assertIn("status below 400", helps["stampede_requests_completed_total"])

    def test_other_paths_are_not_found_and_a_taken_port_is_an_error(self):
        import urllib.error
        import urllib.request
        path = write_scenario("""
return { options = { vus = 1, duration = "4s" }, run = function() require("stampede").sleep(50) end }
""")
        seen = {}

        def while_serving(url, ended):
            # The address the run printed answers (a 404 off /metrics), and a second run cannot
            # take its port: it says so before starting.
            try:
                urllib.request.urlopen(url.replace("/metrics", "/other"), timeout=5)
                seen["status"] = 200
            except urllib.error.HTTPError as e:
                seen["status"] = e.code
            port = int(re.search(r":(\d+)/metrics$", url).group(1))
            seen["port"] = port
            seen["second"] = run(["run", path, "--prometheus", f"127.0.0.1:{port}", "-q"])

        r = run_with_prometheus(path, while_serving)
        self.assertEqual(r.code, 0, r)
        self.assertEqual(seen.get("status"), 404, (seen, r))
        second = seen["second"]
        self.assertEqual(second.code, 2, second)
        self.assertIn(f"--prometheus: cannot listen on 127.0.0.1:{seen['port']}", second.err)
        self.assertNotIn("ran for", second.out)

    def test_bad_address_is_a_usage_error(self):
        r = run(["run", write_scenario('return { run = function() end }'), "--prometheus", "not an address"])
        self.assertEqual(r.code, 2, r)
        self.assertIn("--prometheus:", r.err)


class Compare(unittest.TestCase):
    """`stampede compare` on two real runs, one against a target 300 times slower, and on
    crafted files. The gap must outlast a stall of the shared cores in the fast run: at 200 ms
    against 2, a 274 ms stall under ASan once made the fast run's iteration p99 the slower
    (session 40); at 600 ms it would take a stall of over half a second."""

    @classmethod
    def setUpClass(cls):
        cls.dir = temp_dir(prefix="stampede-compare-")
        cls.fast = os.path.join(cls.dir, "fast.json")
        cls.slow = os.path.join(cls.dir, "slow.json")
        for delay, out in (("fixed:2", cls.fast), ("fixed:600", cls.slow)):
            with Target(delay=delay) as target:
                path = write_scenario(f"""
return {{ name = "Api", options = {{ rate = 50, duration = "2s" }},
         run = function() require("stampede.http").get("{target.url}/api/posts") end }}
""")
                r = run(["run", path, "--out", out, "-q"])
                assert r.code == 0, r

    def test_a_slower_run_is_a_regression(self):
        r = run(["compare", self.fast, self.slow, "--max-regression", "10"])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"http\.request\s+p95\s+[\d.]+ms\s+[\d.]+ms\s+\+\d+\.\d%\s+slower")
        self.assertRegex(r.out, r"\d+ figures more than 10% slower\n$")

    def test_a_faster_run_and_the_same_run_are_not(self):
        r = run(["compare", self.slow, self.fast])
        self.assertEqual(r.code, 0, r)
        self.assertNotIn("slower\n", r.out.replace("% slower\n", ""))
        self.assertTrue(r.out.endswith("no figure more than 10% slower\n"), r.out)
        self.assertEqual(run(["compare", self.fast, self.fast]).code, 0)

    def test_a_large_enough_allowance_passes(self):
        r = run(["compare", self.fast, self.slow, "--max-regression", "100000"])
        self.assertEqual(r.code, 0, r)

    def test_markdown(self):
        r = run(["compare", self.fast, self.slow, "--format", "markdown"])
        self.assertEqual(r.code, 1, r)
        self.assertIn("| metric | figure | fast.json | slow.json | change | |\n|---|---|---:|---:|---:|---|\n", r.out)
        self.assertRegex(r.out, r"\| http\.request \| p95 \| [\d.]+ms \| [\d.]+ms \| \+\d+\.\d% \| \*\*slower\*\* \|")

    def crafted(self, name, change):
        doc = load(self.fast)
        change(doc["results"][0])
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_metrics_in_one_run_only_are_listed(self):
        def add_timing(result):
            result["metrics"]["ws.connect"] = dict(result["metrics"]["http.request"])
        with_ws = self.crafted("with-ws.json", add_timing)
        r = run(["compare", self.fast, with_ws])
        self.assertEqual(r.code, 0, r)
        self.assertIn("timings only in with-ws.json: ws.connect\n", r.out)
        r = run(["compare", with_ws, self.fast])
        self.assertIn("timings only in with-ws.json: ws.connect\n", r.out)

    def test_crafted_regression_of_one_percentile(self):
        def slower_p99(result):
            result["metrics"]["http.request"]["p99_ms"] *= 1.5
        r = run(["compare", self.fast, self.crafted("p99.json", slower_p99)])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"http\.request\s+p99\s+.*\+50\.0%\s+slower")
        self.assertTrue(r.out.endswith("1 figure more than 10% slower\n"), r.out)

    def test_more_errors_than_allowed_is_a_regression_and_names_them(self):
        def errors(iterations, failed, request_errors):
            def change(result):
                m = result["metrics"]
                m["iterations"]["count"] = iterations
                m["iteration.errors"]["count"] = failed
                m["http.request.errors"]["count"] = request_errors
            return change
        base = self.crafted("ok50.json", errors(50, 0, 0))
        worse = self.crafted("err50.json", errors(50, 40, 60))
        r = run(["compare", base, worse, "--max-regression", "10"])
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"iteration\.errors\s+error rate\s+0\.00%\s+80\.00%\s+\+80\.00 pts\s+more errors\n")
        self.assertRegex(r.out, r"http\.request\.errors\s+per iteration\s+0\.00\s+1\.20\s+\+1\.20\s+more errors\n")
        self.assertTrue(r.out.endswith(
            "no figure more than 10% slower\n"
            "2 error figures rose by more than 10 per 100 iterations: iteration.errors error rate (0.00% → 80.00%), "
            "http.request.errors per iteration (0.00 → 1.20)\n"), r.out)
        md = run(["compare", base, worse, "--format", "markdown"])
        self.assertEqual(md.code, 1, md)
        self.assertIn("| iteration.errors | error rate | 0.00% | 80.00% | +80.00 pts | **more errors** |", md.out)

        # Within the allowance (+4 points, +0.06 per iteration): shown, not a regression.
        slight = self.crafted("err2.json", errors(50, 2, 3))
        r = run(["compare", base, slight, "--max-regression", "10"])
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"http\.request\.errors\s+per iteration\s+0\.00\s+0\.06\s+\+0\.06\n")
        self.assertTrue(r.out.endswith("no figure more than 10% slower\n"), r.out)
        # Fewer errors is never a regression.
        self.assertEqual(run(["compare", worse, base]).code, 0)

    def test_unreadable_and_foreign_files_are_exit_2(self):
        foreign = os.path.join(self.dir, "foreign.json")
        with open(foreign, "w") as f:
            f.write('{"hello": "world"}')
        r = run(["compare", self.fast, foreign])
        self.assertEqual(r.code, 2, r)
        self.assertIn("is not a Stampede results file", r.err)
        broken = os.path.join(self.dir, "broken.json")
        with open(broken, "w") as f:
            f.write('{"version": 1, "results": [')
        self.assertEqual(run(["compare", broken, self.fast]).code, 2)
        self.assertEqual(run(["compare", self.fast, os.path.join(self.dir, "missing.json")]).code, 2)


if __name__ == "__main__":
    main()
