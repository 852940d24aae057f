// Independent GraphQL-over-WebSocket servers for Stampede's client tests: the npm graphql-ws
// server (graphql-transport-ws) at /graphql and subscriptions-transport-ws's SubscriptionServer
// (the legacy graphql-ws subprotocol) at /legacy, on one port, both over the npm `ws` package
// with one `graphql` schema.
//
//   node tests/js/graphql_server.js PORT [--ping MS]   (0 picks a free port; prints "listening <port>")
//
// Schema:
//   Query        hello(name): "hello <name>"
//   Mutation     addPost(title): publishes to postAdded
//   Subscription countdown(from): from, from-1, ..., 0, then complete
//                postAdded: every post added by any client
//                ticks(ms): an endless tick every ms
//                boom: an error result
// connection_init payload {token: "bad"} is refused (graphql-ws: closes 4403; legacy:
// connection_error). --ping MS: graphql-ws pings every MS (a server keep-alive).
// Misbehaving paths: /garbage (answers connection_init with text that is not JSON), /silent
// (never acknowledges), /binary (answers with a binary frame), /slam (closes 4500 after the ack).
'use strict';

const http = require('http');
const { WebSocketServer } = require('ws');
const { useServer } = require('graphql-ws/use/ws');
const { SubscriptionServer } = require('subscriptions-transport-ws');
const { buildSchema, execute, subscribe, GraphQLError } = require('graphql');

const port = Number(process.argv[2]);
const pingAt = process.argv.indexOf('--ping');
const pingMs = pingAt > 0 ? Number(process.argv[pingAt + 1]) : 0;

const schema = buildSchema(`
  type Post { id: ID!, title: String }
  type Query { hello(name: String): String }
  type Mutation { addPost(title: String!): Post }
  type Subscription { countdown(from: Int!): Int, postAdded: Post, ticks(ms: Int!): Int, boom: Int }
`);

// A tiny pub/sub: each subscriber an async iterator.
const subscribers = new Set();
let nextPost = 0;
function channel() {
  const queue = [];
  let wake = null;
  const sub = { push(v) { queue.push(v); if (wake) { wake(); wake = null; } } };
  subscribers.add(sub);
  return {
    [Symbol.asyncIterator]() { return this; },
    async next() {
      while (queue.length === 0) await new Promise((r) => { wake = r; });
      return { value: queue.shift(), done: false };
    },
    async return() { subscribers.delete(sub); return { value: undefined, done: true }; },
  };
}

const root = {
  hello: ({ name }) => `hello ${name ?? 'world'}`,
  addPost: ({ title }) => {
    const post = { id: String(++nextPost), title };
    for (const s of subscribers) s.push({ postAdded: post });
    return post;
  },
  countdown: async function* ({ from }) {
    for (let i = from; i >= 0; i--) yield { countdown: i };
  },
  postAdded: () => channel(),
  ticks: async function* ({ ms }) {
    for (let i = 0; ; i++) {
      await new Promise((r) => setTimeout(r, ms));
      yield { ticks: i };
    }
  },
  boom: async function* () {
    throw new GraphQLError('boom on purpose');
  },
};

const server = http.createServer((req, res) => { res.writeHead(404); res.end(); });
const modern = new WebSocketServer({ noServer: true });
const legacy = new WebSocketServer({ noServer: true });
const misbehaving = new WebSocketServer({
  noServer: true,
  handleProtocols: (protocols) => protocols.values().next().value ?? false,
});

useServer({
  schema,
  roots: { query: root, mutation: root, subscription: root },
  onConnect: (ctx) => ctx.connectionParams?.token !== 'bad',
  // graphql-ws resolves subscription fields through the schema's resolvers: give it the roots.
  execute: (args) => execute({ ...args, rootValue: root }),
  subscribe: (args) => subscribe({ ...args, rootValue: root }),
}, modern, pingMs > 0 ? pingMs : 12_000);

SubscriptionServer.create({
  schema,
  execute,
  subscribe,
  rootValue: root,
  onConnect: (params) => {
    if (params && params.token === 'bad') throw new Error('bad token');
    return true;
  },
  keepAlive: 1000,
}, legacy);

misbehaving.on('connection', (socket, req) => {
  const path = new URL(req.url, 'http://x').pathname;
  socket.on('message', (data) => {
    const m = JSON.parse(data.toString());
    if (m.type !== 'connection_init') return;
    if (path === '/garbage') socket.send('this is not json');
    if (path === '/binary') socket.send(Buffer.from([1, 2, 3]), { binary: true });
    if (path === '/slam') {
      socket.send(JSON.stringify({ type: 'connection_ack' }));
      setTimeout(() => socket.close(4500, 'slammed'), 50);
    }
    // /silent: nothing
  });
});

server.on('upgrade', (req, socket, head) => {
  const path = new URL(req.url, 'http://x').pathname;
  const target = path === '/graphql' ? modern : path === '/legacy' ? legacy
    : ['/garbage', '/silent', '/binary', '/slam'].includes(path) ? misbehaving : null;
  if (!target) return socket.destroy();
  target.handleUpgrade(req, socket, head, (ws) => target.emit('connection', ws, req));
});

server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
