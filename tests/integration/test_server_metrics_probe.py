"""The server-metrics sampler against Stampede.Probe (integrations/elixir) in a real BEAM, with
Debian's Elixir: the BEAM's series and the telemetry histograms (events sent through the test
stand-in for :telemetry, as test_elixir.py does: Debian has no telemetry package) become
`server.` series every second, and thresholds on them pass, fail, and name what the probe
exposes when a name is wrong.

One case is what a user types: `stampede run --server-metrics http://127.0.0.1:PORT/metrics`
with the probe's URL and a load beside it, the BEAM's series in every second of --out. The
other runs the sampler alone, in stampede-server-scrape (tests/tools/server_scrape.cpp: what
`stampede run --server-metrics` runs next to a load, test_server_metrics_run.py)."""
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import BIN, Target, main, run, temp_dir, write_scenario
from test_elixir import PROJECT, mix_env

SCRAPE_TOOL = os.path.join(os.path.dirname(os.path.abspath(BIN)), "stampede-server-scrape")

# The probe, and a process that keeps sending the events Phoenix, LiveView and Ecto send.
PROBE_SCRIPT = r"""
Code.require_file("test/support/telemetry_stand_in.exs")
:ok = :telemetry.start()
{:ok, _} = Stampede.Probe.start_link(port: 0, repos: [[:my_app, :repo]], on_listen_error: :stop)
ms = fn n -> System.convert_time_unit(n, :millisecond, :native) end
spawn(fn ->
  Enum.each(Stream.iterate(0, &(&1 + 1)), fn i ->
    :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: ms.(rem(i, 40) + 1)},
      %{conn: %{method: "GET", status: 200}})
    :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: ms.(rem(i, 7) + 1)},
      %{socket: %{view: MyAppWeb.CounterLive, transport_pid: self()}, event: "inc", params: %{}})
    :telemetry.execute([:my_app, :repo, :query],
      %{total_time: ms.(3), queue_time: ms.(rem(i, 5)), query_time: ms.(2)}, %{repo: MyApp.Repo, source: "counters"})
    Process.sleep(5)
  end)
end)
IO.puts("PROBE_URL " <> Stampede.Probe.url())
Process.sleep(:infinity)
"""


@unittest.skipIf(shutil.which("mix") is None and os.environ.get("CI") != "true",
                 "Elixir is not installed (scripts/setup-test-deps.sh installs it)")
