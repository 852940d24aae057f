// The live dashboard of a load on the built-in target with the target's own /metrics scraped
// (`stampede demo` does that by itself; or `stampede run --dashboard --server-metrics
// TARGET/metrics`), in a real headless Chromium: with no Phoenix app anywhere, the Server
// section must appear and fill with the target's series, on the load charts' seconds. Also
// what scripts/screenshot-dashboard.sh runs to take the docs' pictures.
//
//   node target_dashboard_check.js --url http://127.0.0.1:PORT/ --screenshot out.png
//                                  [--min-seconds 4] [--timeout-ms 60000] [--width 1280]
//                                  [--clip-from throughput --clip-to server:server.stampede_target_connections]
//
// --min-seconds: how many seconds of server data the charts must hold before the checks and
// the screenshot (a picture wants more than a test does). The screenshot is of the page from
// its top to the end of the Server section, or from the top of the chart --clip-from (else
// the page's top) to the bottom of the chart --clip-to (ids as Stampede.charts.describeAll()
// gives them). One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const {Checks, runCheck, openPage, charts, parseArgs} = require("./browser");

// What a load of channels and LiveViews does to the target, each a chart of the Server section.
const FAMILIES = [
  "server:server.stampede_target_connections",
  "server:server.stampede_target_channel_joins_total",
  "server:server.stampede_target_websocket_sessions",
  "server:server.process_resident_memory_bytes",
];

async function main() {
  const args = parseArgs(process.argv, ["url", "screenshot", "min-seconds", "timeout-ms", "width", "clip-from", "clip-to"]);
  const timeout = Number(args["timeout-ms"] || 60000);
  const minSeconds = Number(args["min-seconds"] || 4);
  const origin = new URL(args.url).origin;
  const checks = new Checks();
  const {page, problems, close} = await openPage({
    allowRequest: (url) => url.startsWith(origin + "/") || url.startsWith("data:"),
    width: Number(args.width || 1280),
    height: 900,
  });
  try {
    await page.goto(args.url);
    await page.waitForSelector("#server:not([hidden]) .chart-card", {timeout});
    // Seconds arrive once a second: wait until the server's charts hold enough of them.
    const points = (list, id) => {
      const chart = list.find((c) => c.id === id);
      return chart ? Math.min(...chart.series.map((s) => s.points)) : 0;
    };
    const until = Date.now() + timeout;
    let list = await charts(page);
    while (points(list, FAMILIES[0]) < minSeconds && Date.now() < until) {
      await page.waitForTimeout(250);
      list = await charts(page);
    }
    const server = list.filter((c) => c.id.startsWith("server"));
    const load = list.filter((c) => !c.id.startsWith("server"));
    const heading = await page.textContent("#server h2");
    checks.ok(heading === "Server", "dashboard: the live dashboard has a Server section", heading);
    for (const id of FAMILIES) {
      checks.ok(points(list, id) >= minSeconds, `dashboard: ${id} is charted with at least ${minSeconds} seconds`,
                server.map((c) => `${c.id}: ${c.series.map((s) => s.points).join("/")}`));
    }
    const sessions = server.find((c) => c.id === "server:server.stampede_target_websocket_sessions");
    checks.ok(sessions !== undefined && sessions.series.some((s) => s.label.includes("channels")) &&
              sessions.series.some((s) => s.label.includes("liveview")),
              "dashboard: the target's WebSocket sessions are charted per kind (channels, liveview)", sessions && sessions.series);
    const throughput = load.find((c) => c.id === "throughput");
    checks.ok(throughput !== undefined, "dashboard: the load charts are there", load.map((c) => c.id));
    checks.ok(throughput !== undefined && server.every((c) => c.xEnd === throughput.xEnd),
              "dashboard: the server charts share the load charts' time axis",
              list.map((c) => `${c.id}: ${c.seconds} seconds to ${c.xEnd}`));

    if (args.screenshot) {
      const [top, bottom] = await page.evaluate(([from, to]) => {
        const y = (node, edge) => node.getBoundingClientRect()[edge] + window.scrollY;
        const chart = (id) => document.querySelector(`[data-chart="${CSS.escape(id)}"]`);
        const start = from ? chart(from) : null;
        const end = to ? chart(to) : document.querySelector("#server");
        return [start ? Math.floor(y(start, "top") - 12) : 0, end ? Math.ceil(y(end, "bottom") + 12) : null];
      }, [args["clip-from"], args["clip-to"]]);
      checks.ok(bottom !== null && bottom > top, "dashboard: the screenshot's charts are on the page",
                [args["clip-from"], args["clip-to"]]);
      const width = page.viewportSize().width;
      await page.screenshot({path: args.screenshot, fullPage: true, clip: {x: 0, y: top, width, height: bottom - top}});
      console.log(`screenshot: ${args.screenshot}`);
    }
    checks.ok(problems.length === 0, "dashboard: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
}

runCheck("target dashboard", main, 120000);
