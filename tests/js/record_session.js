// A person's session on the built-in target's pages, in real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core): counter clicks, the posts form (typed
// keystroke by keystroke, validate, submit, live redirect), patch navigation, a component
// event, an upload, and a chat over Phoenix Channels with the page's own phoenix.js.
//
//   node record_session.js har BASE_URL OUT.har   # captures a HAR from the DevTools protocol
//   node record_session.js proxy BASE_URL         # just browses BASE_URL (a recording proxy)
//
// The HAR is built the way DevTools' "Save all as HAR with content" builds it: one entry per
// request (redirect hops included) from Network.requestWillBeSent / responseReceived /
// getResponseBody, and per WebSocket the frames of Network.webSocketFrameSent/Received as
// `_webSocketMessages` ({type: send|receive, time: epoch seconds, opcode, data}).
// The target serves no phoenix JS bundles of its own: they come from the npm packages.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const {chromium} = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const [mode, base, harPath] = process.argv.slice(2);
const BUNDLES = {
  "/assets/phoenix.min.js": path.join(__dirname, "node_modules/phoenix/priv/static/phoenix.min.js"),
  "/assets/phoenix_live_view.min.js": path.join(__dirname, "node_modules/phoenix_live_view/priv/static/phoenix_live_view.min.js"),
};

function headerList(headers) {
  return Object.entries(headers || {}).map(([name, value]) => ({name, value: String(value)}));
}

