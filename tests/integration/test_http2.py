"""HTTP/2 end to end: stampede.http with http2 = true against the built-in target (h2c on its
port, h2 on --tls-listen), against Node's core http2 module (h2c and TLS), and against
servers that misbehave (Node resetting streams and going away; raw sockets sending garbage,
HTTP/1, half a response, nothing). curl (Debian's, built with nghttp2) cross-checks the
target. Every scenario writes what it saw as JSON lines, which the tests read."""
import json
import os
import socket
import ssl
import subprocess
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from harness import Target, run, temp_dir, write_scenario, main

JS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "js")


def make_certificate(directory):
    """A self-signed certificate for 127.0.0.1 (openssl from Debian), for the Node and Python servers."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class NodeH2:
    """tests/js/h2_server.js: Node's http2 module, h2c or (with a certificate) TLS."""

    def __init__(self, *flags, tls=None):
        args = ["node", os.path.join(JS, "h2_server.js"), "0", *flags]
        if tls:
            args += ["--tls", *tls]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().split()
        if not line or line[0] != "listening":
            raise RuntimeError("h2_server.js did not start: " + self.proc.stderr.read())
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{line[1]}"

    def close(self):
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RawServer:
    """A TCP server for misbehaviour: `behaviour(conn)` runs for each connection, in a thread."""

    def __init__(self, behaviour):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.behaviour = behaviour
        self.connections = []
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
        try:
            self.behaviour(conn)
        except OSError:
            pass

    def close(self):
        self.sock.close()
        for conn in self.connections:
            try:
                conn.close()
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def frame(kind, flags, stream, payload=b""):
    """An HTTP/2 frame (RFC 9113 4.1)."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


SETTINGS = frame(4, 0, 0)
SETTINGS_ACK = frame(4, 1, 0)
# HPACK: ":status: 200" is entry 8 of the static table; "content-length: 10" a literal with the
# static name 28 (RFC 7541 appendix A).
HEADERS_200 = frame(1, 0x4, 1, b"\x88")
HEADERS_200_LENGTH_10 = frame(1, 0x4, 1, b"\x88\x5c\x0210")


def read_preface(conn):
    conn.settimeout(5)
    got = b""
    while len(got) < 24:
        chunk = conn.recv(4096)
        if not chunk:
            return
        got += chunk


def hold_open(conn):
    conn.settimeout(10)
    try:
        while conn.recv(4096):
            pass
    except OSError:
        pass


class Http2Scenarios(unittest.TestCase):
    def observe(self, body, options="vus = 1, iterations = 1", globals_=""):
        """Runs `body` once per iteration with `report(table)` writing a JSON line; returns
        the run's Result and the lines. By default one VU runs it once (a count of iterations:
        the run ends when it has); a duration's iterations started are finished (graceful_stop)."""
        directory = temp_dir()
        out = os.path.join(directory, "seen.jsonl")
        path = write_scenario(f"""
local http = require "stampede.http"
local json = require "stampede.json"
local stampede = require "stampede"
local function report(t)
  local f = io.open("{out}", "a"); f:write(json.encode(t), "\\n"); f:close()
end
local function summary(r)
  return {{ status = r.status, proto = r.proto, reason = r.error_reason, error = r.error, url = r.url,
           length = #r.body, body = #r.body < 2000 and r.body or nil }}
end
{globals_}
return {{ options = {{ {options}, graceful_stop = "60s" }},
         run = function(vu)
{body}
         end }}
""", directory=directory)
        r = run(["run", path], timeout=120)
        seen = []
        if os.path.exists(out):
            with open(out) as f:
                seen = [json.loads(line) for line in f]
        return r, seen


