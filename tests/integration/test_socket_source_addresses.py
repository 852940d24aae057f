"""`local_addresses` on one socket: channels.connect and websocket.connect bind each new
connection to the next of the socket's own source addresses (on loopback, any 127.x
address is ours), instead of the run's --local-addresses. The server records the peer
address of every connection it accepts."""
from harness import RecordingWsServerCase, main


class SocketSourceAddresses(RecordingWsServerCase):
    def test_channels_connect_takes_its_own_addresses_in_turn(self):
        r = self.run_body(f"""
  local sockets = {{}}
  for i = 1, 4 do
    sockets[i] = channels.connect("{self.server.url}/socket",
                                  {{ local_addresses = "127.0.0.2-127.0.0.3", heartbeat = false }})
  end""")
        self.assertNotIn("error", r.err.lower(), r)
        self.assertEqual(sorted(self.server.peers), ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3"], r)

    def test_websocket_connect_takes_a_list(self):
        r = self.run_body(f"""
  local a = websocket.connect("{self.server.url}/", {{ local_addresses = {{ "127.0.0.7", "127.0.0.9" }} }})
  local b = websocket.connect("{self.server.url}/", {{ local_addresses = {{ "127.0.0.7", "127.0.0.9" }} }})
  local c = websocket.connect("{self.server.url}/")""")
        self.assertNotIn("error", r.err.lower(), r)
        self.assertEqual(sorted(self.server.peers), ["127.0.0.1", "127.0.0.7", "127.0.0.9"], r)

    def test_a_bad_address_names_the_function_and_the_address(self):
        r = self.run_body(f"""
  channels.connect("{self.server.url}/socket", {{ local_addresses = "127.0.0.300" }})""")
        self.assertIn('channels.connect: local_addresses: "127.0.0.300" is not an IP address', r.out + r.err, r)
        self.assertEqual(self.server.peers, [], r)


if __name__ == "__main__":
    main()
