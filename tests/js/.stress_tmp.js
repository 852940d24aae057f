const WebSocket = require("ws");
const port = Number(process.argv[2]);
const N = 200, MSGS = 30;
let open = 0, received = 0, replies = 0;
const sockets = [];
function done() {
  console.log(`received ${received} broadcasts (expected ${N * MSGS * N}), replies ${replies}`);
  // half close abruptly, half cleanly
  sockets.forEach((s, i) => i % 2 ? s.terminate() : s.close(1000));
  setTimeout(() => process.exit(0), 500);
}
for (let i = 0; i < N; i++) {
  const s = new WebSocket(`ws://127.0.0.1:${port}/socket/websocket?vsn=2.0.0&user_id=u${i}`);
  sockets.push(s);
  s.on("open", () => {
    s.send(JSON.stringify(["1", "1", "room:storm", "phx_join", {}]));
    s.send(JSON.stringify(["2", "2", "presence:storm", "phx_join", {}]));
  });
  let joined = false;
  s.on("message", data => {
    const [jr, ref, topic, event] = JSON.parse(data.toString());
    if (event === "phx_reply" && ref === "1" && !joined) {
      joined = true;
      if (++open === N) sockets.forEach(t => { for (let m = 0; m < MSGS; m++) t.send(JSON.stringify(["1", String(10 + m), "room:storm", "new_msg", {m}])); });
    } else if (event === "new_msg") {
      if (++received === N * MSGS * N) done();
    } else if (event === "phx_reply" && topic === "room:storm") replies++;
  });
}
setTimeout(() => { console.log("timeout", received, replies); done(); }, 60000);
