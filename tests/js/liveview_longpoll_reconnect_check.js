// phoenix_live_view's own JS client (the npm package's bundle, with phoenix's, in Debian's
// headless Chromium) over LongPoll against the built-in target started with
// --longpoll-session-lifetime: the server loses the session (its held poll answered 410), the
// browser's socket reconnects with a new session, the counter's LiveView rejoins (phx_join with
// the same session and static tokens and _mounts 1), the page shows the remounted count and
// clicks go on. What Stampede's LiveView client does on a reconnect is checked against this.
//
//   node liveview_longpoll_reconnect_check.js --url http://127.0.0.1:PORT [--timeout-ms 20000]
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const fs = require("fs");
const path = require("path");
const {Checks, runCheck, openPage, parseArgs} = require("./browser");

const BUNDLES = {
  "/assets/phoenix.min.js": path.join(__dirname, "node_modules/phoenix/priv/static/phoenix.min.js"),
  "/assets/phoenix_live_view.min.js": path.join(__dirname, "node_modules/phoenix_live_view/priv/static/phoenix_live_view.min.js"),
};
// The target's app.js with LongPoll as the transport from the start (a browser after
// longPollFallbackMs, or an app that sets `transport: LongPoll`).
const APP_JS = `
window.addEventListener("DOMContentLoaded", () => {
  const csrfToken = document.querySelector("meta[name='csrf-token']").getAttribute("content")
  const liveSocket = new LiveView.LiveSocket("/live", Phoenix.Socket, {
    transport: Phoenix.LongPoll,
    params: {_csrf_token: csrfToken}
  })
  liveSocket.connect()
  window.liveSocket = liveSocket
})
`;

async function main() {
  const args = parseArgs(process.argv, ["url", "timeout-ms"]);
  const timeout = Number(args["timeout-ms"] || 20000);
  const origin = new URL(args.url).origin;
  const checks = new Checks();
  const {page, problems, close} = await openPage({allowRequest: (url) => url.startsWith(origin + "/")});
  const sessions = [];  // LongPoll GETs without a token: each opens a session
  const joins = [];     // the phx_join payloads the browser POSTed, in order
  const websockets = [];
  page.on("websocket", (ws) => websockets.push(ws.url()));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.pathname !== "/live/longpoll") return;
    if (request.method() === "GET" && !url.searchParams.has("token")) sessions.push(Date.now());
    if (request.method() !== "POST") return;
    for (const line of (request.postData() || "").split("\n")) {
      try {
        const [, , topic, event, payload] = JSON.parse(line);
        if (event === "phx_join" && topic.startsWith("lv:")) joins.push(payload);
      } catch (_) { /* not a message */ }
    }
  });
  await page.route("**/assets/*.js", (route) => {
    const pathname = new URL(route.request().url()).pathname;
    if (pathname === "/assets/app.js") return route.fulfill({status: 200, contentType: "text/javascript", body: APP_JS});
    const file = BUNDLES[pathname];
    return file ? route.fulfill({status: 200, contentType: "text/javascript", body: fs.readFileSync(file)})
                : route.continue();
  });
  const count = () => page.textContent("#count");
  const countIs = (n) => page.waitForFunction((text) => document.querySelector("#count")?.textContent === text,
                                              String(n), {timeout});
  try {
    await page.goto(args.url + "/counter");
    await page.waitForSelector("[data-phx-main].phx-connected", {timeout});
    const newSession = async (after) => {
      const until = Date.now() + timeout;
      while (sessions.length <= after && Date.now() < until) await page.waitForTimeout(50);
      return sessions.length > after;
    };
    checks.ok(await newSession(1), "liveview-js: the browser opened a new LongPoll session after the 410",
              sessions.length);
    // `clicks` clicks inside one session. The target ends each session on its own clock, so on a
    // busy host a session can end between two clicks (the remount resets the count): that
    // attempt is printed and the clicks start again in the next session, at most 3 times.
    const clicksInOneSession = async (clicks) => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        await page.waitForSelector("[data-phx-main].phx-connected", {timeout});
        const at = sessions.length;
        const start = Number(await count());
        let n = 0, outcome = "counted";
        for (; n < clicks && outcome === "counted"; n++) {
          await page.click("#inc");
          outcome = await countOrNewSession(start + n + 1, at);
        }
        if (outcome === "counted" && sessions.length === at) return true;
        if (outcome === "timeout") {
          console.log(`# attempt ${attempt}: click ${n} was not counted within ${timeout} ms`);
          return false;
        }
        console.log(`# attempt ${attempt}: the session ended during click ${n} of ${clicks} ` +
                    `(sessions ${at} -> ${sessions.length}); again in the next session`);
        await newSession(at);
      }
      return false;
    };
    // "counted" when the page shows `n`, "lost" when a new session opened first.
    const countOrNewSession = async (n, at) => {
      const until = Date.now() + timeout;
      while (Date.now() < until) {
        if (await count() === String(n)) return "counted";
        if (sessions.length !== at) return "lost";
        await page.waitForTimeout(20);
      }
      return "timeout";
    };
    checks.ok(await clicksInOneSession(3), "liveview-js: three clicks counted over LongPoll in one session",
              await count());
    checks.ok(await newSession(sessions.length), "liveview-js: and again after the next 410", sessions.length);
    // The rejoin's page: the server mounted the counter again.
    await countIs(0).catch(() => {});
    checks.ok(await count() === "0", "liveview-js: the rejoin reply's page replaced the old one (count 0)",
              await count());
    await page.waitForSelector("[data-phx-main].phx-connected", {timeout});
    checks.ok(joins.length >= 2, "liveview-js: the view joined again", joins.length);
    if (joins.length >= 2) {
      const [first, second] = joins;
      checks.ok(second.session === first.session && second.static === first.static,
                "liveview-js: the rejoin carries the same session and static tokens");
      checks.ok(first.params._mounts === 0 && second.params._mounts === 1,
                "liveview-js: _mounts goes 0 then 1", [first.params._mounts, second.params._mounts]);
      checks.ok(second.params._mount_attempts === 0, "liveview-js: _mount_attempts 0 on the rejoin",
                second.params._mount_attempts);
      checks.ok(second.url === first.url && !("redirect" in second) && !("flash" in second),
                "liveview-js: the rejoin asks for the page's URL, no redirect, no flash", JSON.stringify(second));
      console.log(`# first join:  ${JSON.stringify({...first, session: "…", static: "…"})}`);
      console.log(`# rejoin:      ${JSON.stringify({...second, session: "…", static: "…"})}`);
    }
    // Clicks go on from the remounted state (a session may end meanwhile: printed, and again).
    checks.ok(await clicksInOneSession(1), "liveview-js: clicks go on from the remounted count", await count());
    checks.ok(websockets.length === 0, "liveview-js: no WebSocket was opened", websockets);
    const errors = problems.filter((p) => p.startsWith("page error") || p.startsWith("request left"));
    checks.ok(errors.length === 0, "liveview-js: no page error", errors);
  } finally {
    await close();
  }
  checks.finish();
}

runCheck("liveview_longpoll_reconnect_check", main, 120000);
