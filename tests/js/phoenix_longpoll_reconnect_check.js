// The official phoenix.js client (its LongPoll transport) against `stampede target
// --longpoll-session-lifetime`: the target's 410 after it dropped a session must be what
// phoenix.js reconnects from (a close 3410 "session_gone", a new session, the channel
// rejoined) and pushes must go on being answered. Usage: node phoenix_longpoll_reconnect_check.js --port N
// Prints "ok - ..." / "not ok - ..." lines and "all checks passed"; exit 1 on a failure.
const {Socket, LongPoll} = require("phoenix");

const HARD_TIMEOUT_MS = 20000;

const port = Number(process.argv[process.argv.indexOf("--port") + 1]);
if (!port) throw new Error("--port is required");

let failures = 0;
function report(ok, name, detail) {
  if (ok) console.log(`ok - ${name}`);
  else {
    failures++;
    console.log(`not ok - ${name}${detail ? ": " + detail : ""}`);
  }
}

const socket = new Socket(`http://127.0.0.1:${port}/socket`, {transport: LongPoll, params: {user_id: "js"}});
let opens = 0;
const closes = [];
const tokens = new Set();
socket.onOpen(() => {
  opens++;
  if (socket.conn && socket.conn.token) tokens.add(socket.conn.token);
});
socket.onClose((event) => closes.push(`${event.code} ${event.reason}`));
socket.connect();
const channel = socket.channel("room:lobby", {});
let joins = 0;
let answeredAfterRejoin = 0;
channel.join().receive("ok", () => joins++);

const pusher = setInterval(() => {
  if (!channel.isJoined()) return;
  const joinsThen = joins;
  channel.push("ping", {n: joinsThen}).receive("ok", (reply) => {
    if (joinsThen >= 3 && reply.n === joinsThen) answeredAfterRejoin++;
  });
}, 50);

const started = Date.now();
const poll = setInterval(() => {
  const done = joins >= 3 && answeredAfterRejoin >= 3;
  if (!done && Date.now() - started < HARD_TIMEOUT_MS) return;
  clearInterval(poll);
  clearInterval(pusher);
  report(closes.includes("3410 session_gone"), "phoenix.js read the target's 410 as session_gone", JSON.stringify(closes));
  report(opens >= 3, "and reconnected (a new session each time)", `opened ${opens} times`);
  report(tokens.size >= 3, "with a new token each time", `${tokens.size} tokens`);
  report(joins >= 3, "the channel rejoined after each reconnect", `joined ${joins} times`);
  report(answeredAfterRejoin >= 3, "pushes after the rejoins were answered", `${answeredAfterRejoin} answered`);
  socket.disconnect();
  if (failures === 0) console.log("all checks passed");
  setTimeout(() => process.exit(failures === 0 ? 0 : 1), 50);
}, 50);