class AgainstTheBuiltInTarget(Http2Scenarios):
    @classmethod
    def setUpClass(cls):
        cls.target = Target(extra=("--tls-listen", "127.0.0.1:0"))
        cls.tls_port = int(cls.target.said(r"HTTP/2 over TLS on https://127\.0\.0\.1:(\d+)"))
        cls.tls_url = f"https://127.0.0.1:{cls.tls_port}"

    @classmethod
    def tearDownClass(cls):
        cls.target.close()

    def test_h2c_and_h2_serve_the_same_routes_and_every_request_is_in_the_truth(self):
        self.target.reset()
        r, seen = self.observe(f"""
  local plain = http.get("{self.target.url}/api/posts")
  local tls = http.get("{self.tls_url}/api/posts/2")
  local created = http.post("{self.tls_url}/api/posts", {{ json = {{ title = "over h2" }} }})
  local http1 = http.get("{self.target.url}/api/posts", {{ http2 = false }})
  if vu.iteration == 1 then report({{ plain = summary(plain), tls = summary(tls), created = summary(created), http1 = summary(http1) }}) end
""", options='vus = 4, iterations = 8, http2 = true, insecure = true')
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        # 8 iterations of 4 requests among 4 VUs: some VU ran a second one and reported.
        self.assertEqual(r.metric("http.request")["count"], 32, r)
        first = seen[0]
        self.assertEqual((first["plain"]["status"], first["plain"]["proto"]), (200, "HTTP/2"), first)
        self.assertEqual((first["tls"]["status"], first["tls"]["proto"]), (200, "HTTP/2"), first)
        self.assertIn('"id":2', first["tls"]["body"])
        self.assertEqual((first["created"]["status"], first["created"]["proto"]), (201, "HTTP/2"), first)
        self.assertEqual((first["http1"]["status"], first["http1"]["proto"]), (200, "HTTP/1.1"), first)
        self.assertEqual(first["http1"]["body"], first["plain"]["body"])
        # What the generator counted is what the target held: the same requests, HTTP/2 or not.
        self.assertEqual(self.target.truth()["count"], r.metric("http.request")["count"], r)

    def test_cookies_and_redirects_over_h2(self):
        r, seen = self.observe(f"""
  http.get("{self.tls_url}/api/cookie")
  local who = http.get("{self.tls_url}/api/whoami")
  local redirected = http.get("{self.tls_url}/redirect?to=/api/posts&n=3")
  report({{ who = summary(who), redirected = summary(redirected) }})
""", options='vus = 1, iterations = 1, http2 = true, insecure = true')
        self.assertEqual(r.code, 0, r)
        self.assertIn("=", seen[0]["who"]["body"], seen)
        self.assertEqual(seen[0]["redirected"]["status"], 200, seen)
        self.assertTrue(seen[0]["redirected"]["url"].endswith("/api/posts"), seen)

    def test_held_requests_are_timed_as_over_http1(self):
        # The target holds every measured request 30 ms: HTTP/2's service time means what
        # HTTP/1.1's does (from the request written to the response's last byte), so the hold
        # is inside both. How close to the truth each is, is bench/accuracy's (HTTP2=1):
        # judged against the target's exact holds, on a host that is not running other suites.
        with Target(delay="fixed:30") as slow:
            path = write_scenario(f"""
local http = require "stampede.http"
return {{ options = {{ vus = 2, iterations = 2 }},
         run = function(vu) http.get("{slow.url}/api/posts", {{ http2 = vu.id % 2 == 0, name = vu.id % 2 == 0 and "h2" or "h1" }}) end }}
""")
            r = run(["run", path])
        self.assertEqual(r.code, 0, r)
        h2, h1 = r.metric("http.request.h2"), r.metric("http.request.h1")
        for row in (h2, h1):
            self.assertEqual(row["count"], 1, r)  # one iteration in each VU
            self.assertGreaterEqual(row["p50"], 30.0, r)

    def test_curl_cross_checks_the_target(self):
        def curl(*args):
            return subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_version} %{http_code}", *args],
                                  capture_output=True, text=True, timeout=20)

        http1 = curl(f"{self.target.url}/api/posts")
        h2c = curl("--http2-prior-knowledge", f"{self.target.url}/api/posts")
        h2 = curl("--http2", "-k", f"{self.tls_url}/api/posts")
        self.assertTrue(http1.stdout.endswith("\n1.1 200"), http1)
        self.assertTrue(h2c.stdout.endswith("\n2 200"), h2c)
        self.assertTrue(h2.stdout.endswith("\n2 200"), h2)
        body = http1.stdout.rsplit("\n", 1)[0]
        self.assertEqual(h2c.stdout.rsplit("\n", 1)[0], body)
        self.assertEqual(h2.stdout.rsplit("\n", 1)[0], body)
        # HEAD and a POST body over h2 too.
        head = subprocess.run(["curl", "-s", "-I", "--http2", "-k", f"{self.tls_url}/api/posts"],
                              capture_output=True, text=True, timeout=20)
        self.assertRegex(head.stdout, r"^HTTP/2 200")
        self.assertRegex(head.stdout, r"(?m)^content-length: \d+")
        posted = curl("--http2-prior-knowledge", "-H", "content-type: application/json", "--data",
                      '{"title":"curl"}', f"{self.target.url}/api/posts")
        self.assertTrue(posted.stdout.endswith("\n2 201"), posted)
        # The TLS listener speaks HTTP/2 only: a client that offers only HTTP/1.1 is refused in
        # the handshake (curl's exit 35: SSL connect error).
        refused = curl("--http1.1", "-k", f"{self.tls_url}/api/posts")
        self.assertEqual(refused.returncode, 35, refused)

    def test_a_batch_over_h2_uses_one_connection_and_over_http1_several(self):
        # Concurrency as the server saw it, not as a clock measured it: past one request in
        # flight, this target holds each further one 1 s longer (--capacity 1:1000), and its
        # truth is the holds it gave. Concurrent, the five over HTTP/2 and the three over
        # HTTP/1.1 make 4 + 2 long holds of the 10; one after the other, none would.
        with Target(delay="fixed:200", extra=("--capacity", "1:1000")) as slow:
            r, seen = self.observe(f"""
  local urls = {{}}
  for i = 1, 5 do urls[i] = "{slow.url}/api/posts/" .. i end
  local t0 = stampede.now()
  local h2 = http.batch(urls)
  local t1 = stampede.now()
  local h1 = http.batch({{ {{ "GET", urls[1], {{ http2 = false }} }}, {{ "GET", urls[2], {{ http2 = false }} }},
                         {{ "GET", urls[3], {{ http2 = false }} }} }})
  local t2 = stampede.now()
  local one_at_a_time = http.batch({{ urls[1], urls[2] }}, {{ parallel = 1 }})
  local t3 = stampede.now()
  local out = {{ h2_ms = t1 - t0, h1_ms = t2 - t1, serial_ms = t3 - t2, h2 = {{}}, h1 = {{}} }}
  for i, res in ipairs(h2) do out.h2[i] = summary(res) end
  for i, res in ipairs(h1) do out.h1[i] = summary(res) end
  report(out)
""", options='vus = 1, iterations = 1, http2 = true')
            truth = slow.truth()
        self.assertEqual(r.code, 0, r)
        out = seen[0]
        # In order, and each over its protocol.
        self.assertEqual([x["url"] for x in out["h2"]], [f"{slow.url}/api/posts/{i}" for i in range(1, 6)])
        self.assertTrue(all(x["proto"] == "HTTP/2" and x["status"] in (200, 404) for x in out["h2"]), out)
        self.assertTrue(all(x["proto"] == "HTTP/1.1" for x in out["h1"]), out)
        self.assertEqual(r.metric("http.request")["count"], 10, r)
        self.assertEqual(truth["count"], 10, truth)
        # Concurrent: at least six of the ten held past 1.2 s (the five over HTTP/2 on one
        # connection, the three over HTTP/1.1 on three: all but the first of each batch), so
        # the median (the 5th of 10) is a long hold; with parallel = 1 the last two came one
        # after the other (at least two holds of 200 ms on Stampede's clock: a lower bound).
        self.assertGreaterEqual(truth["p50_ms"], 1200, truth)
        self.assertGreaterEqual(out["serial_ms"], 400, out)

    def test_1000_vus_over_h2_with_zero_errors(self):
        path = write_scenario(f"""
local http = require "stampede.http"
local stampede = require "stampede"
return {{ options = {{ stages = {{ {{ "2s", 1000 }}, {{ "3s", 1000 }} }}, graceful_stop = "60s",
                       http2 = true, insecure = true }},
         run = function(vu)
           local res = http.get("{self.tls_url}/api/posts")
           stampede.check("h2 200", res.status == 200 and res.proto == "HTTP/2")
           stampede.sleep("500ms")
         end }}
""")
        r = run(["run", path, "--quiet"], timeout=120)
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        # Every VU started at least one iteration, and the graceful stop let every one end:
        # not how many a second (that depends on the cores this run was given), but that
        # nothing was lost.
        self.assertGreaterEqual(r.metric("http.request")["count"], 1000, r)
        self.assertRegex(r.out, r"requests: (\d+) sent, \1 completed, 0 failed, 0 in flight at the end")
        self.assertRegex(r.out, r"\nvus\s+max 1000 ")
        self.assertRegex(r.out, r"h2 200\s+100\.00%")


