// The Server section (`--server-metrics`) of an HTML report, or of the live dashboard, in a
// real headless Chromium: charts of the server's series grouped by family, on the load
// charts' time axis (the same seconds, and a cursor that moves on all of them together), a
// histogram's p50/p95/p99, a threshold drawn on its series, the server's tables, and the
// load's charts and tables without server series.
//
//   node server_report_check.js --html r.html --screenshot out.png
//   node server_report_check.js --dashboard http://127.0.0.1:PORT/ --events events.txt --screenshot out.png
//
// With --dashboard the page's /events stream is answered with the file's text (server-sent
// events: a "start" and one message per second, as `stampede run --dashboard` sends them),
// so that the live page is drawn from a run with server series; the page itself is the
// dashboard's own. One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const fs = require("fs");
const path = require("path");
const {Checks, runCheck, openPage, charts, parseArgs} = require("./browser");

const FAMILIES = [
  "server:server.stampede_target_http_requests_total",
  "server:server.stampede_target_event_loop_lag_seconds",
  "server:server.process_resident_memory_bytes",
  "server:server.stampede_target_websocket_sessions",
];

async function main() {
  const args = parseArgs(process.argv, ["html", "dashboard", "events", "screenshot"]);
  const checks = new Checks();
  const live = Boolean(args.dashboard);
  const origin = live ? new URL(args.dashboard).origin : null;
  const {page, problems, requests, close} = await openPage({
    allowRequest: (url) => url.startsWith("data:") || (live ? url.startsWith(origin + "/") : url.startsWith("file:")),
  });
  const label = live ? "dashboard" : "report";
  try {
    if (live) {
      const events = fs.readFileSync(args.events, "utf8");
      await page.route("**/events", (route) =>
        route.fulfill({status: 200, headers: {"content-type": "text/event-stream", "cache-control": "no-cache"}, body: events}));
      await page.goto(args.dashboard);
      await page.waitForSelector("#server:not([hidden]) .chart-card", {timeout: 20000});
    } else {
      await page.goto("file://" + path.resolve(args.html));
      await page.waitForSelector("#server .chart-card", {timeout: 10000});
    }
    await page.waitForTimeout(400);

    const list = await charts(page);
    const server = list.filter((c) => c.id.startsWith("server"));
    const load = list.filter((c) => !c.id.startsWith("server"));
    checks.ok(load.some((c) => c.id === "throughput"), `${label}: the load charts are there`, load.map((c) => c.id));
    checks.ok(!load.some((c) => c.id.includes("server.")), `${label}: no server series among the load charts`, load.map((c) => c.id));
    for (const id of FAMILIES) {
      const chart = server.find((c) => c.id === id);
      checks.ok(chart !== undefined, `${label}: a chart for ${id}`, server.map((c) => c.id));
      if (chart) checks.ok(chart.series.every((s) => s.points >= 2), `${label}: ${id} has data`, chart.series);
    }
    const lag = server.find((c) => c.id === "server:server.stampede_target_event_loop_lag_seconds");
    checks.ok(lag && lag.series.map((s) => s.label).join(",") === "p50,p95,p99", `${label}: a histogram shows p50, p95, p99`,
              lag && lag.series);
    const sessions = server.find((c) => c.id === "server:server.stampede_target_websocket_sessions");
    checks.ok(sessions && sessions.series.length === 3, `${label}: a gauge family has a line per label set`, sessions && sessions.series);
    checks.ok(server.some((c) => c.id === "server:scrape"), `${label}: the scrapes' own chart`, server.map((c) => c.id));
    if (!live) {
      const withThreshold = server.find((c) => c.thresholds.length > 0);
      checks.ok(withThreshold !== undefined && withThreshold.thresholds[0].startsWith("max ≤"),
                "report: a threshold on a server series is drawn on its chart", server.map((c) => [c.id, c.thresholds]));
    }

    // The same time axis: the same seconds and the same end on every chart.
    const throughput = load.find((c) => c.id === "throughput");
    checks.ok(server.every((c) => c.xEnd === throughput.xEnd && c.seconds === throughput.seconds),
              `${label}: the server charts share the load charts' time axis`,
              list.map((c) => `${c.id}: ${c.seconds} seconds to ${c.xEnd}`));
    // Pointing at a second on a load chart points at the same second on every server chart.
    const over = page.locator('[data-chart="throughput"] .u-over');
    const box = await over.boundingBox();
    await over.hover({position: {x: box.width * 0.6, y: box.height / 2}});
    await page.waitForTimeout(200);
    const pointed = await charts(page);
    const at = pointed.find((c) => c.id === "throughput").cursor;
    checks.ok(at !== null && pointed.filter((c) => c.id.startsWith("server")).every((c) => c.cursor === at),
              `${label}: the cursor on a load chart is on the same second of every server chart (${at})`,
              pointed.map((c) => `${c.id}: ${c.cursor}`));

    const seen = await page.evaluate(() => ({
      heading: document.querySelector("#server h2") && document.querySelector("#server h2").textContent,
      serverRows: [...document.querySelectorAll("#server table tbody tr")].map((tr) => tr.dataset.metric),
      otherRows: [...document.querySelectorAll("main table tbody tr")].filter((tr) => !tr.closest("#server"))
        .map((tr) => tr.dataset.metric).filter(Boolean),
    }));
    checks.ok(seen.heading === "Server", `${label}: a Server section`, seen.heading);
    if (!live) {
      checks.ok(seen.serverRows.includes("server.stampede_target_event_loop_lag_seconds") &&
                seen.serverRows.includes("server.stampede_target_http_requests_total"),
                "report: the server's series are in its tables", seen.serverRows);
    }
    checks.ok(!seen.otherRows.some((n) => n.startsWith("server.")), `${label}: no server series in the load's tables`,
              seen.otherRows);

    await page.screenshot({path: args.screenshot, fullPage: true});
    console.log(`screenshot: ${args.screenshot}`);
    checks.ok(problems.length === 0, `${label}: no console error, page error, dialog or outside request`, problems);
    void requests;
  } finally {
    await close();
  }
  checks.finish();
}

runCheck("server report", main, 90000);
