"""A broken scenario or option is exit 2 with the file, the line where known, and what was expected."""
import unittest

from harness import run, write_scenario, main


class BadInput(unittest.TestCase):
    def assertUsageError(self, args, *needles):
        r = run(args)
        self.assertEqual(r.code, 2, r)
        for n in needles:
            self.assertIn(n, r.err, r)
        return r

    def test_syntax_error_names_file_and_line(self):
        path = write_scenario("return {\n  run = function()\n    local x = \n  end\n}\n", "broken.lua")
        self.assertUsageError(["run", path], "broken.lua:4:")

    def test_runtime_error_at_load_names_file_and_line(self):
        path = write_scenario("local x = nil\nreturn x.y\n", "loadfail.lua")
        self.assertUsageError(["run", path], "loadfail.lua:2:")

    def test_missing_run(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s" } }', "norun.lua")
        self.assertUsageError(["run", path], "norun.lua", "run function")

    def test_not_a_table(self):
        self.assertUsageError(["run", write_scenario("return 42", "num.lua")], "num.lua", "must return a table")

    def test_bad_duration_in_options(self):
        path = write_scenario('return { options = { vus = 1, duration = "3x" }, run = function() end }', "dur.lua")
        self.assertUsageError(["run", path], "dur.lua: options.duration", "3x")

    def test_bad_stage(self):
        path = write_scenario('return { options = { stages = { {"1s"} } }, run = function() end }', "stage.lua")
        self.assertUsageError(["run", path], "options.stages[1]", "target")

    def test_unknown_option(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s", vu = 3 }, run = function() end }', "opt.lua")
        self.assertUsageError(["run", path], 'unknown option "vu"', "vus")

    def test_unknown_key_in_the_returned_table(self):
        # thresholds beside options, not in them, would leave a CI gate that never fails.
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, thresholds = { {"iteration.errors", count = 0} }, '
                              'run = function() error("x") end }', "outside.lua")
        self.assertUsageError(["run", path], "outside.lua", '"thresholds" is an option: put it inside options')
        path = write_scenario('return { optoins = { vus = 1, duration = "1s" }, run = function() end }', "typo.lua")
        self.assertUsageError(["run", path], "typo.lua", 'unknown key "optoins"')

    def test_no_load(self):
        path = write_scenario("return { run = function() end }", "noload.lua")
        self.assertUsageError(["run", path], "noload.lua", "duration")

    def test_thresholds_written_as_a_map(self):
        # k6's form used to become zero thresholds: a CI gate that always passed.
        for thresholds, key in (('{ ["http.request"] = { p95 = 1 } }', '"http.request" = {...}'),
                                ('{ http_req_duration = {"p(95)<250"} }', '"http_req_duration" = {...}'),
                                ('{ {"http.request", p95 = 1}, ["iteration.errors"] = { count = 0 } }',
                                 '"iteration.errors" = {...}')):
            path = write_scenario('return { options = { vus = 1, duration = "1s", thresholds = ' + thresholds + ' }, '
                                  'run = function() end }', "map.lua")
            r = self.assertUsageError(["run", path], "map.lua: options.thresholds: " + key + " is not a list entry",
                                      'write thresholds = { {"http.request", p95 = 250} }')
            self.assertNotIn("ran for", r.out)

    def test_lists_written_with_other_keys(self):
        path = write_scenario('return { options = { stages = { {"30s", 10}, extra = {"1m", 5} } }, run = function() end }',
                              "stages.lua")
        self.assertUsageError(["run", path], 'options.stages: "extra" = {...} is not a list entry')
        path = write_scenario('return { options = { vus = 1, duration = "1s", local_addresses = { first = "127.0.0.2" } }, '
                              'run = function() end }', "addr.lua")
        self.assertUsageError(["run", path], 'options.local_addresses: "first" = "127.0.0.2" is not a list entry')

    def test_options_that_would_be_ignored(self):
        for options, expected in (('stages = { {"1s", 2, ramp = "linear"} }',
                                   'options.stages[1]: unknown key "ramp": a stage is {duration, target}'),
                                  ('rate = 10, start_rate = 1, duration = "1s"',
                                   "options set start_rate without rate_stages"),
                                  ('vus = 2.5, duration = "1s"', "options.vus: expected a whole number of VUs, got 2.5"),
                                  ('rate = 10, max_vus = 1.5, duration = "1s"', "options.max_vus: expected a whole number"),
                                  ('vus = 1, duration = "1s", thresholds = { {"http.request", p95 = "250ms"} }',
                                   'p95: expected a number of milliseconds, as in p95 = 250, got the string "250ms"')):
            path = write_scenario("return { options = { " + options + " }, run = function() end }", "ignored.lua")
            r = self.assertUsageError(["run", path], "ignored.lua", expected)
            self.assertNotIn("ran for", r.out)

    def test_a_load_that_runs_nothing(self):
        one_vu = write_scenario('return { options = { vus = 1, duration = "1s" }, run = function() end }', "one.lua")
        self.assertUsageError(["run", one_vu, "--vus", "0", "--duration", "1s"], "one.lua: no load: --vus is 0")
        self.assertUsageError(["run", one_vu, "--rate", "100", "--duration", "0"], "one.lua: the load lasts no time at all")
        for options, expected in (('vus = 0, duration = "1s"', "no load: options.vus is 0"),
                                  ('rate = 10, duration = 0', "the load lasts no time at all"),
                                  ('rate = 0, duration = "1s"', "no load: options.rate is 0"),
                                  ('rate_stages = { {"1s", 0}, {"1s", 0} }', "the rate_stages and start_rate never go above 0"),
                                  ('rate_stages = { {0, 100} }', "the load lasts no time at all"),
                                  ('stages = { {"1s", 0} }', "the stages (and options.vus) never go above 0 VUs")):
            path = write_scenario("return { options = { " + options + " }, run = function() end }", "empty.lua")
            r = self.assertUsageError(["run", path], "empty.lua", expected)
            self.assertNotIn("ran for", r.out)

    def test_bad_cli_option(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, run = function() end }')
        self.assertUsageError(["run", path, "--duration", "soon"], "--duration", "soon")
        self.assertUsageError(["run", path, "--frobnicate"], "frobnicate")

    def test_bad_number_says_what_was_expected(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, run = function() end }')
        for args, expected in ((["--rate", "abc"], "--rate: expected a number greater than 0, not \"abc\""),
                               (["--rate", "0"], "--rate: expected a number greater than 0, not \"0\""),
                               (["--rate", "inf"], "--rate: expected a number greater than 0"),
                               (["--find-limit", "--step", "-2"], "--step: expected a number greater than 0"),
                               (["--find-limit", "--start=-1"], "--start: expected a number, 0 or more, not \"-1\"")):
            r = self.assertUsageError(["run", path, *args], expected)
            # CLI11's own check printed the range it allows, up to DBL_MAX's 309 digits.
            self.assertNotIn("179769", r.err, r)
        self.assertUsageError(["compare", path, path, "--max-regression=-5"],
                              "--max-regression: expected a number, 0 or more")

    def test_url_mistakes_are_named_with_the_fix(self):
        # A URL the clients refuse fails the request (or connect) and says what is wrong in
        # words, with the URL the author probably meant.
        path = write_scenario("""
local http = require "stampede.http"
local websocket = require "stampede.websocket"
local stampede = require "stampede"
return { options = { vus = 1, iterations = 1 },
         run = function()
           for _, url in ipairs({ "127.0.0.1:38981/big.bin", "localhost:4000/x", "/api/posts", "htp://localhost/" }) do
             local res = http.get(url)
             print("http " .. res.error)
           end
           local ok, err = pcall(websocket.connect, "http://127.0.0.1:4000/socket")
           print("ws " .. tostring(err))
         end }
""")
        r = run(["run", path])
        self.assertEqual(r.code, 0, r)
        for expected in ("GET 127.0.0.1:38981/big.bin failed: missing scheme: did you mean http://127.0.0.1:38981/big.bin?",
                         "GET localhost:4000/x failed: missing scheme: did you mean http://localhost:4000/x?",
                         "GET /api/posts failed: it is a path, not a whole URL: give the scheme and the host too, "
                         "e.g. http://localhost:4000/api/posts",
                         'GET htp://localhost/ failed: unknown scheme "htp": did you mean http://localhost/?',
                         "websocket.connect http://127.0.0.1:4000/socket: "
                         "a WebSocket URL starts with ws:// or wss:// (http is an HTTP scheme): "
                         "did you mean ws://127.0.0.1:4000/socket?"):
            self.assertIn(expected, r.out + r.err, r)
        self.assertNotIn("mismatch", r.out + r.err)

    def test_missing_file(self):
        self.assertUsageError(["run", "/nonexistent/x.lua"], "scenarios: no such file: /nonexistent/x.lua")
        self.assertUsageError(["run", "/tmp"], "/tmp is a directory")
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, run = function() end }')
        # `--find-limit rate` takes "rate" for a file: say how the flag takes a value.
        self.assertUsageError(["run", path, "--find-limit", "rate"], "write --find-limit=rate")

    def test_setup_that_returns_a_function(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, setup = function() return { f = print } end, run = function() end }', "setup.lua")
        self.assertUsageError(["run", path], "setup.lua: setup() failed", "JSON")

    def test_setup_that_returns_a_cycle_names_it_once(self):
        path = write_scenario('return { options = { vus = 1, duration = "1s" }, setup = function() local t = { a = {} } '
                              't.a.up = t return t end, run = function() end }', "cycle.lua")
        r = self.assertUsageError(["run", path], "cycle.lua: setup() failed",
                                  "cannot encode a cycle: value.a.up is value")
        self.assertLess(len(r.err), 400, r)  # it was the path "value.a.up.a.up..." 200 levels deep

    def test_bad_target_option(self):
        self.assertUsageError(["target", "--delay", "gaussian:3"], "gaussian:3")


if __name__ == "__main__":
    main()