class SamplerAgainstTheProbe(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = temp_dir(prefix="stampede-mix-")
        cls.probe = subprocess.Popen(["mix", "run", "-e", PROBE_SCRIPT], cwd=PROJECT, env=mix_env(cls.build), text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        cls.url, seen, deadline = None, [], time.time() + 240
        while cls.url is None and time.time() < deadline:
            line = cls.probe.stdout.readline()
            if not line:
                break
            seen.append(line)
            if line.startswith("PROBE_URL "):
                cls.url = line.split()[1]
        if cls.url is None:
            cls.stop_probe()
            raise AssertionError("the probe did not start:\n" + "".join(seen)[-3000:])

    @classmethod
    def stop_probe(cls):
        cls.probe.terminate()
        try:
            cls.probe.wait(timeout=20)
        except subprocess.TimeoutExpired:
            cls.probe.kill()
            cls.probe.wait()
        cls.probe.stdout.close()

    @classmethod
    def tearDownClass(cls):
        cls.stop_probe()

    def test_a_run_with_server_metrics_records_the_beams_series_every_second(self):
        # What a user types: `stampede run --server-metrics URL` with the probe's URL, a real
        # load (against the built-in target) beside it, and --out.
        out = os.path.join(self.build, "run.json")
        with Target(delay="fixed:2") as target:
            scenario = write_scenario(f"""
local http = require "stampede.http"
return {{
  name = "load beside a probed BEAM",
  options = {{ vus = 4, duration = "5s", graceful_stop = "5s", thresholds = {{ {{"http.request", p95 = 500}},
    {{"server.erlang_vm_memory_bytes{{kind=\\"total\\"}}", max = 1e12}},
    {{"server.erlang_vm_processes", max = 10}} }} }},
  run = function() http.get("{target.url}/api/posts") end,
}}""", directory=self.build, name="probed.lua")
            r = run(["run", scenario, "--server-metrics", self.url, "--out", out], timeout=90)
            served = target.truth()["count"]
        # The process count threshold (a BEAM runs far more than 10 processes) fails: exit 1.
        self.assertEqual(r.code, 1, r)
        self.assertRegex(r.out, r"fail server\.erlang_vm_processes max <= 10 \(\d", r)
        self.assertIn('pass server.erlang_vm_memory_bytes{kind="total"} max', r.out, r)
        with open(out) as f:
            result = json.load(f)["results"][0]
        self.assertEqual(result["metrics"]["server.scrape.errors"]["count"], 0, result["metrics"]["server.scrape.errors"])
        # A real load beside it: every request the target served, counted (how many 4 VUs make
        # in 5 s is the host's speed).
        self.assertGreater(result["metrics"]["http.request"]["count"], 0)
        self.assertEqual(result["metrics"]["http.request"]["count"], served)
        whole = [e for e in result["timeline"] if e["second"] < 5]
        self.assertEqual([e["second"] for e in whole], list(range(5)))
        for entry in whole:
            m = entry["metrics"]
            second = entry["second"]
            self.assertIn("http.request", m, second)  # the load's and the server's on the same second
            self.assertGreater(m['server.erlang_vm_memory_bytes{kind="total"}']["last"], 1e6, second)
            self.assertGreater(m["server.erlang_vm_processes"]["last"], 10, second)
            self.assertIn("server.erlang_vm_run_queues_length", m, second)
            utilization = m['server.erlang_vm_schedulers_utilization_ratio{type="normal"}']["last"]
            self.assertTrue(0 <= utilization <= 1, (second, utilization))
        # Rates and histograms need two scrapes: from the first whole second on. The BEAM sends
        # an endpoint event every ~5 ms; how many a busy host lets it send in a second is not
        # this test's subject: that the histogram moved every second is.
        for entry in whole[1:]:
            m = entry["metrics"]
            self.assertGreater(m["server.erlang_vm_reductions_total"]["last"], 0, entry["second"])
            self.assertGreater(m["server.phoenix_endpoint_duration_seconds"]["count"], 0, entry["second"])

    def test_the_probes_series_every_second_and_thresholds_on_them(self):
        out = os.path.join(self.build, "server.json")
        p = subprocess.run([SCRAPE_TOOL, self.url, "--seconds", "5", "--out", out,
                            "--threshold", "server.erlang_vm_run_queues_length:max:1000",
                            "--threshold", "server.ecto_query_queue_duration_seconds:p95:50",
                            "--threshold", "server.phoenix_endpoint_duration_seconds:p95:5",
                            "--threshold", "server.beam_run_que:max:20"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            result = json.load(f)["results"][0]

        timeline = result["timeline"]
        self.assertGreaterEqual(len(timeline), 5)
        self.assertEqual(result["metrics"]["server.scrape.errors"]["count"], 0, result["metrics"]["server.scrape.errors"])
        for entry in timeline[1:5]:
            m = entry["metrics"]
            second = entry["second"]
            self.assertGreater(m['server.erlang_vm_memory_bytes{kind="total"}']["last"], 1e6, second)
            self.assertIn("server.erlang_vm_run_queues_length", m, second)
            utilization = m['server.erlang_vm_schedulers_utilization_ratio{type="normal"}']["last"]
            self.assertTrue(0 <= utilization <= 1, (second, utilization))
            self.assertGreater(m["server.erlang_vm_reductions_total"]["last"], 0, second)  # a rate per second
            # Every ~5 ms an endpoint event of 1..40 ms: a duration histogram, in ms, per
            # second; the family as a whole and its one label set. (How many events a busy host
            # lets the BEAM send a second is not this test's subject.)
            endpoint = m["server.phoenix_endpoint_duration_seconds"]
            self.assertEqual(endpoint["kind"], "timing")
            self.assertGreater(endpoint["count"], 0, second)
            self.assertTrue(1 <= endpoint["p50_ms"] <= 41, endpoint)
            self.assertIn('server.phoenix_endpoint_duration_seconds{method="GET",status="200"}', m)
            self.assertIn("server.phoenix_live_view_handle_event_duration_seconds", m)
            self.assertLessEqual(m["server.ecto_query_queue_duration_seconds"]["p95_ms"], 5.5)

        verdicts = {t["metric"]: t for t in result["thresholds"]}
        self.assertTrue(verdicts["server.erlang_vm_run_queues_length"]["pass"], verdicts)
        self.assertTrue(verdicts["server.ecto_query_queue_duration_seconds"]["pass"], verdicts)
        self.assertFalse(verdicts["server.phoenix_endpoint_duration_seconds"]["pass"], verdicts)
        self.assertGreater(verdicts["server.phoenix_endpoint_duration_seconds"]["value"], 5)
        typo = verdicts["server.beam_run_que"]
        self.assertFalse(typo["pass"])
        self.assertEqual(typo["message"], 'no samples: "server.beam_run_que" is not exposed by the endpoint; closest: '
                                          "server.erlang_vm_run_queue_length, server.erlang_vm_run_queues_length")


if __name__ == "__main__":
    main()
