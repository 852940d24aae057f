"""A Ctrl-C before the load has started stops there, says so in one line and exits 4: the
process never dies by SIGINT's default action, and no results file says a run passed when
nothing ran.

Each scenario's setup() first writes a marker file, then sleeps for an hour: once the marker
has content, setup() is running and the load cannot have started, whatever the host's speed.
harness.run sends the Ctrl-C then (signals_once_written=marker), not after a guessed delay."""
import json
import os
import unittest

from harness import run, temp_dir, write_scenario, main

NOTHING_MEASURED = "interrupted before the load started: nothing was measured"


def blocking_setup_scenario(directory, name="scenario.lua"):
    """A scenario whose setup() writes `<name>.setup` and then waits an hour; its load and
    its teardown() would write `<name>.run` and `<name>.teardown`. Returns (path, markers)."""
    markers = {phase: os.path.join(directory, f"{name}.{phase}") for phase in ("setup", "run", "teardown")}

    def touch(phase):
        return f'local f = assert(io.open("{markers[phase]}", "w")); f:write("{phase}"); f:close()'

    path = write_scenario(f"""
local stampede = require "stampede"
return {{ options = {{ vus = 1, duration = "1m", thresholds = {{ {{"iteration.errors", count = 0}} }} }},
         setup = function() {touch("setup")} stampede.sleep("1h") end,
         run = function() {touch("run")} end,
         teardown = function() {touch("teardown")} end }}
""", name=name, directory=directory)
    return path, markers


class InterruptBeforeTheLoad(unittest.TestCase):
    def test_ctrl_c_in_setup_stops_there_with_one_line_and_exit_status_4(self):
        d = temp_dir()
        path, markers = blocking_setup_scenario(d)
        files = {k: os.path.join(d, n) for k, n in
                 (("out", "r.json"), ("junit", "j.xml"), ("badge", "b.svg"), ("html", "r.html"))}
        stream = os.path.join(d, "s.ndjson")
        r = run(["run", path, "--out", files["out"], "--junit", files["junit"], "--badge", files["badge"],
                 "--html", files["html"], "--out-stream", stream],
                input_signal_after=0, signals_once_written=markers["setup"], timeout=120)
        self.assertEqual(r.code, 4, r)  # not -2: SIGINT's default action
        self.assertEqual(r.err.splitlines(), [NOTHING_MEASURED], r)
        self.assertEqual(r.out, "", r)  # no summary of a run that never ran
        # setup() was abandoned: the load never started and teardown() did not run.
        self.assertFalse(os.path.exists(markers["run"]), r)
        self.assertFalse(os.path.exists(markers["teardown"]), r)
        # No results file claims a verdict on nothing; the stream, opened at the start, holds no second.
        for name, file in files.items():
            self.assertFalse(os.path.exists(file), f"--{name} was written: {r}")
        self.assertEqual(os.path.getsize(stream), 0)

    def test_ctrl_c_before_a_later_scenario_starts_keeps_what_the_earlier_ones_measured(self):
        d = temp_dir()
        first = write_scenario("""
return { options = { vus = 1, iterations = 3 }, run = function() end }
""", name="first.lua", directory=d)
        second, markers = blocking_setup_scenario(d, name="second.lua")
        out = os.path.join(d, "r.json")
        r = run(["run", first, second, "--out", out, "-q"],
                input_signal_after=0, signals_once_written=markers["setup"], timeout=120)
        # The exit status is that of what ran (first.lua passed), as for a Ctrl-C during its load.
        self.assertEqual(r.code, 0, r)
        self.assertIn(f"interrupted before the load of {second} started: it did not run", r.err)
        self.assertNotIn(NOTHING_MEASURED, r.err)
        self.assertFalse(os.path.exists(markers["run"]), r)
        with open(out) as f:
            results = json.load(f)["results"]
        self.assertEqual([x["file"] for x in results], [first], r)
        self.assertEqual(results[0]["metrics"]["iterations"]["count"], 3, r)


if __name__ == "__main__":
    main()
