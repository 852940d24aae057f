// Follows a running `stampede run --dashboard` in a real headless Chromium: the page must
// update while the test runs (the live table's iteration count grows between two reads,
// the charts fill), then show the full results once the run is done. Nothing may be
// loaded from anywhere but the dashboard itself; text from the scenario must stay text.
// Keeps a screenshot of the live page and one of the final page.
//
//   node dashboard_check.js --url http://127.0.0.1:4040/ --live live.png --final final.png
//                           [--literal '<script>alert(1)</script>'] [--timeout-ms 60000]
//                           [--interrupt-pid PID]
//
// With --interrupt-pid the run is ended by a Ctrl-C (SIGINT to PID) once the live checks are
// done, so a long run need not be timed against how fast the browser starts on a busy host.
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const {Checks, runCheck, openPage, charts, parseArgs, checkChartsHaveData} = require("./browser");

const ITERATIONS_CELL = '#live-table tr[data-metric="iterations"] td.count';

function count(text) {
  return Number(String(text).replace(/[^0-9]/g, ""));
}

async function main() {
  const args = parseArgs(process.argv, ["url", "live", "final", "literal", "timeout-ms", "interrupt-pid"]);
  const timeout = Number(args["timeout-ms"] || 60000);
  const origin = new URL(args.url).origin;
  const checks = new Checks();
  const {page, problems, requests, close} = await openPage({
    allowRequest: (url) => url.startsWith(origin + "/") || url.startsWith("data:"),
  });
  try {
    await page.goto(args.url);
    await page.waitForSelector(ITERATIONS_CELL, {timeout});
    const first = count(await page.textContent(ITERATIONS_CELL));
    // The server sends a merged second each second: the table must move within a few.
    let second = first;
    const until = Date.now() + 5000;
    while (second <= first && Date.now() < until) {
      await page.waitForTimeout(250);
      second = count(await page.textContent(ITERATIONS_CELL));
    }
    checks.ok(second > first, `dashboard: the live table's iteration count grows while the run goes (${first} then ${second})`);
    const live = await page.evaluate(() => ({
      progress: document.getElementById("live-progress-text") && document.getElementById("live-progress-text").textContent,
      title: document.querySelector("h1") && document.querySelector("h1").textContent,
    }));
    checks.ok(/\d:\d\d of \d:\d\d/.test(live.progress || ""), "dashboard: the progress of the run is shown", live.progress);
    checkChartsHaveData(checks, await charts(page), 1, "dashboard (live)");
    // A few more seconds, so the live screenshot shows lines rather than dots.
    await page.waitForFunction(() => window.Stampede.charts.describeAll().every((c) => c.series.every((s) => s.points >= 4)),
                               null, {timeout: 8000}).catch(() => {});
    await page.screenshot({path: args.live, fullPage: true});
    console.log(`screenshot: ${args.live}`);
    if (args["interrupt-pid"]) process.kill(Number(args["interrupt-pid"]), "SIGINT");

    await page.waitForSelector(".verdict.pass, .verdict.fail, .verdict.neutral", {timeout});
    await page.waitForTimeout(300);
    const final = await page.evaluate(() => ({
      title: document.querySelector("h1") && document.querySelector("h1").textContent,
      timings: [...document.querySelectorAll("table.timings tbody tr")].map((tr) => tr.dataset.metric),
      thresholds: document.querySelectorAll("table.thresholds tbody tr").length,
      errors: [...document.querySelectorAll("pre.error-message")].map((pre) => pre.textContent),
      injected: document.querySelectorAll("main script, main b, main img").length,
      status: document.getElementById("topbar-note").textContent,
    }));
    checks.ok(final.timings.includes("http.request"), "dashboard: the final summary table is shown", final.timings);
    checks.ok(final.thresholds > 0, "dashboard: the final thresholds are shown", final.thresholds);
    checks.ok(/finished/.test(final.status), "dashboard: says the run is finished", final.status);
    checkChartsHaveData(checks, await charts(page), 2, "dashboard (final)");
    if (args.literal) {
      checks.ok(live.title === args.literal && final.title === args.literal, "dashboard: the scenario name is shown as text",
                [live.title, final.title]);
      checks.ok(final.errors.some((e) => e.includes(args.literal)), "dashboard: the error message is shown as text", final.errors);
      checks.ok(final.injected === 0, "dashboard: no element was made from the scenario's text", final.injected);
    }
    await page.screenshot({path: args.final, fullPage: true});
    console.log(`screenshot: ${args.final}`);

    checks.ok(requests.every((url) => url.startsWith(origin + "/") || url.startsWith("data:")),
              "dashboard: no request went anywhere but the dashboard", requests);
    checks.ok(problems.length === 0, "dashboard: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
}

runCheck("dashboard", main, 180000);
