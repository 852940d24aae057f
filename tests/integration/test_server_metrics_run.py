"""`stampede run --server-metrics URL` and the scenario option `server_metrics = {...}`, over real
sockets: the built-in target's own /metrics scraped while a load runs against it becomes server.*
series in the summary, every second of --out and --out-stream, and thresholds on them pass and
fail; endpoints that refuse, stall, answer 500 or send garbage cost server.scrape.errors with the
reason and never hold the run past its end; mistakes in the option are usage errors naming it."""
import json
import os
import re
import socket
import threading
import unittest

from harness import RefusingPort, Target, main, run, temp_dir, write_scenario
from test_results import validate

DURATION = 3  # seconds of load per run: long enough for three whole scraped seconds


def scenario(target_url, thresholds="", options="", duration=DURATION, vus=2):
    return write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{
  options = {{ vus = {vus}, duration = "{duration}s", thresholds = {{ {thresholds} }}, {options} }},
  run = function()
    http.get("{target_url}/api/posts")
    stampede.sleep(10)
  end,
}}
""")


def has_row(result, name):
    """The summary has a row for `name` (a timing's, a counter's or a gauge's "max .. last ..")."""
    return any(line.split()[:1] == [name] for line in result.out.splitlines())


def server_names(entry):
    return sorted(name for name in entry["metrics"] if name.startswith("server."))


class BadEndpoint:
    """A /metrics endpoint that misbehaves: "stall" reads the request and never answers,
    "500" answers an error, "garbage" answers 200 with a body that is not the exposition format."""

    def __init__(self, mode):
        self.mode = mode
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/metrics"
        self.requests = 0
        self.held = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        self.sock.settimeout(0.2)
        while not self.stopped.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                self.requests += 1
                if self.mode == "stall":
                    self.held.append(conn)  # kept open, never answered
                    continue
                if self.mode == "500":
                    body = b"oops"
                    head = b"HTTP/1.1 500 Internal Server Error\r\n"
                else:
                    body = b"this is { not the exposition format\n"
                    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\n"
                conn.sendall(head + b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            except OSError:
                pass
            if self.mode != "stall":
                conn.close()

    def close(self):
        self.stopped.set()
        self.thread.join()
        for conn in self.held:
            conn.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class FlagAgainstTheTarget(unittest.TestCase):
    """One run against `stampede target` with its own /metrics scraped: everything it gives."""

    @classmethod
    def setUpClass(cls):
        cls.dir = temp_dir(prefix="stampede-server-run-")
        cls.out = os.path.join(cls.dir, "r.json")
        cls.stream = os.path.join(cls.dir, "stream.jsonl")
        with Target(delay="fixed:2") as target:
            path = scenario(target.url, thresholds="""
              {"server.stampede_target_http_requests_in_flight", max = 1000},
              {"server.stampede_target_http_requests_total", max = 1},
              {"server.stampede_target_connectons", max = 5},
            """)
            cls.r = run(["run", path, "--server-metrics", target.url + "/metrics", "--out", cls.out,
                         "--out-stream", cls.stream])
        with open(cls.out) as f:
            cls.result = json.load(f)["results"][0]

    def test_thresholds_on_server_series_pass_and_fail(self):
        self.assertEqual(self.r.code, 1, self.r)
        self.assertIn("pass server.stampede_target_http_requests_in_flight max <= 1000", self.r.out)
        # A counter is its rate per second: the load sends well over one request a second.
        self.assertRegex(self.r.out, r"fail server\.stampede_target_http_requests_total max <= 1 \(\d")
        # A name the endpoint never exposed fails, naming what it did expose that is closest.
        self.assertIn('"server.stampede_target_connectons" is not exposed by the endpoint; closest: '
                      "server.stampede_target_connections", self.r.out)
        verdicts = {t["metric"]: t["pass"] for t in self.result["thresholds"]}
        self.assertEqual(verdicts, {"server.stampede_target_http_requests_in_flight": True,
                                    "server.stampede_target_http_requests_total": False,
                                    "server.stampede_target_connectons": False})

    def test_the_summary_lists_the_server_series(self):
        for name in ["server.stampede_target_http_requests_total", "server.stampede_target_connections",
                     "server.process_resident_memory_bytes", "server.scrape"]:
            self.assertTrue(has_row(self.r, name), f"{name} not in the summary\n{self.r}")
        self.assertEqual(self.r.metric("server.scrape.errors")["count"], 0, self.r)

    def test_every_second_of_the_timeline_has_the_server_series(self):
        timeline = self.result["timeline"]
        whole = [e for e in timeline if e["second"] < DURATION]
        self.assertEqual([e["second"] for e in whole], list(range(DURATION)))
        for entry in whole:
            names = server_names(entry)
            self.assertIn("server.stampede_target_connections", names, entry["second"])
            self.assertIn("server.stampede_target_event_loop_lag_seconds", names, entry["second"])
            self.assertEqual(entry["metrics"]["server.scrape"]["count"] >= 1, True, entry["second"])
        # Rates need two scrapes: from the first whole second on (a first scrape at the start).
        for entry in whole:
            self.assertIn("server.stampede_target_http_requests_total", server_names(entry), entry["second"])

    def test_the_servers_request_rate_is_the_loads(self):
        # What the server counted, scraped and turned into rates, adds up to what the client sent
        # (over the whole seconds; a scrape describes the half second either side of its second).
        timeline = [e for e in self.result["timeline"] if 1 <= e["second"] < DURATION]
        served = sum(e["metrics"]["server.stampede_target_http_requests_total"]["last"] for e in timeline)
        sent = sum(e["metrics"]["http.request"]["count"] for e in timeline)
        self.assertGreater(sent, 50)
        self.assertLess(abs(served - sent) / sent, 0.25, (served, sent))

    def test_out_stream_carries_the_server_series(self):
        with open(self.stream) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        seconds_with_server = [line["second"] for line in lines if "server.stampede_target_connections" in line["metrics"]]
        self.assertEqual(seconds_with_server[:DURATION], list(range(DURATION)))
        ok, output = validate(self.stream, stream=True)
        self.assertTrue(ok, output)

    def test_the_results_file_fits_the_schema(self):
        ok, output = validate(self.out)
        self.assertTrue(ok, output)

    def test_compare_shows_server_series(self):
        r = run(["compare", self.out, self.out])
        self.assertIn("server.stampede_target_event_loop_lag_seconds", r.out, r)


class EndpointsThatMisbehave(unittest.TestCase):
    """A dead, stalled, failing or garbled endpoint costs server.scrape.errors with its reason;
    the run goes on, ends on time, and its exit code is what its thresholds say."""

    def run_against(self, url, thresholds=""):
        with Target() as target:
            path = scenario(target.url, thresholds=thresholds)
            r = run(["run", path, "--server-metrics", url], timeout=60)
        # The run's end is the load's: a scrape in flight is abandoned, never waited for (on
        # the simulated clock, to the nanosecond: PollerTest.StopDeliversTheSecondsDueAndThePartialOne;
        # here, how soon after its end a busy host let the run stop is no verdict).
        self.assertGreaterEqual(float(re.search(r"ran for ([0-9.]+)s", r.out).group(1)), DURATION, r)
        # Nor does the progress line wait for it (stderr is a pipe: a line a second): every
        # whole second before the end had its line, and the load went on in each of them.
        rates = {int(second): float(rate) for second, rate in
                 re.findall(r"^\[\s*(\d+)s / \d+s\] vus \d+\s+it/s ([0-9.]+)", r.err, re.M)}
        for second in range(1, DURATION):
            self.assertIn(second, rates, r.err)
            self.assertGreater(rates[second], 0, r.err)
        return r

    def test_a_refused_endpoint(self):
        with RefusingPort() as refusing:
            r = self.run_against(f"http://127.0.0.1:{refusing.port}/metrics")
        self.assertEqual(r.code, 0, r)
        reasons = r.reasons("server.scrape.errors")
        self.assertGreaterEqual(reasons.get("refused", 0), DURATION, r)

    def test_a_stalled_endpoint_costs_timeouts_and_fails_a_threshold_on_errors(self):
        with BadEndpoint("stall") as endpoint:
            r = self.run_against(endpoint.url, thresholds='{"server.scrape.errors", count = 0}')
        self.assertEqual(r.code, 1, r)
        self.assertGreaterEqual(r.reasons("server.scrape.errors").get("timeout", 0), DURATION, r)
        self.assertRegex(r.out, r"fail server\.scrape\.errors count <= 0", r)
        # Every abandoned scrape closed its connection; the next one opened a fresh one.
        self.assertGreaterEqual(endpoint.requests, DURATION)

    def test_an_endpoint_answering_500(self):
        with BadEndpoint("500") as endpoint:
            r = self.run_against(endpoint.url)
        self.assertEqual(r.code, 0, r)
        self.assertGreaterEqual(r.reasons("server.scrape.errors").get("status 500", 0), DURATION, r)

    def test_an_endpoint_sending_garbage(self):
        with BadEndpoint("garbage") as endpoint:
            r = self.run_against(endpoint.url)
        self.assertEqual(r.code, 0, r)
        parse = {k: v for k, v in r.reasons("server.scrape.errors").items() if k.startswith("parse: ")}
        self.assertGreaterEqual(sum(parse.values()), DURATION, r)


class TheScenarioOption(unittest.TestCase):
    def test_url_every_and_select(self):
        out = os.path.join(temp_dir(), "r.json")
        with Target() as target:
            path = scenario(target.url, thresholds='{"server.stampede_target_connections", max = 100}', options=f"""
              server_metrics = {{ url = "{target.url}/metrics", every = "500ms", select = {{ "stampede_target_conn*" }} }},""")
            r = run(["run", path, "--out", out])
        self.assertEqual(r.code, 0, r)
        with open(out) as f:
            result = json.load(f)["results"][0]
        families = {name.split("{")[0] for name in result["metrics"] if name.startswith("server.")}
        # Only the selected family, and the scrapes' own series.
        self.assertEqual(families, {"server.stampede_target_connections", "server.scrape", "server.scrape.errors",
                                    "server.series"})
        # Two scrapes a second.
        self.assertGreaterEqual(result["metrics"]["server.scrape"]["count"], 2 * DURATION, result["metrics"]["server.scrape"])

    def test_the_flag_replaces_the_scenarios_url(self):
        with Target() as target:
            path = scenario(target.url, thresholds='{"server.scrape.errors", count = 0}', options=f"""
              server_metrics = {{ url = "http://127.0.0.1:1/metrics" }},""")
            r = run(["run", path, "--server-metrics", target.url + "/metrics"])
        self.assertEqual(r.code, 0, r)
        self.assertTrue(has_row(r, "server.stampede_target_connections"), r)

    def test_mistakes_are_usage_errors_naming_the_option(self):
        cases = [
            ('server_metrics = { url = "http://127.0.0.1:1/metrics", every = "50ms" }',
             "options.server_metrics.every must be at least 100ms, got 50ms"),
            ('server_metrics = { url = "127.0.0.1:9568/metrics" }',
             'options.server_metrics.url "127.0.0.1:9568/metrics" is not a URL to scrape: missing scheme'),
            ('server_metrics = { url = "http://127.0.0.1:1/metrics", select = { "" } }',
             "options.server_metrics.select[1] is empty"),
            ('server_metrics = { url = "http://127.0.0.1:1/metrics", evry = "1s" }',
             'options.server_metrics: unknown key "evry"'),
            ('server_metrics = { url = "http://127.0.0.1:1/metrics", every = "1s", timeout = "2s" }',
             "options.server_metrics.timeout (2s) must be shorter than every (1s)"),
        ]
        for options, message in cases:
            with self.subTest(options=options):
                path = scenario("http://127.0.0.1:1", options=options + ",")
                r = run(["run", path], timeout=30)
                self.assertEqual(r.code, 2, r)
                self.assertIn(message, r.err, r)
        r = run(["run", scenario("http://127.0.0.1:1"), "--server-metrics", "localhost:9568/metrics"], timeout=30)
        self.assertEqual(r.code, 2, r)
        self.assertIn('--server-metrics: "localhost:9568/metrics" is not a URL to scrape', r.err, r)
        r = run(["run", scenario("http://127.0.0.1:1"), "--server-metrics-every", "2s"], timeout=30)
        self.assertEqual(r.code, 2, r)
        self.assertIn("--server-metrics-every needs an endpoint to scrape", r.err, r)


class FindLimitWithServerMetrics(unittest.TestCase):
    def test_the_step_table_has_the_servers_columns_and_a_calm_server_is_not_blamed(self):
        # The target slows down past 2 requests in flight: 3 VUs break the p95 when enough of
        # their requests overlap in the 2 s hold, else 5 do (both seen on a busy host). Its memory
        # stays flat and N VUs keep at most N requests in flight (find-limit's two signals it
        # exposes: neither moved sharply), so the verdict names no server signal either way.
        out = os.path.join(temp_dir(), "r.json")
        with Target(delay="fixed:1", extra=["--capacity", "2:300"]) as target:
            path = scenario(target.url, thresholds='{"http.request", p95 = 100}')
            r = run(["run", path, "--find-limit", "--start", "1", "--step", "2", "--up-to", "5", "--hold", "2s",
                     "--ramp", "500ms", "--server-metrics", target.url + "/metrics", "--out", out], timeout=90)
        self.assertEqual(r.code, 0, r)
        self.assertRegex(r.out, r"Held (1 VU; 3|3 VUs; 5) VUs broke http\.request p95 <= 100", r)
        self.assertNotIn(" while ", r.out, r)
        header = next(line for line in r.out.splitlines() if line.startswith("VUs "))
        self.assertIn("server memory max", header, r)
        self.assertIn("server requests in flight max", header, r)
        with open(out) as f:
            found = json.load(f)["results"][0]["find_limit"]
        server = found["server"]
        self.assertEqual([c["key"] for c in server["columns"]], ["memory", "in_flight"], server)
        self.assertEqual(server["columns"][0]["metric"], "server.process_resident_memory_bytes")
        self.assertEqual(server["columns"][1]["metric"], "server.stampede_target_http_requests_in_flight")
        judged = [i for i, s in enumerate(found["steps"]) if s["status"] != "not_reached"]
        for i in judged:
            self.assertGreater(server["columns"][0]["values"][i], 1e6, server)
            self.assertLessEqual(server["columns"][1]["values"][i], found["steps"][i]["level"], server)
        self.assertIsNone(server["first"], server)
        self.assertEqual(server["verdict"], "")
        ok, output = validate(out)
        self.assertTrue(ok, output)


if __name__ == "__main__":
    main()
