// Opens the HTML report of a --find-limit run in a real headless Chromium and checks that
// a reader sees the limit: the headline verdict, one row per judged step with its status,
// and the generator's health section.
//
//   node find_limit_report_check.js --html r.html --screenshot out.png --verdict "Held 4 VUs" --steps 3
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const path = require("path");
const {Checks, runCheck, openPage, parseArgs} = require("./browser");

async function main() {
  const args = parseArgs(process.argv, ["html", "screenshot", "verdict", "steps"]);
  const checks = new Checks();
  const {page, problems, close} = await openPage({
    allowRequest: (url) => url.startsWith("file:") || url.startsWith("data:"),
  });
  try {
    await page.goto("file://" + path.resolve(args.html));
    await page.waitForSelector("article.scenario table.find-limit", {timeout: 10000});
    const seen = await page.evaluate(() => ({
      verdict: (document.querySelector(".limit-verdict") || {}).textContent,
      headline: (document.querySelector(".verdict") || {}).textContent,
      rows: [...document.querySelectorAll("table.find-limit tbody tr")].map((tr) => tr.dataset.status),
      generator: [...document.querySelectorAll("[data-tile^='generator-']")].map((t) => t.dataset.tile),
    }));
    checks.ok((seen.verdict || "").includes(args.verdict), "find-limit: the limit is stated", seen.verdict);
    checks.ok(/held/.test(seen.headline || ""), "find-limit: the scenario's verdict is the limit", seen.headline);
    checks.ok(seen.rows.length === Number(args.steps), `find-limit: ${args.steps} judged steps`, seen.rows);
    checks.ok(seen.rows.includes("pass") && seen.rows.includes("fail"), "find-limit: passing and failing steps", seen.rows);
    checks.ok(seen.generator.includes("generator-cpu") && seen.generator.includes("generator-loop"),
              "find-limit: the generator's health is shown", seen.generator);
    await page.screenshot({path: args.screenshot, fullPage: true});
    checks.ok(problems.length === 0, "find-limit: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
  process.exit(0);
}

runCheck("find-limit report", main, 60000);
