// A real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for the
// checks of the HTML report and the dashboard: what a person would see, plus a record of
// everything that went wrong on the way (console errors, page errors, dialogs, and every
// request that would leave the page).
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const {chromium} = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

// One line per check, as the other checks here print them; failures are counted.
class Checks {
  constructor() {
    this.failures = 0;
  }
  ok(condition, what, detail) {
    if (condition) console.log(`ok - ${what}`);
    else {
      this.failures++;
      console.log(`not ok - ${what}${detail === undefined ? "" : `: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`}`);
    }
    return condition;
  }
  // The verdict: exits 1 when any check failed.
  finish() {
    if (this.failures > 0) {
      console.log(`${this.failures} check(s) failed`);
      process.exit(1);
    }
    console.log("all checks passed");
  }
}

// Runs a check script's `main` (an async function): an exception, or no end within
// `timeoutMs`, is a failure of its own and exits 1.
function runCheck(name, main, timeoutMs) {
  const hardTimeout = setTimeout(() => {
    console.log(`not ok - ${name} check timed out`);
    process.exit(1);
  }, timeoutMs);
  main().then(() => clearTimeout(hardTimeout), (error) => {
    console.log(`not ok - ${error.stack || error}`);
    process.exit(1);
  });
}

// Opens a fresh browser (its own empty profile) with one page. `allowRequest(url)` says
// which requests may go out; any other is aborted and recorded in `problems`.
async function openPage({allowRequest, width = 1400, height = 900}) {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "stampede-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: {width, height},
    deviceScaleFactor: 1,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  const requests = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    requests.push(url);
    if (allowRequest(url)) return route.continue();
    problems.push(`request left the page: ${url}`);
    return route.abort();
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", async (dialog) => {
    problems.push(`a dialog opened (${dialog.type()}: ${dialog.message()}): page text ran as code`);
    await dialog.dismiss();
  });
  page.on("websocket", (ws) => problems.push(`websocket opened: ${ws.url()}`));
  const close = async () => {
    await context.close();
    fs.rmSync(profile, {recursive: true, force: true});
  };
  return {page, problems, requests, close};
}

// What the page's charts hold (Stampede.charts.describeAll(), see web/charts.js).
function charts(page) {
  return page.evaluate(() => window.Stampede.charts.describeAll());
}

function parseArgs(argv, known) {
  const args = {};
  for (let i = 2; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (!known.includes(name)) throw new Error(`unknown argument ${argv[i]} (known: ${known.map((k) => "--" + k).join(" ")})`);
    args[name] = argv[++i];
  }
  return args;
}

// Every chart has every series drawn with at least `min` points.
function checkChartsHaveData(checks, list, min, label) {
  checks.ok(list.length >= 4, `${label}: latency, throughput, VU and error charts are drawn`, list.map((c) => c.id));
  for (const chart of list)
    for (const series of chart.series)
      checks.ok(series.points >= min, `${label}: chart "${chart.title}" series ${series.label} has data points (${series.points})`);
}

module.exports = {Checks, runCheck, openPage, charts, parseArgs, checkChartsHaveData};