class AgainstNodeHttp2(Http2Scenarios):
    """Node's core http2 module: an implementation we did not write, h2c and TLS."""

    @classmethod
    def setUpClass(cls):
        cls.cert = make_certificate(temp_dir())

    def exercise(self, base):
        """The same script over h2c and TLS; returns what it saw."""
        r, seen = self.observe(f"""
  local base = "{base}"
  local echo = http.get(base .. "/echo", {{ headers = {{ ["X-Custom"] = "Yes", Connection = "keep-alive" }} }})
  local upload = http.post(base .. "/upload", {{ body = string.rep("0123456789", 100000) }})
  local big = http.get(base .. "/big?bytes=20000000")
  local gz = http.get(base .. "/gzip")
  http.get(base .. "/cookie")
  local redirected = http.get(base .. "/redirect?to=/echo")
  local head = http.head(base .. "/big?bytes=1000")
  local batch = http.batch({{ base .. "/slow?ms=300", base .. "/slow?ms=300", base .. "/slow?ms=300", base .. "/slow?ms=300" }})
  local stats = http.get(base .. "/stats")
  local ok = 0
  for _, res in ipairs(batch) do if res.status == 200 and res.proto == "HTTP/2" then ok = ok + 1 end end
  report({{ echo = summary(echo), upload = summary(upload), big = summary(big), gz = summary(gz),
           redirected = summary(redirected), head = summary(head), batch_ok = ok, stats = stats.body,
           gunzipped = gz.body == string.rep("compressed ", 1000) and gz.headers["content-encoding"] == "gzip",
           big_fill = big.body:sub(1, 26) == "abcdefghijklmnopqrstuvwxyz" and big.body:sub(-1) == string.char(97 + (20000000 - 1) % 26) }})
""", options='vus = 1, iterations = 1, http2 = true, insecure = true')
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        return seen[0]

    def check_exercise(self, seen):
        echo = json.loads(seen["echo"]["body"])
        self.assertEqual(seen["echo"]["proto"], "HTTP/2")
        self.assertEqual(echo["version"], "2.0")
        self.assertEqual(echo["headers"]["x-custom"], "Yes")
        self.assertNotIn("connection", echo["headers"])  # HTTP/2 forbids it: left out
        self.assertEqual(echo["headers"]["user-agent"], "stampede/0.1")
        # 1 MB up through the server's 64 KiB windows, 20 MB down through ours.
        self.assertEqual(json.loads(seen["upload"]["body"])["length"], 1000000)
        self.assertEqual(seen["big"]["length"], 20000000)
        self.assertTrue(seen["big_fill"])
        self.assertTrue(seen["gunzipped"], seen["gz"])
        redirected = json.loads(seen["redirected"]["body"])
        self.assertTrue(seen["redirected"]["url"].endswith("/echo"))
        self.assertEqual(redirected["headers"]["cookie"], "h2=yes")
        self.assertEqual((seen["head"]["status"], seen["head"]["length"]), (200, 0))
        self.assertEqual(seen["batch_ok"], 4)
        # The four /slow requests were open at the same time: four streams.
        self.assertEqual(json.loads(seen["stats"])["max_open_slow"], 4)

    def test_h2c(self):
        with NodeH2() as node:
            self.check_exercise(self.exercise(node.url))

    def test_tls(self):
        with NodeH2(tls=self.cert) as node:
            self.check_exercise(self.exercise(node.url))

    def test_more_requests_than_the_servers_stream_limit_wait_and_none_fails(self):
        with NodeH2("--max-streams", "2") as node:
            r, seen = self.observe(f"""
  local urls = {{}}
  for i = 1, 8 do urls[i] = "{node.url}/slow?ms=100" end
  local t0 = stampede.now()
  local all = http.batch(urls)
  local ok = 0
  for _, res in ipairs(all) do if res.status == 200 then ok = ok + 1 end end
  report({{ ok = ok, ms = stampede.now() - t0, stats = http.get("{node.url}/stats").body }})
""", options='vus = 1, iterations = 1, http2 = true')
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        self.assertEqual(seen[0]["ok"], 8, seen)
        self.assertEqual(json.loads(seen[0]["stats"])["max_open_slow"], 2, seen)
        self.assertGreaterEqual(seen[0]["ms"], 400, seen)  # four rounds of two

    def test_resets_and_goaways_are_errors_with_their_code(self):
        with NodeH2() as node:
            r, seen = self.observe(f"""
  local base = "{node.url}"
  local out = {{}}
  out.refused = summary(http.get(base .. "/rst?code=7"))
  out.cancel = summary(http.get(base .. "/rst?code=8"))
  http.get(base .. "/echo")  -- so that the next stream is not the connection's first
  out.calm = summary(http.get(base .. "/goaway?code=11&times=1"))
  out.after = summary(http.get(base .. "/echo"))
  out.closed = summary(http.get(base .. "/destroy"))
  out.stalled = summary(http.get(base .. "/stall", {{ timeout = "300ms" }}))
  out.still_fine = summary(http.get(base .. "/echo"))
  report(out)
""", options='vus = 1, iterations = 1, http2 = true')
        self.assertEqual(r.code, 0, r)
        out = seen[0]
        self.assertEqual(out["refused"]["reason"], "rst_stream REFUSED_STREAM", out)
        self.assertEqual(out["cancel"]["reason"], "rst_stream CANCEL", out)
        self.assertEqual(out["calm"]["reason"], "goaway ENHANCE_YOUR_CALM", out)
        self.assertIn("without processing the request", out["calm"]["error"])
        self.assertEqual(out["after"]["status"], 200, out)  # on a new connection
        self.assertEqual(out["closed"]["reason"], "closed", out)
        self.assertEqual(out["stalled"]["reason"], "timeout", out)
        self.assertEqual(out["still_fine"]["status"], 200, out)
        reasons = r.reasons("http.request.errors")
        for reason in ("rst_stream REFUSED_STREAM", "rst_stream CANCEL", "goaway ENHANCE_YOUR_CALM", "closed",
                       "timeout"):
            self.assertEqual(reasons.get(reason), 1, r)

    def test_a_graceful_goaway_sends_the_unprocessed_request_again(self):
        with NodeH2() as node:
            r, seen = self.observe(f"""
  http.get("{node.url}/echo")
  report(summary(http.get("{node.url}/goaway?code=0&times=1")))
""", options='vus = 1, iterations = 1, http2 = true')
        self.assertEqual(r.code, 0, r)
        self.assertEqual((seen[0]["status"], seen[0]["body"]), (200, "after goaway"), seen)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        self.assertIn("requests: 2 sent, 2 completed", r.out)  # the retry is the same request


