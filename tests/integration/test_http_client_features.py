"""The HTTP client end to end through the Lua API: cookies, redirects, gzip, chunked,
query and form encoding, named requests, status errors, repeated headers."""
import re
import unittest

from harness import Target, WsServer, run, write_scenario, main

# One response that repeats two headers (WsServer without the upgrade is a plain TCP server).
REPEATED_HEADERS = (b"HTTP/1.1 200 OK\r\nX-Multi: a\r\nSet-Cookie: one=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT\r\n"
                    b"X-Multi: b\r\nSet-Cookie: two=2\r\nX-Multi: c\r\nContent-Length: 2\r\n"
                    b"Connection: close\r\n\r\nok")


class HttpClientFeatures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.target = Target()

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def check_all(self, lua_body, thresholds=""):
        # One iteration, its checks: the run ends when it has, however busy the cores are
        # (a duration of 300 ms was once too short for the first request to be sent).
        path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
local base = "{self.target.url}"
return {{ options = {{ vus = 1, iterations = 1, thresholds = {{ {thresholds} }} }},
         run = function(vu)
{lua_body}
         end }}
""")
        r = run(["run", path])
        return r

    def assertAllChecksPass(self, r):
        self.assertEqual(r.code, 0, r)
        self.assertIn("checks", r.out, r)
        for line in r.out.split("checks", 1)[1].splitlines()[1:]:
            if "%" in line and line.startswith("  "):  # check rows are indented; the generator line is not
                self.assertIn("100.00%", line, r)

    def test_cookies_persist_per_vu(self):
        r = self.check_all("""
           http.get(base .. "/api/cookie")
           local who = http.get(base .. "/api/whoami")
           stampede.check("cookie sent back", who.body:find("=", 1, true) ~= nil)
""")
        self.assertAllChecksPass(r)

    def test_redirects_are_followed_and_limited(self):
        r = self.check_all("""
           local res = http.get(base .. "/redirect?to=/api/posts&n=3")
           stampede.check("followed", res.status == 200 and res.url:find("/api/posts", 1, true) ~= nil)
           local stopped = http.get(base .. "/redirect?to=/api/posts&n=3", { redirects = 0 })
           stampede.check("not followed", stopped.status == 302)
           local loop = http.get(base .. "/redirect?to=/api/posts&n=30")
           stampede.check("too many", loop.status == 302 and loop.error_reason == "redirects")
