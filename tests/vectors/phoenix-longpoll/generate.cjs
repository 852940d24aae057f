// Reference requests for tests/unit/proto/phoenix_longpoll_test.cpp: the official phoenix.js
// LongPoll transport (npm `phoenix`, the versions in package.json) driven through a recorded
// session against a stand-in XMLHttpRequest that answers as Phoenix.Transports.LongPoll does.
// Run from a scratch directory that has the package installed, never from the repo:
//   npm install --prefix /tmp/vectors phoenix@1.8.16
//   npm install --prefix /tmp/vectors17 phoenix@1.7.23
//   node generate.cjs /tmp/vectors/node_modules/phoenix /tmp/vectors17/node_modules/phoenix
// Prints one JSON object per line: {phoenix, method, url, headers, body} for each request.
const versions = process.argv.slice(2);

const pending = [];  // requests waiting for an answer
class FakeXHR {
  constructor() { this.headers = {}; this.readyState = 0; }
  open(method, url) { this.method = method; this.url = url; }
  setRequestHeader(k, v) { this.headers[k] = v; }
  send(body) { pending.push(this); this.body = body; }
  abort() {}
  answer(json) {
    this.readyState = 4;
    this.responseText = JSON.stringify(json);
    this.onreadystatechange && this.onreadystatechange();
  }
}
globalThis.XMLHttpRequest = FakeXHR;
globalThis.self = globalThis;  // phoenix.js 1.7 finds its globals through `self` or `window`

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));
const next = async () => { for (let i = 0; i < 100 && pending.length === 0; i++) await tick(); return pending.shift(); };

async function session(dir) {
  const { Socket, LongPoll } = require(dir);
  const version = require(dir + "/package.json").version;
  const record = (req) => console.log(JSON.stringify({ phoenix: version, method: req.method, url: req.url, headers: req.headers, body: req.body ?? null }));

  const socket = new Socket("ws://example.com:4000/socket", {
    transport: LongPoll,
    params: { user_token: "abc 1/2", "a[b]": "ü" },
  });
  socket.connect();
  // 1. the first GET opens a session
  let req = await next();
  record(req);
  req.answer({ messages: [], status: 410, token: "SFMyNTY.g2gDbQ" });
  // 2. the long poll with the token; the client joins meanwhile
  let poll = await next();
  record(poll);
  const channel = socket.channel("room:lobby", { name: "x" });
  channel.join();
  // 3. the join goes out in a POST of its own
  req = await next();
  record(req);
  req.answer({ status: 200 });
  // 4. the poll returns the reply (Phoenix.Transports.LongPoll: a map with string keys)
  poll.answer({
    messages: ['["3","3","room:lobby","phx_reply",{"response":{},"status":"ok"}]'],
    status: 200,
    token: "SFMyNTY.g2gDbQ",
  });
  poll = await next();
  record(poll);
  await tick(20);
  // 5. pushes made in the same tick share one POST, a binary one as base64
  channel.push("new_msg", { body: "line\nbreak" });
  channel.push("bin", new Uint8Array([0, 1, 2, 250]).buffer);
  channel.push("new_msg", { body: "third" });
  req = await next();
  record(req);
  req.answer({ status: 200 });
  poll.answer({
    messages: [
      '["3","4","room:lobby","phx_reply",{"response":{"ok":true},"status":"ok"}]',
      '["3",null,"room:lobby","new_msg",{"body":"hi"}]',
    ],
    status: 200,
    token: "SFMyNTY.g2gDbQ",
  });
  poll = await next();
  record(poll);
  // 6. nothing within the window
  poll.answer({ messages: [], status: 204, token: "SFMyNTY.g2gDbQ" });
  poll = await next();
  record(poll);
  socket.disconnect();
  await tick(20);
  pending.length = 0;
}

(async () => {
  for (const dir of versions) await session(dir);
})();
