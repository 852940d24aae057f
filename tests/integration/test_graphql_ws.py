"""stampede.graphql_ws end to end against the real servers: the npm graphql-ws server
(graphql-transport-ws) and subscriptions-transport-ws's SubscriptionServer (the legacy
graphql-ws subprotocol), both with the npm `graphql` schema executor; and against misbehaving
servers (each an error with a reason, never a hang)."""
import unittest

from harness import run, write_scenario, main
from node_peer import NodePeer


def scenario(body):
    """One VU runs `body` once (a count of iterations: the run ends when it has)."""
    return write_scenario(f"""
local gql = require "stampede.graphql_ws"
local stampede = require "stampede"
local json = require "stampede.json"
return {{ options = {{ vus = 1, iterations = 1 }},
         run = function(vu)
{body}
         end }}
""")


FLOW = """
  local c = gql.connect(URL, { subprotocol = SUB, payload = { token = "t" } })
  stampede.check("open", c:is_open())
  local id = c:subscribe("subscription ($n: Int!) { countdown(from: $n) }", { variables = { n = 2 } })
  local got = {}
  for i = 1, 3 do got[i] = c:await(id, { timeout = "2s" }).data.countdown end
  stampede.check("next results in order", table.concat(got, ",") == "2,1,0")
  local ok, err = pcall(c.await, c, id, { timeout = "1s" })
  stampede.check("complete", not ok and err.kind == "complete")
  stampede.check("finished", c:finished(id))
  stampede.check("query", c:query('query { hello(name: "x") }').data.hello == "hello x")
  local p = c:subscribe("subscription { postAdded { id title } }")
  stampede.sleep(100)
  c:query('mutation { addPost(title: "t1") { id } }')
  c:query('mutation { addPost(title: "t2") { id } }')
  local post = c:await(p, { match = function(r) return r.data.postAdded.title == "t2" end })
  stampede.check("match skips, keeps", post.data.postAdded.title == "t2"
    and c:await(p).data.postAdded.title == "t1")
  c:unsubscribe(p)
  local b = c:subscribe("subscription { boom }")
  local ok2, err2 = pcall(c.await, c, b)
  stampede.check("operation error", not ok2 and err2.kind == "graphql_error" and json.encode(err2.response):find("boom on purpose", 1, true) ~= nil)
  local t = c:subscribe("subscription { ticks(ms: 20) }")
  stampede.check("ticks", c:await(t).data.ticks == 0 and c:await(t).data.ticks == 1)
  c:unsubscribe(t)
  c:close()
  stampede.check("closed", not c:is_open())
  local ok3, err3 = pcall(gql.connect, URL, { subprotocol = SUB, payload = { token = "bad" } })
  stampede.check("refused init", not ok3 and err3.kind == "connect_error" and err3.reason == REFUSED)
"""


class GraphqlWs(unittest.TestCase):
    def assertChecksPass(self, r, at_least):
        self.assertEqual(r.code, 0, r)
        rows = [line for line in r.out.split("\nchecks\n", 1)[1].splitlines() if "%" in line and line.startswith("  ")]
        self.assertGreaterEqual(len(rows), at_least, r)
        for line in rows:
            self.assertIn("100.00%", line, r)
        self.assertEqual(r.metric("iteration.errors")["count"], 0, r)

    def flow(self, path, sub, refused, *flags):
        with NodePeer("graphql_server.js", *flags) as peer:
            body = f'  local URL, SUB, REFUSED = "{peer.ws_url}{path}", "{sub}", "{refused}"\n' + FLOW
            return run(["run", scenario(body), "--quiet"])

    def test_graphql_transport_ws_against_the_graphql_ws_package(self):
        r = self.flow("/graphql", "graphql-transport-ws", "closed 4403", "--ping", "100")
        self.assertChecksPass(r, 10)
        self.assertGreaterEqual(r.metric("graphql.messages")["count"], 7, r)
        self.assertEqual(r.metric("graphql.subscribe")["count"], 7, r)
        self.assertRegex(r.out, r"\n\s+error\s+1\n", r)

    def test_legacy_graphql_ws_against_subscriptions_transport_ws(self):
        r = self.flow("/legacy", "graphql-ws", "connection_error")
        self.assertChecksPass(r, 10)
        self.assertRegex(r.out, r"\n\s+connection_error\s+1\n", r)

    def test_misbehaving_servers_cost_an_error_with_a_reason(self):
        cases = {"garbage": "protocol", "binary": "protocol", "silent": "ack timeout"}
        with NodePeer("graphql_server.js") as peer:
            body = "\n".join(f"""
  do
    local ok, err = pcall(gql.connect, "{peer.ws_url}/{path}", {{ timeout = "1s" }})
    stampede.check("{path} fails", not ok and err.kind == "connect_error" and err.reason == "{reason}")
  end""" for path, reason in cases.items())
            body += f"""
  local c = gql.connect("{peer.ws_url}/slam")
  local ok, err = pcall(c.await, c, "1", {{ timeout = "3s" }})
  stampede.check("server close wakes await", not ok and err.kind == "closed")
  local ok2 = pcall(gql.connect, "{peer.ws_url}/graphql", {{ subprotocol = "nope" }})
  stampede.check("bad subprotocol option", not ok2)
  local ok3, err3 = pcall(gql.connect, "{peer.ws_url}/nowhere", {{ timeout = "1s" }})
  stampede.check("refused upgrade", not ok3 and err3.kind == "connect_error")
"""
            r = run(["run", scenario(body), "--quiet"], timeout=60)
        self.assertChecksPass(r, 6)
        self.assertRegex(r.out, r"\n\s+protocol\s+2\n", r)
        self.assertRegex(r.out, r"\n\s+ack timeout\s+1\n", r)
        self.assertIn("closed 4500", r.out, r)  # the reason names the server's close code


if __name__ == "__main__":
    main()