""")
        self.assertAllChecksPass(r)

    def test_gzip_and_chunked_bodies_are_decoded(self):
        r = self.check_all("""
           local g = http.get(base .. "/gzip")
           stampede.check("gunzipped", g.status == 200 and #g.body > 0 and g.body:byte(1) ~= 0x1f)
           local c = http.get(base .. "/chunked")
           stampede.check("dechunked", c.status == 200 and #c.body > 0)
""")
        self.assertAllChecksPass(r)

    def test_query_json_and_named_requests(self):
        r = self.check_all("""
           local res = http.get(base .. "/api/posts/1", { query = { a = "x y" }, name = "post" })
           stampede.check("named ok", res.status == 200)
           local created = http.post(base .. "/api/posts", { json = { title = "t", tags = {"a", "b"} }, name = "create" })
           stampede.check("json echoed", created:json().tags[2] == "b")
""")
        self.assertAllChecksPass(r)
        self.assertIsNotNone(r.metric("http.request.post"), r)
        self.assertIsNotNone(r.metric("http.request.create"), r)

    def test_status_errors_are_counted_with_the_status(self):
        r = self.check_all("""
           local res = http.get(base .. "/status/503")
           stampede.check("got 503", res.status == 503)
""")
        self.assertAllChecksPass(r)
        self.assertRegex(r.out, r"status 503\s+\d+")
        self.assertRegex(r.out, r"requests: \d+ sent, 0 completed, \d+ failed")

    def test_repeated_headers_are_joined(self):
        with WsServer(lambda conn, head: conn.sendall(REPEATED_HEADERS), answer_upgrade=False) as server:
            # Set-Cookie is joined with a newline: its dates hold commas.
            r = self.check_all(f"""
           local res = http.get("http://127.0.0.1:{server.port}/")
           stampede.check("joined with commas", res.headers["x-multi"] == "a, b, c")
           stampede.check("set-cookie joined with newlines",
             res.headers["set-cookie"] == "one=1; Expires=Wed, 01 Jan 2031 00:00:00 GMT\\ntwo=2")
           stampede.check("single header as is", res.headers["content-length"] == "2")
""")
        self.assertAllChecksPass(r)

    def test_https_to_the_plain_target_fails_fast_as_tls(self):
        # The target answers a ClientHello with a 400 at once; it used to wait for a request
        # line, and the client for a handshake, until the timeout: then the reason would be
        # "timeout", and a 5 s timeout outlasts the 3 s run (cut off, no checks at all).
        r = self.check_all("""
           local res = http.get((base:gsub("^http:", "https:")) .. "/api/posts", { timeout = "5s" })
           stampede.check("tls error", res.status == 0 and res.error_reason == "tls")
""")
        self.assertAllChecksPass(r)
        self.assertRegex(r.out, r"tls error\s+100\.00%", r)

    def test_json_of_a_body_that_is_not_json_says_where_and_what(self):
        r = self.check_all("""
           local res = http.get(base .. "/")
           local ok, err = pcall(res.json, res)
           stampede.check("raised", not ok)
           stampede.check("names the url", tostring(err):find("the body of " .. base .. "/ is not JSON", 1, true) ~= nil)
           stampede.check("says where", tostring(err):find('at byte 0 of 16, near "stampede target', 1, true) ~= nil)
           stampede.check("good json still decodes", http.get(base .. "/status/503"):json().status == 503)
""")
        self.assertAllChecksPass(r)

    def test_bad_option_values_are_lua_errors_not_silent_defaults(self):
        # Each used to be accepted: the option ignored, NaN recorded as 0 ns, sleep(nil) and
        # sleep(math.huge) returning at once, 1.5 counted as 1, json winning over body.
        cases = {
            'http.get(base .. "/api/posts", { timeoutt = 5 })': 'http: unknown option "timeoutt"',
            'http.post(base .. "/api/posts", { json = {}, body = "x" })': "http: give one of body, json or form",
            'http.get(base .. "/api/posts", { redirects = -1 })': "http: redirects is true, false or how many",
            'http.get(base .. "/api/posts", { timeout = -5 })': "http: timeout: bad duration",
            'stampede.record("x", 0/0)': "stampede.record: bad duration nan",
            'stampede.record("x", -1)': "a duration cannot be negative",
            'stampede.sleep(nil)': "stampede.sleep: expected a duration",
            'stampede.sleep(math.huge)': "longer than 100 days",
            'stampede.increment("c", 1.5)': "stampede.increment: the amount is a whole number",
        }
        for call, message in cases.items():
            r = self.check_all(f"           {call}")
            self.assertEqual(r.code, 0, r)
            self.assertRegex(r.out, r"scenario\.lua:7: .*" + re.escape(message), call + "\n" + r.out)

    def test_a_name_whose_row_is_another_kind_is_a_lua_error_not_an_abort(self):
        # http.request.errors is a counter: `name = "errors"` was resolved when the response
        # arrived, threw inside the worker's loop and aborted the process (exit 134, no
        # summary). A name that is not a string was ignored. Each is now an iteration error at
        # the scenario's line, and the run ends with its summary.
        cases = {
            'http.get(base .. "/api/posts", { name = "errors" })':
                'http: name: metric "http.request.errors" is a counter, not a timing',
            'stampede.increment("http.request.login"); http.get(base .. "/api/posts", { name = "login" })':
                'http: name: metric "http.request.login" is a counter, not a timing',
            'http.get(base .. "/api/posts", { name = 5 })': "http: name is the row http.request.<name>: a string, not a number",
            'http.get(base .. "/api/posts", { name = "" })': "http: name is the row http.request.<name>: give a non-empty",
        }
        for call, message in cases.items():
            r = self.check_all(f"           {call}")
            self.assertEqual(r.code, 0, call + "\n" + repr(r))
            self.assertIn("ran for", r.out, r)
            self.assertGreater(r.metric("iteration.errors")["count"], 0, r)
            self.assertRegex(r.out, r"scenario\.lua:7: .*" + re.escape(message), call + "\n" + r.out)


if __name__ == "__main__":
    main()
