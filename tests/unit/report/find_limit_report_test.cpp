// The find-limit and generator figures as the terminal, the results file and the badge
// show them, and read back from the file.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "report/find_limit_json.hpp"
#include "report/find_limit_table.hpp"
#include "report/json_results.hpp"
#include "report/json_results_reader.hpp"

namespace stampede::report {
namespace {

metrics::ThresholdResult p95(double value, double limit) {
  metrics::ThresholdResult t;
  t.spec = {"http.request", "p95", limit, "api.lua"};
  t.judged = true;
  t.value = value;
  t.pass = value <= limit;
  t.message = "p95";
  return t;
}

FindLimitResult staircase() {
  FindLimitResult r;
  r.by = "vus";
  r.start = 1000;
  r.step = 1000;
  r.up_to = 4000;
  r.ramp = kSecond;
  r.hold = 2 * kSecond;
  for (double level : {1000.0, 2000.0, 3000.0, 4000.0}) {
    FindLimitStep s;
    s.level = level;
    s.hold_start = static_cast<Nanos>(level / 1000 * 3 - 2) * kSecond;
    s.hold_end = s.hold_start + 2 * kSecond;
    s.status = level < 3000 ? "pass" : level == 3000 ? "fail" : "not_reached";
    if (level <= 3000) s.thresholds = {p95(level == 3000 ? 312.5 : 2.67, 250)};
    GeneratorFigures g;
    g.cpu_mean = 40;
    g.loop_delay_p99 = 300 * kMicro;
    s.generator = g;
    r.steps.push_back(s);
  }
  r.limit = 2000;
  r.failed_at = 3000;
  r.broke = "http.request p95 <= 250.00ms (312.50ms)";
  r.verdict = "Held 2,000 VUs; 3,000 VUs broke http.request p95 <= 250.00ms (312.50ms)";
  return r;
}

TEST(FindLimitTable, ShowsTheVerdictAndOneRowPerJudgedStep) {
  const std::string text = render_find_limit(staircase());
  EXPECT_EQ(text,
            "limit\n"
            "Held 2,000 VUs; 3,000 VUs broke http.request p95 <= 250.00ms (312.50ms)\n"
            "VUs    http.request p95  status\n"
            "1,000            2.67ms  pass\n"
            "2,000            2.67ms  pass\n"
            "3,000          312.50ms  fail\n");
}

TEST(FindLimitTable, LevelsAndLoads) {
  EXPECT_EQ(format_level(12000), "12,000");
  EXPECT_EQ(format_level(999), "999");
  EXPECT_EQ(format_level(1234567), "1,234,567");
  EXPECT_EQ(format_level(2.5), "2.50");
  EXPECT_EQ(format_load(1, false), "1 VU");
  EXPECT_EQ(format_load(2500, true), "2,500 iterations/s");
}

TEST(FindLimitTable, FirstBrokenThresholdWithoutTheWordFail) {
  EXPECT_EQ(first_broken(staircase().steps[2]), "http.request p95 <= 250.00ms (312.50ms)");
  EXPECT_EQ(first_broken(staircase().steps[0]), "");
}

TEST(FindLimitTable, GeneratorLineNamesTheBottleneck) {
  GeneratorFigures g;
  g.cpu_mean = 98;
  g.cpu_peak = 100;
  g.loop_delay_p99 = 12 * kMilli;
  g.fds_peak = 120;
  g.fds_limit = 20000;
  g.bottleneck = true;
  g.verdict = "inconclusive: Stampede used 98% of its CPU at 14,000 VUs; ...";
  EXPECT_EQ(render_generator_line(g),
            "generator: cpu 98% (busiest worker thread; peak second 100%), loop delay p99 12.00ms, open files 120 / "
            "20,000\ninconclusive: Stampede used 98% of its CPU at 14,000 VUs; ...\n");
  // Under --cpu-policy poll the figure leaves the empty polls out, and says so.
  EXPECT_EQ(render_generator_line(g, /*polling=*/true).substr(0, 85),
            "generator: cpu 98% (busiest worker thread, empty polls aside; peak second 100%), loop");
}

TEST(FindLimitJson, RoundTripsThroughTheResultsFile) {
  RunResult run;
  run.tool = {"stampede", "0.1.0", "abc"};
  ScenarioResult r;
  r.scenario = "Api";
  r.find_limit = staircase();
  GeneratorFigures g;
  g.cpu_mean = 12.5;
  g.lag_p99 = 3 * kMilli;
  g.fds_limit = 20000;
  r.generator = g;
  run.results.push_back(r);
  const RunResult back = read_results_json(results_json(run));
  ASSERT_EQ(back.results.size(), 1u);
  ASSERT_TRUE(back.results[0].find_limit);
  const auto& fl = *back.results[0].find_limit;
  EXPECT_EQ(fl.limit, 2000);
  EXPECT_EQ(fl.failed_at, 3000);
  EXPECT_EQ(fl.verdict, staircase().verdict);
  ASSERT_EQ(fl.steps.size(), 4u);
  EXPECT_EQ(fl.steps[2].status, "fail");
  EXPECT_EQ(fl.steps[2].thresholds[0].value, 312.5);
  EXPECT_EQ(fl.steps[1].hold_start, 4 * kSecond);
  EXPECT_EQ(render_find_limit(fl), render_find_limit(staircase()));
  ASSERT_TRUE(back.results[0].generator);
  EXPECT_EQ(back.results[0].generator->cpu_mean, 12.5);
  EXPECT_EQ(back.results[0].generator->lag_p99, 3 * kMilli);
  EXPECT_FALSE(back.results[0].generator->loop_delay_p99);
  EXPECT_TRUE(run.passed());  // a limit was found
}

// With --server-metrics: the server's columns after the thresholds', "-" where a step was
// not measured, and the whole breakdown read back from the file.
FindLimitResult staircase_with_server() {
  FindLimitResult r = staircase();
  ServerBreakdown b;
  ServerSignalColumn queue;
  queue.key = "run_queue";
  queue.title = "run queue max";
  queue.metric = "server.erlang_vm_run_queues_length";
  queue.aggregation = "max";
  queue.unit = "count";
  queue.values = {2.0, 3.0, 310.0, std::nullopt};
  ServerSignalColumn memory;
  memory.key = "memory";
  memory.title = "memory max";
  memory.metric = "server.erlang_vm_memory_bytes{kind=\"total\"}";
  memory.aggregation = "max";
  memory.unit = "bytes";
  memory.values = {1.2e9, std::nullopt, 1.3e9, std::nullopt};
  b.columns = {queue, memory};
  b.first = 0;
  b.verdict = "the BEAM run queue went from 3 to 310: the schedulers were saturated";
  r.verdict += " while " + b.verdict;
  r.server = b;
  return r;
}

TEST(FindLimitTable, ServerColumnsFollowTheThresholds) {
  EXPECT_EQ(render_find_limit(staircase_with_server()),
            "limit\n"
            "Held 2,000 VUs; 3,000 VUs broke http.request p95 <= 250.00ms (312.50ms) while the BEAM run queue went "
            "from 3 to 310: the schedulers were saturated\n"
            "VUs    http.request p95  server run queue max  server memory max  status\n"
            "1,000            2.67ms                     2             1.20GB  pass\n"
            "2,000            2.67ms                     3                  -  pass\n"
            "3,000          312.50ms                   310             1.30GB  fail\n");
}

TEST(FindLimitJson, ServerBreakdownRoundTrips) {
  RunResult run;
  ScenarioResult r;
  r.scenario = "Api";
  r.find_limit = staircase_with_server();
  run.results.push_back(r);
  const std::string text = results_json(run);
  const auto file = boost::json::parse(text).as_object();
  const auto& server = file.at("results").as_array()[0].as_object().at("find_limit").as_object().at("server").as_object();
  EXPECT_EQ(server.at("first").as_string(), "run_queue");
  EXPECT_TRUE(server.at("columns").as_array()[0].as_object().at("values").as_array()[3].is_null());
  const RunResult back = read_results_json(text);
  const auto& fl = *back.results[0].find_limit;
  ASSERT_TRUE(fl.server);
  EXPECT_EQ(fl.server->first, std::optional<std::size_t>(0));
  EXPECT_EQ(fl.server->verdict, staircase_with_server().server->verdict);
  ASSERT_EQ(fl.server->columns.size(), 2u);
  EXPECT_EQ(fl.server->columns[1].metric, "server.erlang_vm_memory_bytes{kind=\"total\"}");
  EXPECT_EQ(fl.server->columns[1].values, staircase_with_server().server->columns[1].values);
  EXPECT_EQ(render_find_limit(fl), render_find_limit(staircase_with_server()));
  // Without server metrics there is no "server" key at all.
  ScenarioResult plain;
  plain.find_limit = staircase();
  RunResult without;
  without.results.push_back(plain);
  EXPECT_FALSE(read_results_json(results_json(without)).results[0].find_limit->server);
  EXPECT_EQ(results_json(without).find("\"server\""), std::string::npos);
}

TEST(FindLimitJson, BadgeSaysTheLimit) {
  RunResult run;
  ScenarioResult r;
  r.find_limit = staircase();
  run.results.push_back(r);
  EXPECT_EQ(limit_badge_text(run), "limit 2,000 VUs");
  run.results[0].find_limit->limit.reset();
  EXPECT_EQ(limit_badge_text(run), "no level held");
  EXPECT_FALSE(run.passed());
  run.results[0].find_limit.reset();
  EXPECT_EQ(limit_badge_text(run), "");
}

TEST(FindLimitJson, BadgeSaysAtLeastWhenTheTopLevelHeld) {
  RunResult run;
  ScenarioResult r;
  r.find_limit = staircase();
  r.find_limit->steps[2].status = "pass";
  r.find_limit->steps[3].status = "pass";
  r.find_limit->limit = 4000;
  r.find_limit->failed_at.reset();
  r.find_limit->reached_up_to = true;
  run.results.push_back(r);
  EXPECT_EQ(limit_badge_text(run), "limit ≥ 4,000 VUs");
}

TEST(FindLimitVerdict, TheLimitsStepWhenALevelHeldElseTheFirstThatDidNot) {
  FindLimitResult r = staircase();
  ASSERT_NE(verdict_step(r), nullptr);
  EXPECT_EQ(verdict_step(r)->level, 2000);  // held: every threshold passed there
  // A refine probe at the limit is its step.
  FindLimitStep probe = r.steps[1];
  probe.level = 2500;
  probe.refine = true;
  r.steps.push_back(probe);
  r.limit = 2500;
  EXPECT_EQ(verdict_step(r), &r.steps.back());

  r = staircase();
  r.steps[0].status = "fail";
  r.steps[0].thresholds = {p95(300, 250)};
  r.limit.reset();
  r.failed_at = 1000;
  ASSERT_NE(verdict_step(r), nullptr);
  EXPECT_EQ(verdict_step(r)->level, 1000);  // none held: what broke at the lowest level
  EXPECT_FALSE(verdict_step(r)->thresholds[0].pass);

  r.steps[0].status = "inconclusive";
  ASSERT_NE(verdict_step(r), nullptr);
  EXPECT_EQ(verdict_step(r)->level, 1000);

  r.failed_at.reset();  // stopped before any step was judged
  EXPECT_EQ(verdict_step(r), nullptr);
}

TEST(FindLimitJson, AFileWithoutTheRunsThresholdsGetsTheDecidingSteps) {
  RunResult run;
  ScenarioResult r;
  r.scenario = "Api";
  r.find_limit = staircase();
  r.find_limit->limit.reset();
  r.find_limit->steps[0].status = "fail";
  r.find_limit->steps[0].thresholds = {p95(300, 250)};
  r.find_limit->failed_at = 1000;
  run.results.push_back(r);
  const RunResult back = read_results_json(results_json(run));
  ASSERT_EQ(back.results[0].thresholds.size(), 1u);
  EXPECT_EQ(back.results[0].thresholds[0].value, 300);
  EXPECT_FALSE(back.results[0].passed());
}

}  // namespace
}  // namespace stampede::report
