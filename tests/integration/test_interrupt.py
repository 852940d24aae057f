"""Ctrl-C never loses what was measured: the summary and verdicts are still printed.

A Ctrl-C meant for a running load is sent once the run has written its first second to
--out-stream (harness.run's signals_once_written): it has started, its handler is in place.
At a fixed 1.0-2.5 s after the process started, a run under ASan beside other suites was at
times still starting, and the Ctrl-C stopped it before its load (test_interrupt_before_the_load
covers that case)."""
import os
import re
import unittest

from harness import Target, run, temp_dir, write_scenario, main


def stream_path():
    """A fresh --out-stream path: a file left by an earlier run would have content at once."""
    return os.path.join(temp_dir(), "s.ndjson")


class Interrupt(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(delay="fixed:50")

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def ran_for(self, r):
        return float(re.search(r"ran for ([0-9.]+)s", r.out).group(1))

    def scenario(self, graceful):
        return write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 5, duration = "1m", graceful_stop = "{graceful}",
                    thresholds = {{ {{"http.request", p95 = 5000}} }} }},
         run = function() http.get("{self.target.url}/api/posts") end }}
""")

    def test_first_ctrl_c_finishes_running_iterations_then_summarises(self):
        stream = stream_path()
        r = run(["run", self.scenario("5s"), "--out-stream", stream], input_signal_after=0,
                signals_once_written=stream, timeout=30)
        self.assertEqual(r.code, 0, r)
        self.assertIn("interrupted", r.err)
        self.assertLess(self.ran_for(r), 60, r)  # at the interrupt, not after its 1m
        self.assertRegex(r.out, r"requests: (\d+) sent, \1 completed, 0 failed, 0 in flight")
        self.assertRegex(r.out, r"pass http\.request p95")

    def test_second_ctrl_c_stops_at_once_and_still_summarises(self):
        slow = Target(delay="fixed:3000")
        try:
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 3, duration = "1m", graceful_stop = "30s" }},
         run = function() http.get("{slow.url}/api/posts") end }}
""")
            stream = stream_path()
            r = run(["run", path, "--out-stream", stream], input_signal_after=0, second_signal_after=0.5,
                    signals_once_written=stream, timeout=30)
        finally:
            slow.close()
        self.assertEqual(r.code, 0, r)
        self.assertIn("interrupted again", r.err)
        self.assertLess(self.ran_for(r), 60, r)  # at the interrupt, not after its 1m
        # At once, not when the 3 s requests ended within the 30 s graceful stop: they were
        # still in flight.
        self.assertRegex(r.out, r"3 in flight at the end")

    def test_first_ctrl_c_without_a_graceful_stop_says_running_iterations_are_cut_off(self):
        stream = stream_path()
        r = run(["run", self.scenario("0s"), "--out-stream", stream], input_signal_after=0,
                signals_once_written=stream, timeout=30)
        self.assertEqual(r.code, 0, r)
        self.assertIn("running ones are cut off", r.err)
        self.assertNotIn("waiting", r.err)

    def test_ctrl_c_during_a_stalled_teardown_abandons_it_and_still_summarises(self):
        # The load ends after 1 s; teardown() then sleeps for 30 s (a request to a stalled
        # server would do the same). A Ctrl-C while it runs must not cost the summary.
        # teardown() first writes a marker: the Ctrl-C is sent once it has content, so it
        # comes while teardown() runs (not during the load, nor before it).
        marker = write_scenario("", name="teardown-started.txt")
        path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ vus = 1, duration = "1s", thresholds = {{ {{"http.request", p95 = 5000}} }} }},
         run = function() http.get("{self.target.url}/api/posts") end,
         teardown = function()
           local f = assert(io.open("{marker}", "w")); f:write("teardown started"); f:close()
           stampede.sleep("30s")
         end }}
""")
        r = run(["run", path], input_signal_after=0, signals_once_written=marker, timeout=20)
        self.assertEqual(r.code, 0, r)
        self.assertIn("teardown() interrupted", r.err)
        self.assertGreaterEqual(self.ran_for(r), 1.0, r)  # the load's second; teardown() is not in it
        self.assertRegex(r.out, r"pass http\.request p95")

    def test_second_ctrl_c_skips_teardown(self):
        marker = write_scenario("", name="marker.txt")  # teardown() would write it
        slow = Target(delay="fixed:3000")  # the second Ctrl-C comes while the first waits
        try:
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 3, duration = "1m", graceful_stop = "30s" }},
         run = function() http.get("{slow.url}/api/posts") end,
         teardown = function() local f = assert(io.open("{marker}", "w")); f:write("teardown ran"); f:close() end }}
""")
            stream = stream_path()
            r = run(["run", path, "--out-stream", stream], input_signal_after=0, second_signal_after=0.5,
                    signals_once_written=stream, timeout=30)
            self.assertEqual(r.code, 0, r)
            self.assertIn("teardown() skipped", r.err)
            with open(marker) as f:
                self.assertEqual(f.read(), "")
            stream = stream_path()
            r = run(["run", path, "--out-stream", stream], input_signal_after=0,  # one Ctrl-C: it runs
                    signals_once_written=stream, timeout=30)
            self.assertEqual(r.code, 0, r)
            with open(marker) as f:
                self.assertEqual(f.read(), "teardown ran")
        finally:
            slow.close()


if __name__ == "__main__":
    main()