class AgainstMisbehavingServers(Http2Scenarios):
    def one_request(self, server_url, timeout="2s"):
        r, seen = self.observe(f"""
  report(summary(http.get("{server_url}/x", {{ timeout = "{timeout}" }})))
""", options='vus = 1, iterations = 1, http2 = true')
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 1, r)
        return seen[0]

    def test_garbage(self):
        def garbage(conn):
            read_preface(conn)
            conn.sendall(b"\x17\x03\x03 this is not HTTP/2 at all" * 8)
            hold_open(conn)

        with RawServer(garbage) as server:
            seen = self.one_request(server.url)
        self.assertEqual(seen["reason"], "protocol", seen)
        self.assertIn("HTTP/2", seen["error"])

    def test_an_http1_server_answering_prior_knowledge(self):
        def http1(conn):
            read_preface(conn)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            conn.close()

        with RawServer(http1) as server:
            seen = self.one_request(server.url)
        self.assertEqual(seen["reason"], "protocol", seen)
        self.assertIn("answered in HTTP/1", seen["error"])

    def test_closed_before_answering(self):
        with RawServer(lambda conn: conn.close()) as server:
            seen = self.one_request(server.url)
        self.assertIn(seen["reason"], ("closed", "reset"), seen)

    def test_half_a_response_then_closed(self):
        def half(conn):
            read_preface(conn)
            conn.sendall(SETTINGS + SETTINGS_ACK + HEADERS_200 + frame(0, 0, 1, b"half a bo"))
            # A FIN, then whatever the client still sends (its SETTINGS ack, a WINDOW_UPDATE)
            # is read until it closes: closing with those unread, or with them arriving after
            # the close, would answer them with a reset, which the client rightly calls one.
            conn.shutdown(socket.SHUT_WR)
            hold_open(conn)
            conn.close()

        with RawServer(half) as server:
            seen = self.one_request(server.url)
        self.assertEqual(seen["reason"], "closed", seen)
        self.assertIn("before the response was complete", seen["error"])

    def test_a_body_shorter_than_its_content_length(self):
        def short(conn):
            read_preface(conn)
            conn.sendall(SETTINGS + SETTINGS_ACK + HEADERS_200_LENGTH_10 + frame(0, 1, 1, b"abc"))
            hold_open(conn)

        with RawServer(short) as server:
            seen = self.one_request(server.url)
        self.assertEqual(seen["reason"], "protocol", seen)

    def test_a_server_that_resets_the_stream(self):
        def reset(conn):
            read_preface(conn)
            conn.sendall(SETTINGS + SETTINGS_ACK + frame(3, 0, 1, (2).to_bytes(4, "big")))  # INTERNAL_ERROR
            hold_open(conn)

        with RawServer(reset) as server:
            seen = self.one_request(server.url)
        self.assertEqual(seen["reason"], "rst_stream INTERNAL_ERROR", seen)

    def test_a_server_that_stalls(self):
        def stall(conn):
            read_preface(conn)
            conn.sendall(SETTINGS)
            hold_open(conn)

        with RawServer(stall) as server:
            seen = self.one_request(server.url, timeout="300ms")
        self.assertEqual(seen["reason"], "timeout", seen)


