"""stampede.socketio end to end against the real npm socket.io 4 server (over the WebSocket
transport, and opening by long-polling then upgrading): namespaces, events, acks both ways,
binary attachments both ways, several arguments, disconnect reasons, pings; and against
misbehaving Engine.IO servers (each an error with a reason, never a hang)."""
import json
import unittest
import urllib.request

from harness import run, write_scenario, main
from node_peer import NodePeer


def scenario(body):
    """One VU runs `body` once (a count of iterations: the run ends when it has)."""
    return write_scenario(f"""
local sio = require "stampede.socketio"
local stampede = require "stampede"
local json = require "stampede.json"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function(vu)
{body}
         end }}
""")


FLOW = """
  local io = sio.connect(URL .. "/chat", { transport = TRANSPORT, auth = { token = "t" } })
  stampede.check("namespace from the URL", io.namespace == "/chat" and #io.id > 0)
  local ack = io:emit("message", { text = "hi" }, { ack = true })
  stampede.check("ack", ack.ok == true and ack.echo.text == "hi")
  local msg = io:await("message", { match = function(m) return m.text == "hi" end })
  stampede.check("event", msg.text == "hi")
  stampede.check("several arguments", io:emit("sum", sio.args(2, 3), { ack = true }) == 5)
  local b = io:emit("binary", sio.binary("\\1\\2\\3\\0\\255"), { ack = true })
  stampede.check("binary out", b.size == 5 and b.first == 1)
  local r = io:await("binary")
  stampede.check("binary in", r == "\\255\\0\\3\\2\\1")
  io:emit("multi")
  local first, m = io:await("multi")
  stampede.check("multi", first == 1 and m.args[2] == "two" and m.args[3].three == 3)
  io:emit("ask")
  local _, q = io:await("question")
  io:ack(q, sio.args("42", sio.binary("xy")))
  local a, am = io:await("answered")
  stampede.check("server's ack request answered", a == "42" and am.args[2] == "xy")
  stampede.sleep(800)  -- heartbeats: the server pings every 200 ms and wants a pong within 300
  stampede.check("alive after pings", io:connected())
  local root = io:of("/")
  stampede.check("second namespace, same connection", root:emit("sum", sio.args(1, 1), { ack = true }) == 2)
  root:emit("broadcast", "hello all")
  stampede.check("broadcast", root:await("news") == "hello all")
  root:disconnect()
  stampede.check("left", not root:connected() and root:disconnect_reason() == "io client disconnect")
  stampede.check("the other namespace stays", io:connected())
  local ok, err = pcall(io.await, io, "nothing", { timeout = "200ms" })
  stampede.check("await timeout", not ok and err.kind == "timeout")
  io:emit("kick")
  local ok2, err2 = pcall(io.await, io, "nothing", { timeout = "3s" })
  stampede.check("server disconnect", not ok2 and err2.kind == "closed" and err2.reason == "io server disconnect")
  local ok3, err3 = pcall(sio.connect, URL, { namespace = "/chat", auth = { token = "bad" }, transport = TRANSPORT })
  stampede.check("refused namespace", not ok3 and err3.kind == "connect_error" and err3.reason == "connect_error"
    and tostring(err3):find("not authorized", 1, true) ~= nil)
  local c = sio.connect(URL, { transport = TRANSPORT })
  c:close()
  stampede.check("client close", c:disconnect_reason() == "io client disconnect")
  local ok4 = pcall(c.emit, c, "message", "late")
  stampede.check("emit after close is an error", not ok4)
"""


class SocketIo(unittest.TestCase):
    def assertChecksPass(self, r, at_least):
        self.assertEqual(r.code, 0, r)
        rows = [line for line in r.out.split("\nchecks\n", 1)[1].splitlines() if "%" in line and line.startswith("  ")]
        self.assertGreaterEqual(len(rows), at_least, r)
        for line in rows:
            self.assertIn("100.00%", line, r)
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def flow(self, transport):
        with NodePeer("socketio_server.js", "--ping-interval", "200", "--ping-timeout", "300") as peer:
            body = f'  local URL, TRANSPORT = "{peer.url}", "{transport}"\n' + FLOW
            r = run(["run", scenario(body), "--quiet"])
            with urllib.request.urlopen(peer.url + "/stats") as f:
                stats = json.loads(f.read())
        self.assertChecksPass(r, 18)
        self.assertEqual(stats["connections"], 0, stats)  # nothing left open
        self.assertEqual(r.metric("socketio.emit")["count"], 4, r)
        self.assertGreaterEqual(r.metric("socketio.messages")["count"], 6, r)
        self.assertRegex(r.out, r"\n\s+io server disconnect\s+1\n", r)
        self.assertRegex(r.out, r"\n\s+connect_error\s+1\n", r)
        return r

    def test_websocket_transport_against_socket_io(self):
        r = self.flow("websocket")
        self.assertRegex(r.out, r"\nhttp\.request\s+0\s", r)  # no HTTP request at all

    def test_polling_handshake_then_upgrade_against_socket_io(self):
        r = self.flow("polling")
        self.assertEqual(r.metric("http.request")["count"], 3, r)  # one handshake GET per connection

    def test_misbehaving_servers_cost_an_error_with_a_reason(self):
        cases = {"/garbage/": "parse error", "/silent/": "timeout", "/noping/": "ping timeout",
                 "/badsio/": "parse error", "/drop/": "transport close"}
        with NodePeer("socketio_server.js") as peer:
            body = "\n".join(f"""
  do
    local ok, err = pcall(function()
      local s = sio.connect("{peer.url}", {{ path = "{path}", timeout = "1s" }})
      return s:await("x", {{ timeout = "2s" }})
    end)
    stampede.check("{path} fails", not ok and err.reason == "{reason}")
  end""" for path, reason in cases.items())
            body += f"""
  local ok, err = pcall(sio.connect, "http://127.0.0.1:1", {{ timeout = "1s" }})
  stampede.check("refused", not ok and err.kind == "connect_error" and err.reason == "refused")
  local ok2 = pcall(sio.connect, "{peer.url}", {{ transport = "carrier pigeon" }})
  stampede.check("bad transport option", not ok2)
"""
            r = run(["run", scenario(body), "--quiet"], timeout=60)
        self.assertChecksPass(r, 7)
        self.assertRegex(r.out, r"\n\s+parse error\s+2\n", r)
        for reason in ["ping timeout", "transport close", "timeout", "refused"]:
            self.assertRegex(r.out, rf"\n\s+{reason}\s+1\n", r)


if __name__ == "__main__":
    main()
