// Opens an HTML report (`stampede run --html`, `stampede report --html`) from a file in a
// real headless Chromium and checks what a reader gets: no errors, nothing loaded from
// anywhere (every request that is not file: or data: fails the check), the summary,
// thresholds, checks and errors, charts with data points, text from the scenario shown
// as text. Keeps a full-page screenshot.
//
//   node report_check.js --html r.html --screenshot out.png [--literal '<script>alert(1)</script>']
//                        [--distribution-row 'payload.bytes 1.54 kB']  (a row of the distributions table)
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const path = require("path");
const {Checks, runCheck, openPage, charts, parseArgs, checkChartsHaveData} = require("./browser");

async function main() {
  const args = parseArgs(process.argv, ["html", "screenshot", "literal", "distribution-row"]);
  const checks = new Checks();
  const {page, problems, requests, close} = await openPage({
    allowRequest: (url) => url.startsWith("file:") || url.startsWith("data:"),
  });
  try {
    await page.goto("file://" + path.resolve(args.html));
    await page.waitForSelector("article.scenario table.data", {timeout: 10000});
    // Charts draw on the next frame; give the page a moment as a reader would.
    await page.waitForTimeout(300);

    const list = await charts(page);
    checkChartsHaveData(checks, list, 2, "report");
    const latency = list.find((c) => c.id === "latency:http.request");
    checks.ok(latency !== undefined, "report: http.request has a latency chart");
    checks.ok(latency && latency.thresholds.some((t) => t.startsWith("p95 ≤")), "report: the p95 threshold is drawn on it",
              latency && latency.thresholds);

    const seen = await page.evaluate(() => ({
      title: document.querySelector("h1") && document.querySelector("h1").textContent,
      verdict: document.querySelector(".verdict") && document.querySelector(".verdict").textContent,
      timings: [...document.querySelectorAll("table.timings tbody tr")].map((tr) => tr.dataset.metric),
      thresholds: document.querySelectorAll("table.thresholds tbody tr").length,
      checks: document.querySelectorAll("table.checks tbody tr").length,
      errors: [...document.querySelectorAll("pre.error-message")].map((pre) => pre.textContent),
      injected: document.querySelectorAll("main script, main b, main img").length,
      bodyText: document.body.innerText,
      distributions: [...document.querySelectorAll("table.distributions tbody tr")].map((tr) =>
        [...tr.querySelectorAll("td")].map((td) => td.textContent.trim()).join(" ")),
    }));
    if (args["distribution-row"]) {
      checks.ok(seen.distributions.some((row) => row.includes(args["distribution-row"])),
                "report: a distribution is shown in its own unit", seen.distributions);
    }
    checks.ok(seen.timings.includes("http.request") && seen.timings.includes("iteration"), "report: summary table of timings", seen.timings);
    checks.ok(seen.thresholds > 0, "report: thresholds table", seen.thresholds);
    checks.ok(seen.checks > 0, "report: checks table", seen.checks);
    checks.ok(/passed|failed|completed/i.test(seen.verdict || ""), "report: verdict shown", seen.verdict);
    if (args.literal) {
      checks.ok(seen.title === args.literal, "report: the scenario name is shown as text", seen.title);
      checks.ok(seen.errors.some((e) => e.includes(args.literal)), "report: the error message is shown as text", seen.errors);
      checks.ok(seen.injected === 0, "report: no element was made from the scenario's text", seen.injected);
    }

    await page.screenshot({path: args.screenshot, fullPage: true});
    console.log(`screenshot: ${args.screenshot}`);
    checks.ok(requests.every((url) => url.startsWith("file:") || url.startsWith("data:")), "report: no request left the page", requests);
    checks.ok(problems.length === 0, "report: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
}

runCheck("report", main, 60000);
