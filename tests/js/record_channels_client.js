// A chat with the OFFICIAL phoenix JS client (npm "phoenix") over the `ws` package (which
// offers permessage-deflate, as browsers do), for test_record.py: it talks to whatever URL it
// is given (the recording proxy in front of `stampede target`) and fails unless every reply
// and broadcast arrives as the app sends it.
//
//   node record_channels_client.js ws://127.0.0.1:8080/socket
"use strict";

const {Socket} = require("phoenix");
const WebSocket = require("ws");

const [url] = process.argv.slice(2);
const STEP_TIMEOUT_MS = 5000;

function step(what, body) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
    body((value) => { clearTimeout(timer); resolve(value); }, (error) => { clearTimeout(timer); reject(error); });
  });
}

function push(channel, event, payload) {
  return step(`push ${event}`, (resolve, reject) => {
    channel.push(event, payload).receive("ok", resolve)
      .receive("error", (reply) => reject(new Error(`${event}: error ${JSON.stringify(reply)}`)))
      .receive("timeout", () => reject(new Error(`${event}: timeout`)));
  });
}

async function main() {
  // A token in the params, as apps pass one: the recorder must leave it out of the scenario.
  const socket = new Socket(url, {transport: WebSocket, params: {token: "SFMyNTY.g2gDbQAAAAR1c2Vy.sig", user_id: "node"},
                                  heartbeatIntervalMs: 150, reconnectAfterMs: () => 60000, rejoinAfterMs: () => 60000});
  await step("connect", (resolve, reject) => {
    socket.onOpen(resolve);
    socket.onError((error) => reject(new Error(`socket error: ${error && error.message ? error.message : error}`)));
    socket.connect();
  });
  const channel = socket.channel("room:lobby", {});
  await step("join room:lobby", (resolve, reject) => {
    channel.join().receive("ok", resolve).receive("error", (r) => reject(new Error(`join refused: ${JSON.stringify(r)}`)));
  });
  const pong = await push(channel, "ping", {n: 7});
  if (pong.n !== 7) throw new Error(`ping answered ${JSON.stringify(pong)}`);
  await new Promise((resolve) => setTimeout(resolve, 400));  // a heartbeat or two between actions
  const broadcast = step("the new_msg broadcast", (resolve) => channel.on("new_msg", resolve));
  await push(channel, "new_msg", {body: "hello from node"});
  const message = await broadcast;
  if (message.body !== "hello from node" || message.user_id !== "node") {
    throw new Error(`broadcast ${JSON.stringify(message)}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  await step("leave", (resolve) => channel.leave().receive("ok", resolve));
  socket.disconnect();
  console.log("chat done");
}

main().then(() => process.exit(0), (error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
