// Reference encodings for tests/unit/proto/engine_io_test.cpp and socket_io_test.cpp, produced
// by the real npm packages (versions in package.json). Run from a scratch directory that has
// them installed, never from the repo:
//   npm install --prefix /tmp/vectors engine.io-parser@5.2.3 socket.io-parser@4.2.7 engine.io@6.6.13
//   NODE_PATH=/tmp/vectors/node_modules node generate.cjs
// Prints one JSON object per line: {what, bytes (JSON-escaped text) or hex, ...}.
const eio = require("engine.io-parser");
const sio = require("socket.io-parser");
const http = require("http");
const engine = require("engine.io");

const out = (what, fields) => console.log(JSON.stringify({ what, ...fields }));
const hex = (buf) => Buffer.from(buf).toString("hex");

// ---- engine.io-parser ------------------------------------------------------------------
const packets = [
  { type: "open", data: '{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}' },
  { type: "close" },
  { type: "ping" },
  { type: "ping", data: "probe" },
  { type: "pong", data: "probe" },
  { type: "message", data: "hello é" },
  { type: "message", data: "" },
  { type: "upgrade" },
  { type: "noop" },
  { type: "message", data: Buffer.from([1, 2, 3, 255]) },
];
for (const p of packets) {
  eio.encodePacket(p, true, (ws) => {
    eio.encodePacket(p, false, (polling) => {
      out("eio.packet", {
        type: p.type,
        data: typeof p.data === "string" ? p.data : p.data ? hex(p.data) : null,
        binary: Buffer.isBuffer(p.data),
        websocket: typeof ws === "string" ? ws : hex(ws),
        websocket_binary: typeof ws !== "string",
        polling,
      });
    });
  });
}
eio.encodePayload(
  [
    { type: "message", data: "hello" },
    { type: "message", data: Buffer.from([1, 2, 3, 4]) },
    { type: "ping" },
    { type: "message", data: '42["chat","hi"]' },
  ],
  (payload) => out("eio.payload", { payload }),
);
for (const payload of ["4hello\x1ebAQIDBA==\x1e2", "", "4a\x1e9x\x1e4b", "bAQID"]) {
  out("eio.decodePayload", { payload, packets: eio.decodePayload(payload, "nodebuffer").map((p) => ({ type: p.type, data: Buffer.isBuffer(p.data) ? hex(p.data) : p.data })) });
}

// ---- socket.io-parser ------------------------------------------------------------------
const encoder = new sio.Encoder();
const T = sio.PacketType;
const sioPackets = [
  { type: T.CONNECT, nsp: "/" },
  { type: T.CONNECT, nsp: "/admin", data: { token: "123" } },
  { type: T.CONNECT, nsp: "/", data: { sid: "oSO0OpakMV_3jnilAAAA" } },
  { type: T.DISCONNECT, nsp: "/admin" },
  { type: T.EVENT, nsp: "/", data: ["chat message", "hi"] },
  { type: T.EVENT, nsp: "/chat", data: ["join", { room: 42, tags: ["a", "b"] }] },
  { type: T.EVENT, nsp: "/", id: 12, data: ["ping", 1, true, null] },
  { type: T.EVENT, nsp: "/", data: [7, "numeric event"] },
  { type: T.ACK, nsp: "/", id: 12, data: ["pong"] },
  { type: T.ACK, nsp: "/chat", id: 3, data: [] },
  { type: T.CONNECT_ERROR, nsp: "/", data: { message: "Not authorized" } },
  { type: T.CONNECT_ERROR, nsp: "/admin", data: "Invalid namespace" },
  { type: T.EVENT, nsp: "/", data: ["upload", Buffer.from([0xde, 0xad, 0xbe, 0xef])] },
  { type: T.EVENT, nsp: "/files", id: 9, data: ["two", { a: Buffer.from("first"), b: [Buffer.from([0, 1, 2])] }] },
  { type: T.ACK, nsp: "/", id: 5, data: [Buffer.from([9, 8, 7])] },
];
for (const p of sioPackets) {
  const copy = JSON.parse(JSON.stringify({ ...p, data: undefined }));
  const encoded = encoder.encode({ ...p });
  out("sio.encode", {
    packet: { ...copy, data: p.data === undefined ? undefined : JSON.parse(JSON.stringify(p.data, (k, v) => (v && v.type === "Buffer" ? { buffer: hex(v.data) } : v))) },
    text: encoded[0],
    attachments: encoded.slice(1).map(hex),
  });
}
// What the decoder refuses (the message each throws).
for (const bad of ["", "7", "2chat,[\"a\"]", "2[\"connect\"]", "2{}", "0[]", "1{}", "3{}", "4[1]", "5-[\"a\"]", "50-[\"a\"]", "511-[\"a\"]", "2[\"a\"", "2/chat,x"]) {
  const decoder = new sio.Decoder();
  let result;
  try {
    decoder.on("decoded", (p) => (result = { decoded: p }));
    decoder.add(bad);
    if (!result) result = { waiting: true };
  } catch (e) {
    result = { error: e.message };
  }
  out("sio.decode", { text: bad, ...result });
}
// The reassembler: a whole binary event, then a placeholder past the attachments, then text
// where an attachment was awaited.
for (const [text, buffers] of [
  ['52-/files,9["two",{"a":{"_placeholder":true,"num":0},"b":[{"_placeholder":true,"num":1}]}]', [Buffer.from("first"), Buffer.from([0, 1, 2])]],
  ['51-["x",{"_placeholder":true,"num":1}]', [Buffer.from([1])]],
  ['52-["x"]', ["2[\"y\"]"]],
]) {
  const decoder = new sio.Decoder();
  let result;
  try {
    decoder.on("decoded", (p) => (result = { type: p.type, nsp: p.nsp, id: p.id, data: JSON.parse(JSON.stringify(p.data, (k, v) => (v && v.type === "Buffer" ? { buffer: hex(v.data) } : v))) }));
    decoder.add(text);
    for (const b of buffers) decoder.add(b);
  } catch (e) {
    result = { error: e.message };
  }
  out("sio.reconstruct", { text, result });
}

// ---- a real engine.io server's polling handshake and payloads over loopback --------------
const server = http.createServer();
const eioServer = engine.attach(server, { pingInterval: 25000, pingTimeout: 20000, maxHttpBufferSize: 1e6 });
eioServer.on("connection", (socket) => {
  socket.send("hello from the server");
  socket.send(Buffer.from([1, 2, 3]));
});
server.listen(0, "127.0.0.1", () => {
  const port = server.address().port;
  const get = (path) =>
    new Promise((resolve) => http.get({ host: "127.0.0.1", port, path }, (res) => {
      let body = "";
      res.setEncoding("latin1");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body }));
    }));
  (async () => {
    const open = await get("/engine.io/?EIO=4&transport=polling");
    out("eio.server.open", open);
    const sid = JSON.parse(open.body.slice(1)).sid;
    const next = await get(`/engine.io/?EIO=4&transport=polling&sid=${sid}`);
    out("eio.server.poll", next);
    eioServer.close();
    server.close();
  })();
});
