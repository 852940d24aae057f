"""The options every WebSocket-based connect shares (scenario/lua_modules: socket_options_arg):
`headers` on channels.connect and websocket.connect reach the server in the upgrade request,
in either form ({name = value} or {{name, value}, ...}, numbers as text), and a `headers` that
is not a table is an error naming the function, as it is for http."""
from harness import RecordingWsServerCase, main


class SocketConnectOptions(RecordingWsServerCase):
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
