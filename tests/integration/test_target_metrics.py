"""The built-in target's own GET /metrics (issue 33): Prometheus 0.0.4 text that the official
Prometheus Python client parses (tests/integration/prometheus_scrape.py, which also checks
what a Prometheus server would reject), whose figures count what a load test did to it: HTTP
requests, requests held, channel joins, WebSocket sessions, the event loops' lag, memory and
CPU. With --procs N each process answers for itself."""
import json
import os
import socket
import subprocess
import threading
import time
import unittest
import urllib.request

from harness import BIN, Target, listening_process, main, run, write_scenario

SCRAPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prometheus_scrape.py")
# Debian's python3-prometheus-client is installed for Debian's interpreter.
DEBIAN_PYTHON = "/usr/bin/python3"


def scrape(url):
    """The families of one scrape as the official parser reads them: {name: {type, samples}}."""
    p = subprocess.run([DEBIAN_PYTHON, SCRAPE, url + "/metrics"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise AssertionError("the Prometheus client rejected /metrics: " + p.stderr)
    return json.loads(p.stdout)


def value(families, family, labels=None, sample=None):
    for s in families[family]["samples"]:
        if (sample is None or s["name"] == sample) and (labels is None or s["labels"] == labels):
            return s["value"]
    raise KeyError(f"{family} {labels} {sample}")


class TargetMetrics(unittest.TestCase):
    def test_the_official_parser_reads_it_and_it_counts_the_load(self):
        with Target() as target:
            first = scrape(target.url)
            types = {name: f["type"] for name, f in first.items()}
            self.assertEqual(types, {
                "stampede_target_connections": "gauge",
                "stampede_target_http_requests": "counter",  # the client names a counter without _total
                "stampede_target_http_requests_in_flight": "gauge",
                "stampede_target_channel_joins": "counter",
                "stampede_target_websocket_sessions": "gauge",
                "stampede_target_event_loop_lag_seconds": "histogram",
                "stampede_target_event_loops": "gauge",
                "process_resident_memory_bytes": "gauge",
                "process_cpu_seconds": "counter",
            })
            self.assertEqual(value(first, "stampede_target_http_requests"), 0)
            self.assertGreater(value(first, "process_resident_memory_bytes"), 1e6)

            # HTTP only: the counter is exactly what the run sent (scrapes are not counted).
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 3, iterations = 3 }},
         run = function() http.get("{target.url}/api/posts") end }}
""")
            r = run(["run", path, "--quiet"])
            self.assertEqual(r.code, 0, r)
            after = scrape(target.url)
            self.assertEqual(r.metric("http.request")["count"], 3, r)
            self.assertEqual(value(after, "stampede_target_http_requests"), 3)
            self.assertGreater(value(after, "process_cpu_seconds"), value(first, "process_cpu_seconds"))

            # The lag probe runs from the first scrape on: a timer ten times a second. How many
            # ticks a run's length holds depends on how late the host wakes the target, so the
            # test waits for it to tick again rather than counting ticks against its clock.
            def lag_counts(families):
                lag = families["stampede_target_event_loop_lag_seconds"]["samples"]
                count = next(s["value"] for s in lag if s["name"].endswith("_count"))
                inf = next(s["value"] for s in lag if s["name"].endswith("_bucket") and s["labels"]["le"] == "+Inf")
                return count, inf
            count, inf = lag_counts(after)
            self.assertGreater(count, 0)
            self.assertEqual(count, inf)
            later, deadline = count, time.time() + 10
            while later <= count and time.time() < deadline:
                time.sleep(0.05)
                later, later_inf = lag_counts(scrape(target.url))
                self.assertEqual(later, later_inf)
            self.assertGreater(later, count, "the lag probe did not tick again in 10 s")

            # Channels: every join counted; the sockets are closed at the end of each iteration.
            ws = target.url.replace("http://", "ws://") + "/socket"
            path = write_scenario(f"""
local channels = require "stampede.channels"
local stampede = require "stampede"
return {{ options = {{ vus = 2, iterations = 2 }},
         run = function()
           local socket = channels.connect("{ws}")
           socket:join("room:lobby")
           socket:join("room:other")
         end }}
""")
            r = run(["run", path, "--quiet"])
            self.assertEqual(r.code, 0, r)
            joined = scrape(target.url)
            self.assertEqual(r.metric("channel.join")["count"], 4, r)
            self.assertEqual(value(joined, "stampede_target_channel_joins"), 4)
            deadline = time.time() + 5  # the last sockets close as the run ends
            while value(joined, "stampede_target_websocket_sessions", {"kind": "channels"}) and time.time() < deadline:
                time.sleep(0.1)
                joined = scrape(target.url)
            for kind in ("channels", "liveview", "echo"):
                self.assertEqual(value(joined, "stampede_target_websocket_sessions", {"kind": kind}), 0, kind)

    def test_held_requests_and_open_sockets_are_seen_while_they_last(self):
        with Target() as target:
            done = threading.Event()

            def slow():
                urllib.request.urlopen(target.url + "/slow?ms=3000", timeout=10).read()
                done.set()

            worker = threading.Thread(target=slow)
            worker.start()
            idle = socket.create_connection(("127.0.0.1", target.port))
            try:
                deadline = time.time() + 2
                seen = scrape(target.url)
                while value(seen, "stampede_target_http_requests_in_flight") < 1 and time.time() < deadline:
                    time.sleep(0.05)
                    seen = scrape(target.url)
                self.assertEqual(value(seen, "stampede_target_http_requests_in_flight"), 1)
                self.assertFalse(done.is_set())
                # The held request's, the idle one's, and the scrape's own.
                self.assertGreaterEqual(value(seen, "stampede_target_connections"), 3)
            finally:
                idle.close()
                worker.join()
            self.assertEqual(value(scrape(target.url), "stampede_target_http_requests_in_flight"), 0)

    def test_with_procs_each_process_answers_for_itself(self):
        # Port 0: the parent takes the kernel's port before it forks and says which.
        target, port, err_path = listening_process(
            [BIN, "target", "--procs", "2", "--threads", "2", "--listen", "127.0.0.1:0"],
            r"processes sharing 127\.0\.0\.1:(\d+)", "stampede-procs-")
        try:
            deadline = time.time() + 10
            while True:  # the parent says the port as it forks; a child listens a moment later
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    self.assertLess(time.time(), deadline, "no target process listened")
                    time.sleep(0.05)
            url = f"http://127.0.0.1:{port}"
            # Each scrape is a new connection, which the kernel gives to either process: each
            # reports its own two event loops, never the four of both.
            for _ in range(6):
                self.assertEqual(value(scrape(url), "stampede_target_event_loops"), 2)
        finally:
            target.terminate()
            target.wait(timeout=20)
            os.unlink(err_path)


if __name__ == "__main__":
    main()
