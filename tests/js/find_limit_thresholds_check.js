// Opens the HTML report of a --find-limit run in a real headless Chromium and checks that
// the thresholds the verdict stands on are shown: rows in the thresholds table (not "No
// thresholds") with the given pass/fail badges, and the threshold drawn as a line on the
// chart of its metric.
//
//   node find_limit_thresholds_check.js --html r.html --screenshot out.png \
//        --statuses fail,pass --line "latency:http.request=p95 ≤"
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const path = require("path");
const {Checks, runCheck, openPage, charts, parseArgs} = require("./browser");

async function main() {
  const args = parseArgs(process.argv, ["html", "screenshot", "statuses", "line"]);
  const checks = new Checks();
  const {page, problems, close} = await openPage({
    allowRequest: (url) => url.startsWith("file:") || url.startsWith("data:"),
  });
  try {
    await page.goto("file://" + path.resolve(args.html));
    await page.waitForSelector("article.scenario table.find-limit", {timeout: 10000});
    await page.waitForTimeout(300);  // charts draw on the next frame
    const seen = await page.evaluate(() => ({
      statuses: [...document.querySelectorAll("table.thresholds tbody tr")].map((tr) => tr.className),
      empty: [...document.querySelectorAll("p.empty")].map((p) => p.textContent),
    }));
    checks.ok(seen.statuses.join(",") === args.statuses, `find-limit: thresholds table rows ${args.statuses}`, seen.statuses);
    checks.ok(!seen.empty.some((t) => t.startsWith("No thresholds")), "find-limit: not 'No thresholds'", seen.empty);
    const [chartId, labelStart] = args.line.split("=");
    const chart = (await charts(page)).find((c) => c.id === chartId);
    checks.ok(chart !== undefined, `find-limit: chart ${chartId} is drawn`);
    checks.ok(chart && chart.thresholds.some((t) => t.startsWith(labelStart)),
              `find-limit: a threshold "${labelStart}..." is drawn on ${chartId}`, chart && chart.thresholds);
    await page.screenshot({path: args.screenshot, fullPage: true});
    checks.ok(problems.length === 0, "find-limit: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
  process.exit(0);
}

runCheck("find-limit thresholds", main, 60000);
