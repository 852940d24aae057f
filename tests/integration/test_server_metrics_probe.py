"""The server-metrics sampler against Stampede.Probe (integrations/elixir) in a real BEAM, with
Debian's Elixir: the BEAM's series and the telemetry histograms (events sent through the test
stand-in for :telemetry, as test_elixir.py does: Debian has no telemetry package) become
`server.` series every second, and thresholds on them pass, fail, and name what the probe
exposes when a name is wrong.

The sampler runs alone here, in stampede-server-scrape (tests/tools/server_scrape.cpp: what
`stampede run --server-metrics` runs next to a load, test_server_metrics_run.py)."""
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import BIN, main, temp_dir
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
    def test_the_probes_series_every_second_and_thresholds_on_them(self):
        build = temp_dir(prefix="stampede-mix-")
        probe = subprocess.Popen(["mix", "run", "-e", PROBE_SCRIPT], cwd=PROJECT, env=mix_env(build), text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = os.path.join(build, "server.json")
        try:
            url, seen, deadline = None, [], time.time() + 240
            while url is None and time.time() < deadline:
                line = probe.stdout.readline()
                if not line:
                    break
                seen.append(line)
                if line.startswith("PROBE_URL "):
                    url = line.split()[1]
            self.assertIsNotNone(url, "the probe did not start:\n" + "".join(seen)[-3000:])
            p = subprocess.run([SCRAPE_TOOL, url, "--seconds", "5", "--out", out,
                                "--threshold", "server.erlang_vm_run_queues_length:max:1000",
                                "--threshold", "server.ecto_query_queue_duration_seconds:p95:50",
                                "--threshold", "server.phoenix_endpoint_duration_seconds:p95:5",
                                "--threshold", "server.beam_run_que:max:20"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
        finally:
            probe.terminate()
            try:
                probe.wait(timeout=20)
            except subprocess.TimeoutExpired:
                probe.kill()
                probe.wait()
            probe.stdout.close()
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
            # second; the family as a whole and its one label set.
            endpoint = m["server.phoenix_endpoint_duration_seconds"]
            self.assertEqual(endpoint["kind"], "timing")
            self.assertGreater(endpoint["count"], 20, second)
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