class HarRecorder {
  constructor(cdp) {
    this.cdp = cdp;
    this.entries = new Map();  // requestId -> entry being built
    this.done = [];
    this.sockets = new Map();
    this.clock = null;         // wallTime - timestamp (seconds)
    cdp.on("Network.requestWillBeSent", (e) => this.onRequest(e));
    cdp.on("Network.responseReceived", (e) => this.onResponse(e));
    cdp.on("Network.loadingFinished", (e) => this.onFinished(e));
    cdp.on("Network.loadingFailed", (e) => this.onFinished(e, true));
    cdp.on("Network.webSocketCreated", (e) => this.sockets.set(e.requestId, {url: e.url, messages: []}));
    cdp.on("Network.webSocketWillSendHandshakeRequest", (e) => {
      const s = this.sockets.get(e.requestId);
      if (s) { s.started = e.wallTime; s.headers = e.request.headers; }
      this.clock = e.wallTime - e.timestamp;
    });
    cdp.on("Network.webSocketHandshakeResponseReceived", (e) => {
      const s = this.sockets.get(e.requestId);
      if (s) { s.status = e.response.status; s.responseHeaders = e.response.headers; }
    });
    const frame = (type) => (e) => {
      const s = this.sockets.get(e.requestId);
      if (!s || this.clock === null) return;
      s.messages.push({type, time: this.clock + e.timestamp, opcode: e.response.opcode, data: e.response.payloadData});
    };
    cdp.on("Network.webSocketFrameSent", frame("send"));
    cdp.on("Network.webSocketFrameReceived", frame("receive"));
  }
  onRequest(e) {
    this.clock = e.wallTime - e.timestamp;
    const previous = this.entries.get(e.requestId);
    if (previous && e.redirectResponse) {  // a redirect hop ends here, with its own response
      previous.response = this.response(e.redirectResponse);
      this.done.push(previous);
    }
    const r = e.request;
    const entry = {
      startedDateTime: new Date(e.wallTime * 1000).toISOString(), time: 0, _resourceType: (e.type || "other").toLowerCase(),
      request: {method: r.method, url: r.url, httpVersion: "HTTP/1.1", headers: headerList(r.headers), queryString: [],
                cookies: [], headersSize: -1, bodySize: r.postData ? r.postData.length : 0},
      response: {status: 0, statusText: "", httpVersion: "HTTP/1.1", headers: [], cookies: [],
                 content: {size: 0, mimeType: ""}, redirectURL: "", headersSize: -1, bodySize: -1},
      cache: {}, timings: {send: 0, wait: 0, receive: 0}, _ts: e.timestamp,
    };
    if (r.postData !== undefined) {
      entry.request.postData = {mimeType: r.headers["Content-Type"] || r.headers["content-type"] || "", text: r.postData};
    }
    this.entries.set(e.requestId, entry);
  }
  response(res) {
    return {status: res.status, statusText: res.statusText || "", httpVersion: "HTTP/1.1", headers: headerList(res.headers),
            cookies: [], content: {size: 0, mimeType: res.mimeType || ""}, redirectURL: "", headersSize: -1, bodySize: -1};
  }
  onResponse(e) {
    const entry = this.entries.get(e.requestId);
    if (entry) entry.response = this.response(e.response);
  }
  async onFinished(e, failed) {
    const entry = this.entries.get(e.requestId);
    if (!entry) return;
    this.entries.delete(e.requestId);
    entry.time = Math.max(0, (e.timestamp - entry._ts) * 1000);
    delete entry._ts;
    if (!failed && /html|json|text\/plain/.test(entry.response.content.mimeType)) {
      try {
        const body = await this.cdp.send("Network.getResponseBody", {requestId: e.requestId});
        entry.response.content.text = body.body;
        if (body.base64Encoded) entry.response.content.encoding = "base64";
      } catch (error) { /* evicted: leave the body out, as DevTools does */ }
    }
    this.done.push(entry);
  }
  har() {
    const entries = [...this.done];
    for (const entry of this.entries.values()) { delete entry._ts; entries.push(entry); }
    for (const s of this.sockets.values()) {
      entries.push({
        startedDateTime: new Date((s.started || s.messages[0]?.time || Date.now() / 1000) * 1000).toISOString(), time: 0,
        _resourceType: "websocket",
        request: {method: "GET", url: s.url, httpVersion: "HTTP/1.1", headers: headerList(s.headers), queryString: [],
                  cookies: [], headersSize: -1, bodySize: 0},
        response: {status: s.status || 101, statusText: "Switching Protocols", httpVersion: "HTTP/1.1",
                   headers: headerList(s.responseHeaders), cookies: [], content: {size: 0, mimeType: "x-unknown"},
                   redirectURL: "", headersSize: -1, bodySize: 0},
        cache: {}, timings: {send: 0, wait: 0, receive: 0}, _webSocketMessages: s.messages});
    }
    entries.sort((a, b) => a.startedDateTime.localeCompare(b.startedDateTime));
    return {log: {version: "1.2", creator: {name: "WebInspector", version: "537.36"}, pages: [], entries}};
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function connected(page) {
  await page.waitForSelector("[data-phx-main].phx-connected", {timeout: 15000});
  await pause(300);
}

async function session(page) {
  await page.goto(base + "/counter");
  await connected(page);
  await page.click("#inc");
  await page.waitForFunction(() => document.body.innerText.includes("1"));
  await pause(300);
  await page.click("#inc");
  await pause(400);

  await page.goto(base + "/posts/new");
  await connected(page);
  await page.type("input[name='post[title]']", "Recorded post", {delay: 30});
  await pause(300);
  await page.click("#post-form button[type=submit]");
  await page.waitForURL(/\/posts$/, {timeout: 15000});
  await connected(page);

  await page.click("#next");
  await page.waitForURL(/page=2/, {timeout: 15000});
  await pause(400);

  await page.goto(base + "/components");
  await connected(page);
  await page.click("#clicker-btn");
  await pause(400);

  await page.goto(base + "/upload");
  await connected(page);
  await page.setInputFiles("input[name=avatar]", {name: "photo.bin", mimeType: "application/octet-stream",
                                                  buffer: Buffer.alloc(100000, 7)});
  await pause(400);
  await page.click("#upload-form button[type=submit]");
  await page.waitForFunction(() => document.body.innerText.includes("photo.bin"), null, {timeout: 15000});
  await pause(400);

  // A chat over Phoenix Channels, with the page's own phoenix.js (the target has no chat page).
  const reply = await page.evaluate(() => new Promise((resolve, reject) => {
    const socket = new Phoenix.Socket("/socket", {params: {user_id: "browser"}});
    socket.connect();
    const channel = socket.channel("room:lobby", {});
    channel.join().receive("ok", () => {
      channel.on("new_msg", () => setTimeout(() => resolve("broadcast"), 200));
      channel.push("new_msg", {body: "hello from Chromium"}).receive("error", reject);
    }).receive("error", reject);
    setTimeout(() => reject(new Error("no broadcast")), 10000);
  }));
  if (reply !== "broadcast") throw new Error("the chat did not answer");
  await pause(300);
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "stampede-record-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  await context.route("**/assets/phoenix*.min.js", (route) => {
    const file = BUNDLES[new URL(route.request().url()).pathname];
    return file ? route.fulfill({status: 200, contentType: "text/javascript", body: fs.readFileSync(file)}) : route.continue();
  });
  const page = context.pages()[0] || (await context.newPage());
  const errors = [];
  page.on("pageerror", (error) => errors.push(error.message));
  let recorder = null;
  if (mode === "har") {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    recorder = new HarRecorder(cdp);
  }
  await session(page);
  await pause(500);
  if (recorder) {
    fs.writeFileSync(harPath, JSON.stringify(recorder.har(), null, 1));
    console.log(`wrote ${harPath}: ${recorder.done.length} requests, ${recorder.sockets.size} sockets`);
  }
  await context.close();
  if (errors.length) throw new Error("page errors: " + errors.join("; "));
  console.log("session done");
}

main().then(() => process.exit(0), (error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
