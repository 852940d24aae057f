// Checks `stampede target` with the OFFICIAL phoenix JS client (npm "phoenix", installed in
// tests/js/node_modules): if phoenix.js is happy with our server, real browsers will be.
//
//   node phoenix_client_check.js --port 4000                    a target already listening
//   node phoenix_client_check.js --bin build/stampede --port 0  starts one, stops it at the end
//   ... --transport longpoll                                    over phoenix.js's LongPoll
//                                                               (/socket/longpoll, fetch in Node)
//
// One line per check ("ok - ..." or "not ok - ..."), for both serializers (V2, phoenix.js's
// default, and V1 through the encode/decode options). Exits 1 on any failure, and fails
// as a whole after a hard timeout.
"use strict";

const {spawn} = require("child_process");
const net = require("net");
const {Socket, Presence, LongPoll} = require("phoenix");
const WebSocket = require("ws");

const HARD_TIMEOUT_MS = 60000;
const STEP_TIMEOUT_MS = 5000;

function parseArgs(argv) {
  const args = {port: null, bin: null, transport: "websocket"};
  for (let i = 2; i < argv.length; i++) {
    if (argv[i] === "--port") args.port = Number(argv[++i]);
    else if (argv[i] === "--bin") args.bin = argv[++i];
    else if (argv[i] === "--transport") args.transport = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (usage: --port N [--bin path/to/stampede] [--transport websocket|longpoll])`);
  }
  if (args.transport !== "websocket" && args.transport !== "longpoll") throw new Error("--transport: websocket or longpoll");
  if (args.port === null || Number.isNaN(args.port)) throw new Error("--port is required");
  return args;
}

// phoenix.js 1.8 speaks V2; these make it speak V1 (vsn=1.0.0): one JSON object per message,
// as phoenix.js 1.x did. Phoenix never sends join_ref to V1 clients.
const v1Serializer = {
  encode(msg, callback) {
    return callback(JSON.stringify({topic: msg.topic, event: msg.event, payload: msg.payload, ref: msg.ref, join_ref: msg.join_ref}));
  },
  decode(raw, callback) {
    return callback(JSON.parse(raw));
  },
};

let failures = 0;
function report(ok, name, detail) {
  if (ok) {
    console.log(`ok - ${name}`);
  } else {
    failures++;
    console.log(`not ok - ${name}${detail ? ": " + detail : ""}`);
  }
}

// Resolves with what `start(resolve, reject)` resolves, or rejects after STEP_TIMEOUT_MS.
function step(name, start) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
    start(
      value => { clearTimeout(timer); resolve(value); },
      error => { clearTimeout(timer); reject(error instanceof Error ? error : new Error(`${name}: ${JSON.stringify(error)}`)); });
  });
}

async function check(name, body) {
  try {
    await body();
    report(true, name);
  } catch (e) {
    report(false, name, e.message);
  }
}

function assertEqual(actual, expected, what) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: got ${a}, expected ${e}`);
}

let TRANSPORT = WebSocket;

function openSocket(port, vsn, params) {
  const opts = {transport: TRANSPORT, params, heartbeatIntervalMs: 200, reconnectAfterMs: () => 60000, rejoinAfterMs: () => 60000};
  if (vsn === "1.0.0") Object.assign(opts, {vsn, encode: v1Serializer.encode, decode: v1Serializer.decode});
  const socket = new Socket(`ws://127.0.0.1:${port}/socket`, opts);
  return step("connect", (resolve, reject) => {
    socket.onOpen(() => resolve(socket));
    socket.onError(error => reject(new Error(`socket error: ${error && error.message ? error.message : error}`)));
    socket.connect();
  });
}

function join(channel) {
  return step(`join ${channel.topic}`, (resolve, reject) => {
    channel.join()
      .receive("ok", resolve)
      .receive("error", reply => reject(new Error(`join refused: ${JSON.stringify(reply)}`)))
      .receive("timeout", () => reject(new Error("join timed out")));
  });
}

function push(channel, event, payload) {
  return step(`push ${event}`, (resolve, reject) => {
    channel.push(event, payload)
      .receive("ok", resolve)
      .receive("error", reply => reject(new Error(`error reply: ${JSON.stringify(reply)}`)))
      .receive("timeout", () => reject(new Error("push timed out")));
  });
}

