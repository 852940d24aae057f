// Reference frames for tests/unit/proto/graphql_ws_test.cpp: the real clients talking to the
// real servers of both subprotocols over loopback WebSockets, every frame recorded as it went
// (versions in package.json). Run from a scratch directory that has them installed, never from
// the repo:
//   npm install --prefix /tmp/vectors graphql-ws@6.4.2 subscriptions-transport-ws@0.11.0 graphql@16 ws@8
//   NODE_PATH=/tmp/vectors/node_modules node generate.cjs
// Prints one JSON object per line: {protocol, dir: "client"|"server", frame}.
const { WebSocket, WebSocketServer } = require("ws");
const { GraphQLSchema, GraphQLObjectType, GraphQLString, GraphQLInt, execute, subscribe } = require("graphql");
const { createClient } = require("graphql-ws");
const { useServer } = require("graphql-ws/use/ws");
const { SubscriptionClient } = require("subscriptions-transport-ws");
const { SubscriptionServer } = require("subscriptions-transport-ws");

const log = (protocol, dir, frame) => console.log(JSON.stringify({ protocol, dir, frame: String(frame) }));

// A WebSocket that records what it sends and receives.
const recording = (protocol) =>
  class extends WebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => log(protocol, "server", e.data));
    }
    send(data, ...rest) {
      log(protocol, "client", data);
      return super.send(data, ...rest);
    }
  };

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: "Query",
    fields: {
      hello: { type: GraphQLString, args: { name: { type: GraphQLString } }, resolve: (_, { name }) => `hello ${name}` },
      boom: { type: GraphQLString, resolve: () => { throw new Error("boom"); } },
    },
  }),
  subscription: new GraphQLObjectType({
    name: "Subscription",
    fields: {
      count: {
        type: GraphQLInt,
        args: { to: { type: GraphQLInt } },
        subscribe: async function* (_, { to }) {
          for (let i = 1; i <= to; i++) {
            if (i > 1) await new Promise((resolve) => setTimeout(resolve, 20));
            yield { count: i };
          }
        },
      },
    },
  }),
});

const listen = (wss) => new Promise((resolve) => wss.on("listening", () => resolve(wss.address().port)));

async function transportWs() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  const port = await listen(wss);
  const server = useServer({ schema }, wss);
  const client = createClient({
    url: `ws://127.0.0.1:${port}`,
    webSocketImpl: recording("graphql-transport-ws"),
    connectionParams: { authToken: "secret" },
    lazy: false,
    keepAlive: 50,  // the client pings, the server pongs
  });
  const run = (payload) => new Promise((resolve) => {
    const results = [];
    client.subscribe(payload, { next: (r) => results.push(r), error: (e) => resolve(e), complete: () => resolve(results) });
  });
  await run({ query: "subscription Count($to: Int) { count(to: $to) }", variables: { to: 2 }, operationName: "Count" });
  await run({ query: "{ hello(name: \"é\") }" });
  await run({ query: "{ boom }" });
  await run({ query: "{ nope }" });
  await new Promise((resolve) => setTimeout(resolve, 80));  // one ping
  // A subscription the client stops before it ends.
  await new Promise((resolve) => {
    const stop = client.subscribe({ query: "subscription { count(to: 5) }" }, {
      next: () => { stop(); setTimeout(resolve, 100); }, error: resolve, complete: () => {},
    });
  });
  await client.dispose();
  await server.dispose();
  wss.close();
}

async function legacyWs() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  const port = await listen(wss);
  const server = new SubscriptionServer(
    { schema, execute, subscribe, keepAlive: 50, onConnect: (params) => { if (params.authToken !== "secret") throw new Error("bad token"); return {}; } },
    wss,
  );
  const client = new SubscriptionClient(`ws://127.0.0.1:${port}`, { connectionParams: { authToken: "secret" } }, recording("graphql-ws"));
  const run = (request) => new Promise((resolve) => {
    const results = [];
    client.request(request).subscribe({ next: (r) => results.push(r), error: resolve, complete: () => resolve(results) });
  });
  await run({ query: "subscription Count($to: Int) { count(to: $to) }", variables: { to: 2 }, operationName: "Count" });
  await run({ query: "{ hello(name: \"é\") }" });
  await run({ query: "{ boom }" });
  await run({ query: "{ nope }" });
  await new Promise((resolve) => setTimeout(resolve, 80));  // one keep-alive
  await new Promise((resolve) => {
    const sub = client.request({ query: "subscription { count(to: 5) }" }).subscribe({
      next: () => { sub.unsubscribe(); setTimeout(resolve, 100); },
    });
  });
  client.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // A refused connection.
  const refused = new SubscriptionClient(`ws://127.0.0.1:${port}`, { connectionParams: { authToken: "wrong" } }, recording("graphql-ws"));
  await new Promise((resolve) => setTimeout(resolve, 200));
  refused.close();
  server.close();
}

(async () => {
  await transportWs();
  await legacyWs();
  process.exit(0);
})();
