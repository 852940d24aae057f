"""The Elixir integration (integrations/elixir): its ExUnit suite (assert_load against the
built-in target, and Stampede.Probe), `mix stampede.run`, and Stampede.Probe's scrape read by
the official Prometheus Python client's parser, with Debian's Elixir and no Hex at all."""
import json
import os
import shutil
import subprocess
import time
import unittest

from harness import BIN, Target, main, temp_dir

PROJECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integrations", "elixir")
FIXTURES = os.path.join(PROJECT, "test", "fixtures")
SCRAPE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prometheus_scrape.py")
# Debian's python3-prometheus-client is installed for Debian's interpreter, which need not
# be the `python3` running this test.
DEBIAN_PYTHON = "/usr/bin/python3"

# A probe with a few events of each kind recorded through the test stand-in for :telemetry
# (the real library is not packaged by Debian), including a label value that needs escaping.
PROBE_SCRIPT = r"""
Code.require_file("test/support/telemetry_stand_in.exs")
:ok = :telemetry.start()
{:ok, _} = Stampede.Probe.start_link(port: 0, repos: [[:my_app, :repo]], on_listen_error: :stop)
ms = fn n -> System.convert_time_unit(n, :millisecond, :native) end
for n <- [1, 3, 40] do
  :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: ms.(n)}, %{conn: %{method: "GET", status: 200}})
end
socket = %{view: MyAppWeb.RoomLive, transport_pid: self()}
:telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: ms.(2)},
  %{socket: socket, event: "say \"hi\"\\\n", params: %{}})
:telemetry.execute([:phoenix, :channel_joined], %{duration: ms.(5)},
  %{result: :ok, params: %{}, socket: %{channel: MyAppWeb.RoomChannel, topic: "room:1"}})
:telemetry.execute([:my_app, :repo, :query], %{total_time: ms.(4), queue_time: ms.(1), query_time: ms.(3)},
  %{repo: MyApp.Repo, source: "users"})
IO.puts("PROBE_URL " <> Stampede.Probe.url())
Process.sleep(:infinity)
"""


def mix_env(build):
    env = dict(os.environ)
    # Offline and without Hex: the project has no dependencies, and nothing may be fetched.
    env.update({"STAMPEDE_BIN": os.path.abspath(BIN), "MIX_ENV": "test", "HEX_OFFLINE": "1",
                "MIX_BUILD_PATH": build, "MIX_HOME": os.path.join(build, "mix-home")})
    return env


@unittest.skipIf(shutil.which("mix") is None and os.environ.get("CI") != "true",
                 "Elixir is not installed (scripts/setup-test-deps.sh installs it)")
class ElixirTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.build = temp_dir(prefix="stampede-mix-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.build, ignore_errors=True)

    def mix(self, args, env=None, timeout=240):
        e = mix_env(self.build)
        e.update(env or {})
        return subprocess.run(["mix", *args], cwd=PROJECT, env=e, capture_output=True, text=True, timeout=timeout)

    def test_exunit_suite(self):
        r = self.mix(["test", "--no-deps-check"])
        self.assertEqual(r.returncode, 0, r.stdout[-4000:] + r.stderr[-4000:])
        self.assertRegex(r.stdout, r"\b1 doctest, 31 tests, 0 failures")

    def test_mix_stampede_run_exits_with_the_runs_status(self):
        with Target(delay="fixed:5") as target:
            env = {"BASE_URL": target.url}
            ok = self.mix(["stampede.run", os.path.join(FIXTURES, "loadtest", "lobby.lua"), "--vus", "2",
                           "--iterations", "2", "-q"], env)
            self.assertEqual(ok.returncode, 0, ok.stdout[-3000:] + ok.stderr[-3000:])
            self.assertRegex(ok.stdout, r"(?m)^pass channel\.join p95")
            failed = self.mix(["stampede.run", os.path.join(FIXTURES, "loadtest", "too_strict.lua"), "-q"], env)
            self.assertEqual(failed.returncode, 1, failed.stdout[-3000:] + failed.stderr[-3000:])
            self.assertRegex(failed.stdout, r"(?m)^fail http\.request p95")
        usage = self.mix(["stampede.run"])
        self.assertNotEqual(usage.returncode, 0)
        self.assertIn("usage: mix stampede.run", usage.stdout + usage.stderr)

    def test_probe_scrape_parses_with_the_prometheus_client(self):
        env = mix_env(self.build)
        probe = subprocess.Popen(["mix", "run", "-e", PROBE_SCRIPT], cwd=PROJECT, env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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
            p = subprocess.run([DEBIAN_PYTHON, SCRAPE, url], capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr)
            families = json.loads(p.stdout)
        finally:
            probe.terminate()
            try:
                probe.wait(timeout=20)
            except subprocess.TimeoutExpired:
                probe.kill()
                probe.wait()
            probe.stdout.close()

        # The client names a counter family without its _total.
        self.assertEqual(families["erlang_vm_reductions"]["type"], "counter")
        self.assertEqual(families["erlang_vm_schedulers_utilization_ratio"]["type"], "gauge")
        self.assertEqual(families["erlang_vm_memory_bytes"]["type"], "gauge")
        endpoint = families["phoenix_endpoint_duration_seconds"]
        self.assertEqual(endpoint["type"], "histogram")
        buckets = {s["labels"]["le"]: s["value"] for s in endpoint["samples"]
                   if s["name"] == "phoenix_endpoint_duration_seconds_bucket"}
        self.assertEqual((buckets["0.001"], buckets["0.005"], buckets["0.05"], buckets["+Inf"]), (1, 2, 3, 3))
        total = [s["value"] for s in endpoint["samples"] if s["name"] == "phoenix_endpoint_duration_seconds_sum"]
        self.assertAlmostEqual(total[0], 0.044, places=9)
        events = {s["labels"].get("event") for s in families["phoenix_live_view_handle_event_duration_seconds"]["samples"]}
        self.assertIn('say "hi"\\\n', events)
        topics = {s["labels"].get("topic") for s in families["phoenix_channel_join_duration_seconds"]["samples"]}
        self.assertEqual(topics, {"room:*"})
        self.assertEqual(families["ecto_query_queue_duration_seconds"]["type"], "histogram")
        self.assertEqual(families["stampede_probe_telemetry_handlers"]["samples"][0]["value"], 2)


if __name__ == "__main__":
    main()