class FallsBackToHttp1(Http2Scenarios):
    def test_a_tls_server_without_h2_gets_http1(self):
        cert = make_certificate(temp_dir())
        connections = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                body = b"hello over " + self.request_version.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            def get_request(self):
                conn, addr = super().get_request()
                connections.append(addr)
                return conn, addr

        server = Server(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*cert)  # no ALPN: the server agrees on nothing
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"https://127.0.0.1:{server.server_address[1]}"
            r, seen = self.observe(f"""
  local out = {{}}
  for i = 1, 3 do out[i] = summary(http.get("{url}/")) end
  report(out)
""", options='vus = 1, iterations = 1, http2 = true, insecure = true')
        finally:
            server.shutdown()
            server.server_close()
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("http.request.errors")["count"], 0, r)
        for res in seen[0]:
            self.assertEqual((res["status"], res["proto"], res["body"]), (200, "HTTP/1.1", "hello over HTTP/1.1"), seen)
        # The h2 attempt's connection, then one keep-alive HTTP/1.1 connection for all three:
        # the origin is remembered as HTTP/1.1 only.
        self.assertEqual(len(connections), 2, connections)


class BadInput(Http2Scenarios):
    def test_option_mistakes_are_reported(self):
        path = write_scenario("""
return { options = { vus = 1, duration = "1s", http2 = "yes" }, run = function() end }
""")
        r = run(["run", path])
        self.assertEqual(r.code, 2, r)
        self.assertIn("options.http2: expected true or false", r.err + r.out)
        r, seen = self.observe("""
  local ok, err = pcall(http.get, "http://127.0.0.1:1/", { http2 = 1 })
  report({ err = tostring(err) })
  ok, err = pcall(http.batch, {})
  report({ err = tostring(err) })
  ok, err = pcall(http.batch, { 42 })
  report({ err = tostring(err) })
  ok, err = pcall(http.batch, { "http://127.0.0.1:1/" }, { parallel = 0 })
  report({ err = tostring(err) })
  ok, err = pcall(http.batch, { "http://127.0.0.1:1/" }, { paralel = 2 })
  report({ err = tostring(err) })
""")
        self.assertEqual(r.code, 0, r)
        errors = [line["err"] for line in seen]
        self.assertIn("http2 is true or false, not a number", errors[0])
        self.assertIn("give at least one request", errors[1])
        self.assertIn("request 1 is a URL or { method, url, options }, not a number", errors[2])
        self.assertIn("parallel is how many requests may be in flight at once", errors[3])
        self.assertIn("unknown option paralel", errors[4])


if __name__ == "__main__":
    main()