async function checkSerializer(port, vsn) {
  const tag = `vsn ${vsn}`;
  const alice = await openSocket(port, vsn, {token: "anything", user_id: `alice-${vsn}`});
  const bob = await openSocket(port, vsn, {token: "anything", user_id: `bob-${vsn}`});
  const lobbyA = alice.channel("room:lobby", {hello: "join-params"});
  const lobbyB = bob.channel("room:lobby", {});

  await check(`${tag}: join room:lobby is ok`, async () => {
    assertEqual(await join(lobbyA), {}, "join response");
    await join(lobbyB);
  });

  await check(`${tag}: push ping gets receive("ok") with the payload`, async () => {
    assertEqual(await push(lobbyA, "ping", {n: 42, s: "x"}), {n: 42, s: "x"}, "ping response");
  });

  await check(`${tag}: new_msg is broadcast to the second socket and replied ok`, async () => {
    const heard = step("broadcast", resolve => lobbyB.on("new_msg", resolve));
    assertEqual(await push(lobbyA, "new_msg", {body: `hello from ${vsn}`}), {}, "new_msg response");
    const message = await heard;
    assertEqual(message.body, `hello from ${vsn}`, "broadcast body");
    assertEqual(message.user_id, `alice-${vsn}`, "broadcast user_id");
  });

  await check(`${tag}: crash makes the channel call onError`, async () => {
    const crashme = alice.channel("room:crashme", {});
    await join(crashme);
    const errored = step("onError", resolve => crashme.onError(resolve));
    crashme.push("crash", {});
    await errored;
    crashme.leave();
  });

  await check(`${tag}: room:private refuses with {reason: "unauthorized"}`, async () => {
    const privateRoom = alice.channel("room:private", {});
    const reply = await step("refused join", (resolve, reject) => {
      privateRoom.join()
        .receive("ok", () => reject(new Error("the join was accepted")))
        .receive("error", resolve);
    });
    assertEqual(reply, {reason: "unauthorized"}, "refusal");
    privateRoom.leave();
  });

  await check(`${tag}: Presence onSync lists both users`, async () => {
    const presenceA = alice.channel("presence:lobby", {});
    const presenceB = bob.channel("presence:lobby", {});
    const tracker = new Presence(presenceA);
    const synced = step("presence sync", resolve => {
      tracker.onSync(() => {
        const users = tracker.list(id => id).sort();
        if (users.length === 2) resolve(users);
      });
    });
    await join(presenceA);
    await join(presenceB);
    assertEqual(await synced, [`alice-${vsn}`, `bob-${vsn}`], "users");
    const left = step("presence leave", resolve => {
      tracker.onSync(() => {
        const users = tracker.list(id => id);
        if (users.length === 1) resolve(users);
      });
    });
    presenceB.leave();
    assertEqual(await left, [`alice-${vsn}`], "users after bob left");
    presenceA.leave();
  });

  await check(`${tag}: Absinthe doc gets a subscriptionId, then subscription:data`, async () => {
    const control = alice.channel("__absinthe__:control", {});
    await join(control);
    const data = step("subscription:data", resolve => {
      alice.onMessage(message => { if (message.event === "subscription:data") resolve(message); });
    });
    const reply = await push(control, "doc", {query: "subscription { ticked { n } }", variables: {interval_ms: 50}});
    if (!/^__absinthe__:doc:\d+:[0-9A-F]{64}$/.test(reply.subscriptionId)) throw new Error(`subscriptionId ${reply.subscriptionId}`);
    const message = await data;
    assertEqual(message.topic, reply.subscriptionId, "data topic");
    assertEqual(message.payload.subscriptionId, reply.subscriptionId, "payload subscriptionId");
    assertEqual(message.payload.result, {data: {ticked: {seq: 1}}}, "result");
    await push(control, "unsubscribe", {subscriptionId: reply.subscriptionId});
    control.leave();
  });

  // Binary frames do not exist on LongPoll: phoenix.js posts an ArrayBuffer as base64 text,
  // which Phoenix reads as a (broken) text frame.
  if (vsn === "2.0.0" && TRANSPORT !== LongPoll) {
    await check(`${tag}: binary push (ArrayBuffer) gets a binary reply with the same bytes`, async () => {
      const bytes = new Uint8Array([0, 1, 2, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff]);
      const reply = await push(lobbyA, "binary", bytes.buffer);
      if (!(reply instanceof ArrayBuffer)) throw new Error(`reply is ${Object.prototype.toString.call(reply)}`);
      assertEqual(Array.from(new Uint8Array(reply)), Array.from(bytes), "reply bytes");
    });
  }

  if (TRANSPORT === LongPoll) {
    await check(`${tag}: the sockets really poll /socket/longpoll`, async () => {
      if (!(alice.conn instanceof LongPoll)) throw new Error(`the transport is ${alice.conn && alice.conn.constructor.name}`);
      if (!/\/socket\/longpoll\?/.test(alice.conn.pollEndpoint)) throw new Error(`polls ${alice.conn.pollEndpoint}`);
      if (!alice.conn.token) throw new Error("no session token");
    });
  }

  await check(`${tag}: heartbeats are answered (still connected after several)`, async () => {
    await new Promise(resolve => setTimeout(resolve, 700));
    if (!alice.isConnected()) throw new Error("the socket closed");
  });

  await check(`${tag}: leave gets receive("ok")`, async () => {
    await step("leave", resolve => lobbyA.leave().receive("ok", resolve));
    lobbyB.leave();
  });

  alice.disconnect();
  bob.disconnect();
}

function waitForPort(port, deadline) {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const probe = net.connect(port, "127.0.0.1");
      probe.once("connect", () => { probe.destroy(); resolve(); });
      probe.once("error", () => {
        probe.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on port ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function freePort() {
  return new Promise(resolve => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function main() {
  const args = parseArgs(process.argv);
  let target = null;
  if (args.bin) {
    if (args.port === 0) args.port = await freePort();
    target = spawn(args.bin, ["target", "--listen", `127.0.0.1:${args.port}`], {stdio: ["ignore", "ignore", "inherit"]});
  }
  const hardTimeout = setTimeout(() => {
    console.log(`not ok - the checks did not finish within ${HARD_TIMEOUT_MS} ms`);
    if (target) target.kill("SIGTERM");
    process.exit(1);
  }, HARD_TIMEOUT_MS);
  if (args.transport === "longpoll") TRANSPORT = LongPoll;
  try {
    await waitForPort(args.port, Date.now() + 10000);
    await checkSerializer(args.port, "2.0.0");
    // phoenix.js's Socket ignores the encode/decode options with LongPoll (socket.js: the
    // default, V2, encoder always): V1 over LongPoll is not a phoenix.js combination.
    if (TRANSPORT !== LongPoll) await checkSerializer(args.port, "1.0.0");
  } catch (e) {
    report(false, "setup", e.message);
  }
  clearTimeout(hardTimeout);
  if (target) target.kill("SIGTERM");
  console.log(failures === 0 ? "all checks passed" : `${failures} check(s) failed`);
  process.exit(failures === 0 ? 0 : 1);
}

main();
