"""The options every WebSocket-based connect shares (scenario/lua_modules: socket_options_arg):
`headers` on channels.connect and websocket.connect reach the server in the upgrade request,
in either form ({name = value} or {{name, value}, ...}, numbers as text), and a `headers` that
is not a table is an error naming the function, as it is for http."""
import threading
import unittest

from harness import WsServer, run, write_scenario, main


class HeadRecorder:
    """A WebSocket server that keeps each upgrade request's head and holds the connection
    open until the client closes."""

    def __init__(self):
        self.heads = []
        self.lock = threading.Lock()
        self.server = WsServer(self.behaviour)
        self.url = self.server.url

    def behaviour(self, conn, head):
        with self.lock:
            self.heads.append(head.lower())
        conn.settimeout(10)
        while conn.recv(4096):
            pass

    def close(self):
        self.server.close()


def scenario(body):
    return write_scenario(f"""
local channels = require "stampede.channels"
local websocket = require "stampede.websocket"
local stampede = require "stampede"
return {{ options = {{ vus = 1, duration = "10s", graceful_stop = "0s" }},
         run = function(vu)
{body}
           stampede.sleep("20s")
         end }}
""")


class SocketConnectOptions(unittest.TestCase):
    def setUp(self):
        self.server = HeadRecorder()

    def tearDown(self):
        self.server.close()

    def run_body(self, body):
        return run(["run", scenario(body), "--quiet", "--duration", "1s"], timeout=60)

    def test_headers_reach_the_server_in_both_forms(self):
        r = self.run_body(f"""
  channels.connect("{self.server.url}/socket", {{ heartbeat = false, headers = {{ ["x-tenant"] = "acme", ["x-shard"] = 7 }} }})
  websocket.connect("{self.server.url}/", {{ headers = {{ {{"x-trace", "a"}}, {{"x-trace", "b"}} }} }})""")
        self.assertNotIn("error", r.err.lower(), r)
        self.assertEqual(len(self.server.heads), 2, r)
        channel_head = next(h for h in self.server.heads if "/socket/websocket" in h)
        plain_head = next(h for h in self.server.heads if "/socket/websocket" not in h)
        self.assertIn("x-tenant: acme\r\n", channel_head)
        self.assertIn("x-shard: 7\r\n", channel_head)
        self.assertIn("x-trace: a\r\n", plain_head)
        self.assertIn("x-trace: b\r\n", plain_head)

    def test_headers_that_are_not_a_table_name_the_function(self):
        r = self.run_body(f"""
  channels.connect("{self.server.url}/socket", {{ headers = "x-tenant: acme" }})""")
        self.assertIn("channels.connect: headers must be a table", r.out + r.err, r)
        self.assertEqual(self.server.heads, [], r)


if __name__ == "__main__":
    main()
