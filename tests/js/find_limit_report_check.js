// Opens the HTML report of a --find-limit run in a real headless Chromium and checks that
// a reader sees the limit: the headline verdict, one row per judged step with its status,
// and the generator's health section; with --server-columns (a run with --server-metrics),
// the server's signals as columns of the step table, a value in every judged row, and the
// one that broke first (--server-first) marked.
//
//   node find_limit_report_check.js --html r.html --screenshot out.png --verdict "Held 4 VUs" --steps 3
//                                   [--server-columns in_flight,memory --server-first in_flight]
//
// One line per check ("ok - ..." / "not ok - ..."); exits 1 on any failure.
"use strict";

const path = require("path");
const {Checks, runCheck, openPage, parseArgs} = require("./browser");

async function main() {
  const args = parseArgs(process.argv, ["html", "screenshot", "verdict", "steps", "server-columns", "server-first"]);
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
      serverHeads: [...document.querySelectorAll("table.find-limit thead th.server-signal")]
        .map((th) => ({key: th.dataset.signal, text: th.textContent, first: th.classList.contains("broke-first")})),
      serverCells: [...document.querySelectorAll("table.find-limit tbody tr")]
        .map((tr) => [...tr.querySelectorAll("td.server-signal")].map((td) => td.textContent)),
      firstCellColor: (() => {
        const td = document.querySelector("table.find-limit tr[data-status='fail'] td.broke-first");
        return td ? getComputedStyle(td).color : null;
      })(),
    }));
    checks.ok((seen.verdict || "").includes(args.verdict), "find-limit: the limit is stated", seen.verdict);
    checks.ok(/held/.test(seen.headline || ""), "find-limit: the scenario's verdict is the limit", seen.headline);
    checks.ok(seen.rows.length === Number(args.steps), `find-limit: ${args.steps} judged steps`, seen.rows);
    checks.ok(seen.rows.includes("pass") && seen.rows.includes("fail"), "find-limit: passing and failing steps", seen.rows);
    checks.ok(seen.generator.includes("generator-cpu") && seen.generator.includes("generator-loop"),
              "find-limit: the generator's health is shown", seen.generator);
    if (args["server-columns"]) {
      const keys = args["server-columns"].split(",");
      checks.ok(JSON.stringify(seen.serverHeads.map((h) => h.key)) === JSON.stringify(keys),
                `find-limit: the server's columns ${keys.join(", ")}`, seen.serverHeads);
      checks.ok(seen.serverHeads.every((h) => h.text.startsWith("server ")), "find-limit: server columns say so", seen.serverHeads);
      checks.ok(seen.serverCells.length === seen.rows.length &&
                seen.serverCells.every((cells) => cells.length === keys.length && cells.every((c) => /\d/.test(c))),
                "find-limit: every judged step has a value in every server column", seen.serverCells);
      const first = seen.serverHeads.filter((h) => h.first).map((h) => h.key);
      checks.ok(JSON.stringify(first) === JSON.stringify(args["server-first"] ? [args["server-first"]] : []),
                `find-limit: the server signal that broke first is marked (${args["server-first"] || "none"})`, first);
      if (args["server-first"])
        checks.ok(seen.firstCellColor === "rgb(198, 40, 40)", "find-limit: its value at the failing step is in red",
                  seen.firstCellColor);
    }
    await page.screenshot({path: args.screenshot, fullPage: true});
    checks.ok(problems.length === 0, "find-limit: no console error, page error, dialog or outside request", problems);
  } finally {
    await close();
  }
  checks.finish();
  process.exit(0);
}

runCheck("find-limit report", main, 60000);
