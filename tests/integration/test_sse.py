"""stampede.sse end to end: against an independent server on Node's `http` module (chunked
streams, reconnection with Last-Event-ID and retry:, CRLF/CR/BOM), against misbehaving servers
(each an error with a reason, never a hang), and the built-in target's /events checked by the
npm `eventsource` client."""
import json
import os
import subprocess
import unittest
import urllib.request

from harness import Target, run, temp_dir, write_scenario, main
from node_peer import NodePeer, node


def scenario(body):
    """One VU runs `body` once (a count of iterations: the run ends when it has)."""
    return write_scenario(f"""
local sse = require "stampede.sse"
local stampede = require "stampede"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function(vu)
{body}
         end }}
""")


class Sse(unittest.TestCase):
    def assertChecksPass(self, r, at_least=1):
        self.assertEqual(r.code, 0, r)
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)
        rows = [line for line in r.out.split("\nchecks\n", 1)[1].splitlines() if "%" in line and line.startswith("  ")]
        self.assertGreaterEqual(len(rows), at_least, r)
        for line in rows:
            self.assertIn("100.00%", line, r)

    def test_events_reconnection_and_last_event_id_against_node(self):
        with NodePeer("sse_server.js") as peer:
            r = run(["run", scenario(f"""
  local s = sse.connect("{peer.url}/events?count=2&retry=50&event=price", {{ headers = {{ ["X-Test"] = "1" }} }})
  local seen = {{}}
  for i = 1, 5 do
    local ev = s:await({{ event = "price", timeout = "3s" }})
    seen[#seen + 1] = ev.id
    stampede.check("multi-line data", ev.data == "n=" .. ev.id .. "\\nline two")
    stampede.check("type", ev.event == "price")
  end
  stampede.check("ids continue across reconnections", table.concat(seen, ",") == "1,2,3,4,5")
  stampede.check("reconnected twice", s:reconnects() == 2)
  stampede.check("last event id", s:last_event_id() == "5")
  local m = s:await({{ match = function(ev) return ev.id == "6" end, timeout = "3s" }})
  stampede.check("match", m.data:find("n=6", 1, true) == 1)
  s:close()
  local ok, err = pcall(s.await, s, {{ timeout = "1s" }})
  stampede.check("closed", not ok and err.kind == "closed")
"""), "--quiet"])
            with urllib.request.urlopen(peer.url + "/stats") as f:
                stats = json.loads(f.read())
        self.assertChecksPass(r, 6)
        # The server saw the reconnections carry Last-Event-ID, after the server's retry: 50.
        self.assertEqual(stats["last_event_ids"][:3], [None, "2", "4"], stats)
        self.assertEqual(r.metric("sse.events")["count"], 6, r)
        self.assertEqual(r.metric("sse.errors")["count"], 0, r)
        self.assertGreaterEqual(r.metric("sse.connect")["count"], 3, r)

    def test_line_endings_bom_and_comments(self):
        with NodePeer("sse_server.js") as peer:
            r = run(["run", scenario(f"""
  local s = sse.connect("{peer.url}/crlf", {{ reconnect = false }})
  local a, b, c, d = s:await(), s:await(), s:await(), s:await()
  stampede.check("BOM dropped, CRLF", a.event == "first" and a.data == "one")
  stampede.check("lone CRs", b.event == "message" and b.data == "two\\ntwo b")
  stampede.check("field without colon", c.data == "")
  stampede.check("id", d.id == "9" and d.data == "three")
  local ok, err = pcall(s.await, s, {{ timeout = "2s" }})
  stampede.check("end without reconnect", not ok and err.kind == "closed")
"""), "--quiet"])
        self.assertChecksPass(r, 5)
        self.assertEqual(r.metric("sse.errors")["count"], 0, r)

    def test_misbehaving_servers_cost_an_error_with_a_reason(self):
        cases = {
            "garbage": "protocol", "early-close": "closed", "stall": "timeout", "text": "content-type",
            "status500": "status",
        }
        with NodePeer("sse_server.js") as peer:
            body = "\n".join(f"""
  do
    local ok, err = pcall(sse.connect, "{peer.url}/{path}", {{ timeout = "1s" }})
    stampede.check("{path} fails", not ok and err.kind == "connect_error" and err.reason == "{reason}")
  end""" for path, reason in cases.items())
            body += f"""
  local t = sse.connect("{peer.url}/truncated", {{ reconnect = false }})
  stampede.check("whole event kept", t:await().data == "whole")
  local ok, err = pcall(t.await, t, {{ timeout = "2s" }})
  stampede.check("truncated ends", not ok and err.kind == "closed")
  local h = sse.connect("{peer.url}/huge")
  local ok2, err2 = pcall(h.await, h, {{ timeout = "3s" }})
  stampede.check("too big closes", not ok2 and err2.kind == "closed")
  local s = sse.connect("{peer.url}/stall-body")
  local ok3, err3 = pcall(s.await, s, {{ timeout = "500ms" }})
  stampede.check("a silent stream times the await out", not ok3 and err3.kind == "timeout")
"""
            r = run(["run", scenario(body), "--quiet"], timeout=60)
        self.assertChecksPass(r, 8)
        for reason in [*cases.values(), "truncated", "too big"]:
            self.assertRegex(r.out, rf"\n\s+{reason}\s+1\n", r)

    def test_builtin_target_events_with_the_eventsource_package(self):
        with Target() as target:
            # npm eventsource: 6 events across a reconnection the target forces after 3.
            code, out, err = node("eventsource_check.js", f"{target.url}/events?rate=50&count=3&retry=100&event=tick",
                                  "6", "10000", "tick")
            self.assertEqual(code, 0, out + err)
            seen = json.loads(out)
            self.assertEqual([e["lastEventId"] for e in seen["events"]], ["1", "2", "3", "4", "5", "6"], seen)
            self.assertEqual([e["type"] for e in seen["events"]], ["tick"] * 6, seen)
            self.assertEqual(json.loads(seen["events"][4]["data"]), {"n": 5})
            self.assertEqual(seen["opens"], 2, seen)
            # and our client against our target
            r = run(["run", scenario(f"""
  local s = sse.connect("{target.url}/events?rate=100&count=2&retry=20")
  local ids = {{}}
  for i = 1, 4 do ids[i] = s:await({{ timeout = "2s" }}).id end
  stampede.check("target ids", table.concat(ids, ",") == "1,2,3,4")
"""), "--quiet"])
        self.assertChecksPass(r, 1)

    def test_over_tls(self):
        # A self-signed certificate for 127.0.0.1: accepted with insecure = true, refused
        # (reason tls) without it.
        d = temp_dir()
        key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       check=True, capture_output=True)
        with NodePeer("sse_server.js", "--tls", key, cert) as peer:
            url = peer.url.replace("http://", "https://")
            r = run(["run", scenario(f"""
  local s = sse.connect("{url}/events?count=2&retry=20", {{ insecure = true }})
  local ids = {{}}
  for i = 1, 3 do ids[i] = s:await({{ timeout = "3s" }}).id end
  stampede.check("events over TLS, across a reconnection", table.concat(ids, ",") == "1,2,3")
  local ok, err = pcall(sse.connect, "{url}/events", {{ timeout = "3s" }})
  stampede.check("an unknown certificate is refused", not ok and err.reason == "tls")
"""), "--quiet"])
        self.assertChecksPass(r, 2)

    def test_bad_options_are_clear_errors(self):
        with Target() as target:
            r = run(["run", scenario(f"""
  sse.connect("{target.url}/events", {{ headers = {{ ["Last-Event-ID"] = "3" }} }})
""")])
        self.assertIn("Last-Event-ID is the source's own header", r.out, r)


if __name__ == "__main__":
    main()
