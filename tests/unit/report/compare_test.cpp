#include "report/compare.hpp"

#include <gtest/gtest.h>

#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

using testing::kMs;

RunResult run_with(std::vector<MetricFigures> metrics, std::string scenario = "Api") {
  RunResult run;
  ScenarioResult r;
  r.scenario = std::move(scenario);
  r.metrics = std::move(metrics);
  run.results.push_back(std::move(r));
  return run;
}

MetricFigures iterations(double rate, std::uint64_t count = 1000) {
  MetricFigures f = testing::counter_figures("iterations", count);
  f.rate = rate;
  return f;
}

// The text with each run of spaces as one: rows without their column widths.
std::string squeezed(const std::string& text) {
  std::string out;
  for (const char ch : text)
    if (ch != ' ' || out.empty() || out.back() != ' ') out += ch;
  return out;
}

const FigureChange* change(const Comparison& c, std::string_view metric, std::string_view figure) {
  for (const FigureChange& ch : c.scenarios.at(0).changes)
    if (ch.metric == metric && ch.figure == figure) return &ch;
  return nullptr;
}

TEST(Compare, ASlowerPercentileBeyondTheLimitIsARegression) {
  const RunResult base = run_with({testing::timing_figures("http.request", 100, 10 * kMs, 20 * kMs, 30 * kMs), iterations(100)});
  const RunResult current =
      run_with({testing::timing_figures("http.request", 100, 10'500'000, 25 * kMs, 30 * kMs), iterations(100)});
  const Comparison c = compare_runs(base, current, 10, "main.json", "branch.json");
  const FigureChange* p50 = change(c, "http.request", "p50");
  const FigureChange* p95 = change(c, "http.request", "p95");
  const FigureChange* p99 = change(c, "http.request", "p99");
  ASSERT_TRUE(p50 && p95 && p99);
  EXPECT_NEAR(*p50->change_percent, 5, 1e-9);
  EXPECT_FALSE(p50->regression);  // within 10%
  EXPECT_NEAR(*p95->change_percent, 25, 1e-9);
  EXPECT_TRUE(p95->regression);
  EXPECT_FALSE(p99->regression);
  EXPECT_EQ(c.regressions(), 1u);
}

TEST(Compare, AnImprovementIsNoRegression) {
  const RunResult base = run_with({testing::timing_figures("http.request", 100, 10 * kMs, 20 * kMs, 30 * kMs), iterations(100)});
  const RunResult current = run_with({testing::timing_figures("http.request", 100, 5 * kMs, 10 * kMs, 15 * kMs), iterations(150)});
  const Comparison c = compare_runs(base, current, 10, "a", "b");
  EXPECT_EQ(c.regressions(), 0u);
  EXPECT_NEAR(*change(c, "http.request", "p99")->change_percent, -50, 1e-9);
  EXPECT_NEAR(*change(c, "iterations", "rate/s")->change_percent, 50, 1e-9);
}

TEST(Compare, LowerThroughputBeyondTheLimitIsARegression) {
  const Comparison c = compare_runs(run_with({iterations(100)}), run_with({iterations(80)}), 10, "a", "b");
  const FigureChange* rate = change(c, "iterations", "rate/s");
  ASSERT_NE(rate, nullptr);
  EXPECT_TRUE(rate->regression);
  EXPECT_EQ(c.regressions(), 1u);
}

TEST(Compare, AnErrorRateUpByMoreThanTheAllowedPointsIsARegression) {
  // 50 of 1,000 iterations raised: +5 points, within 10.
  const Comparison within = compare_runs(run_with({iterations(100)}),
                                         run_with({iterations(100), testing::counter_figures("iteration.errors", 50)}),
                                         10, "a", "b");
  const FigureChange* rate = change(within, "iteration.errors", "error rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_DOUBLE_EQ(rate->base, 0);
  EXPECT_DOUBLE_EQ(rate->current, 0.05);
  EXPECT_TRUE(rate->judged);
  EXPECT_FALSE(rate->regression);
  EXPECT_EQ(within.regressions(), 0u);
  EXPECT_NE(render_comparison(within, CompareFormat::Text).find("+5.00 pts\n"), std::string::npos);

  // 40 of 50: +80 points.
  const Comparison worse = compare_runs(run_with({iterations(100, 50)}),
                                        run_with({iterations(100, 50), testing::counter_figures("iteration.errors", 40)}),
                                        10, "r1.json", "r1_err.json");
  ASSERT_TRUE(change(worse, "iteration.errors", "error rate")->regression);
  EXPECT_EQ(worse.regressions(), 1u);
  EXPECT_EQ(worse.slower(), 0u);
  EXPECT_EQ(worse.more_errors(), 1u);
  const std::string text = render_comparison(worse, CompareFormat::Text);
  EXPECT_NE(squeezed(text).find("iteration.errors error rate 0.00% 80.00% +80.00 pts more errors\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("no figure more than 10% slower\n"
                      "1 error figure rose by more than 10 per 100 iterations: iteration.errors error rate "
                      "(0.00% → 80.00%)\n"),
            std::string::npos)
      << text;
}

TEST(Compare, ARiseOfExactlyTheAllowedPointsIsNot) {
  // 5 of 50 is 0.1, and 0.1 * 100 is not quite 10 in floating point.
  const Comparison c = compare_runs(run_with({iterations(1, 50)}),
                                    run_with({iterations(1, 50), testing::counter_figures("iteration.errors", 5)}), 10,
                                    "a", "b");
  EXPECT_EQ(c.regressions(), 0u);
}

TEST(Compare, ErrorCountersPerIterationAreShownAndJudged) {
  // Requests that failed without their iteration raising (a 404 the scenario did not check).
  const RunResult base = run_with({iterations(100, 50), testing::counter_figures("http.request.errors", 0),
                                   testing::counter_figures("channel.join.errors", 1)});
  const RunResult current = run_with({iterations(100, 50), testing::counter_figures("http.request.errors", 60),
                                      testing::counter_figures("ws.connect.errors", 2)});
  const Comparison c = compare_runs(base, current, 10, "a", "b");
  const FigureChange* http = change(c, "http.request.errors", "per iteration");
  ASSERT_NE(http, nullptr);
  EXPECT_DOUBLE_EQ(http->current, 1.2);
  EXPECT_TRUE(http->regression);  // +120 per 100 iterations
  const FigureChange* join = change(c, "channel.join.errors", "per iteration");  // absent from current: none
  ASSERT_NE(join, nullptr);
  EXPECT_DOUBLE_EQ(join->base, 0.02);
  EXPECT_DOUBLE_EQ(join->current, 0);
  EXPECT_FALSE(join->regression);
  const FigureChange* ws = change(c, "ws.connect.errors", "per iteration");  // +4 per 100 iterations
  ASSERT_NE(ws, nullptr);
  EXPECT_FALSE(ws->regression);
  EXPECT_EQ(c.regressions(), 1u);
  const std::string text = render_comparison(c, CompareFormat::Text);
  EXPECT_NE(squeezed(text).find("http.request.errors per iteration 0.00 1.20 +1.20 more errors\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("1 error figure rose by more than 10 per 100 iterations: http.request.errors per iteration "
                      "(0.00 → 1.20)\n"),
            std::string::npos)
      << text;
  const std::string md = render_comparison(c, CompareFormat::Markdown);
  EXPECT_NE(md.find("| http.request.errors | per iteration | 0.00 | 1.20 | +1.20 | **more errors** |\n"),
            std::string::npos)
      << md;
}

TEST(Compare, IterationLagIsShownNotJudged) {
  const Comparison c = compare_runs(run_with({testing::timing_figures("iteration.lag", 10, kMs, kMs, kMs), iterations(1)}),
                                    run_with({testing::timing_figures("iteration.lag", 10, 9 * kMs, 9 * kMs, 9 * kMs), iterations(1)}),
                                    10, "a", "b");
  const FigureChange* p95 = change(c, "iteration.lag", "p95");
  ASSERT_NE(p95, nullptr);
  EXPECT_NEAR(*p95->change_percent, 800, 1e-9);
  EXPECT_FALSE(p95->judged);
  EXPECT_EQ(c.regressions(), 0u);
}

TEST(Compare, TheGeneratorsOwnTimingsAreShownNotJudged) {
  const Comparison c =
      compare_runs(run_with({testing::timing_figures("generator.loop_delay", 10, kMs, kMs, kMs), iterations(1)}),
                   run_with({testing::timing_figures("generator.loop_delay", 10, 9 * kMs, 9 * kMs, 9 * kMs), iterations(1)}),
                   10, "a", "b");
  const FigureChange* p99 = change(c, "generator.loop_delay", "p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_FALSE(p99->judged);
  EXPECT_EQ(c.regressions(), 0u);
}

TEST(Compare, MetricsInOnlyOneRunAreListed) {
  const RunResult base = run_with({testing::timing_figures("http.request", 10, kMs, kMs, kMs),
                                   testing::timing_figures("ws.connect", 10, kMs, kMs, kMs), iterations(1)});
  const RunResult current = run_with({testing::timing_figures("http.request", 10, kMs, kMs, kMs),
                                      testing::timing_figures("ws.connect", 0, 0, 0, 0),  // registered, no samples
                                      testing::timing_figures("channel.join", 10, kMs, kMs, kMs), iterations(1)});
  const Comparison c = compare_runs(base, current, 10, "main.json", "branch.json");
  EXPECT_EQ(c.scenarios[0].only_in_base, std::vector<std::string>{"ws.connect"});
  EXPECT_EQ(c.scenarios[0].only_in_current, std::vector<std::string>{"channel.join"});
  const std::string text = render_comparison(c, CompareFormat::Text);
  EXPECT_NE(text.find("timings only in main.json: ws.connect\n"), std::string::npos) << text;
  EXPECT_NE(text.find("timings only in branch.json: channel.join\n"), std::string::npos) << text;
}

TEST(Compare, ScenariosPairByNameAndTheRestAreListed) {
  RunResult base = run_with({iterations(10)}, "A");
  base.results.push_back(run_with({iterations(10)}, "B").results[0]);
  RunResult current = run_with({iterations(10)}, "B");
  current.results.push_back(run_with({iterations(10)}, "C").results[0]);
  const Comparison c = compare_runs(base, current, 10, "x", "y");
  ASSERT_EQ(c.scenarios.size(), 1u);
  EXPECT_EQ(c.scenarios[0].base_scenario, "B");
  EXPECT_EQ(c.scenarios_only_in_base, std::vector<std::string>{"A"});
  EXPECT_EQ(c.scenarios_only_in_current, std::vector<std::string>{"C"});
}

TEST(Compare, SingleScenarioFilesPairWhateverTheirNames) {
  const Comparison c = compare_runs(run_with({iterations(10)}, "Old"), run_with({iterations(10)}, "New"), 10, "x", "y");
  ASSERT_EQ(c.scenarios.size(), 1u);
  EXPECT_NE(render_comparison(c, CompareFormat::Text).find("scenario Old vs New\n"), std::string::npos);
}

TEST(Compare, TextTable) {
  const RunResult base = run_with({testing::timing_figures("http.request", 100, 10 * kMs, 20 * kMs, 30 * kMs), iterations(100)});
  const RunResult current = run_with({testing::timing_figures("http.request", 100, 10 * kMs, 25 * kMs, 30 * kMs), iterations(100)});
  const std::string expected =
      "scenario Api\n"
      "metric            figure      main.json  branch.json     change\n"
      "http.request      p50           10.00ms      10.00ms      +0.0%\n"
      "http.request      p95           20.00ms      25.00ms     +25.0%  slower\n"
      "http.request      p99           30.00ms      30.00ms      +0.0%\n"
      "iterations        rate/s         100.00       100.00      +0.0%\n"
      "iteration.errors  error rate      0.00%        0.00%  +0.00 pts\n"
      "\n"
      "1 figure more than 10% slower\n";
  EXPECT_EQ(render_comparison(compare_runs(base, current, 10, "main.json", "branch.json"), CompareFormat::Text), expected);
}

TEST(Compare, MarkdownTableEscapesNames) {
  const RunResult base = run_with({testing::timing_figures("http.request|<x>", 100, 10 * kMs, 20 * kMs, 30 * kMs), iterations(100)});
  const RunResult current = run_with({testing::timing_figures("http.request|<x>", 100, 10 * kMs, 25 * kMs, 30 * kMs), iterations(100)});
  const std::string md = render_comparison(compare_runs(base, current, 10, "main.json", "branch.json"), CompareFormat::Markdown);
  EXPECT_NE(md.find("### Api\n\n| metric | figure | main.json | branch.json | change | |\n|---|---|---:|---:|---:|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| http.request\\|\\<x\\> | p95 | 20.00ms | 25.00ms | +25.0% | **slower** |\n"), std::string::npos) << md;
  EXPECT_NE(md.find("1 figure more than 10% slower\n"), std::string::npos);
}

TEST(Compare, NoRegressionVerdict) {
  const Comparison c = compare_runs(run_with({iterations(10)}), run_with({iterations(10)}), 5, "a", "b");
  const std::string text = render_comparison(c, CompareFormat::Text);
  EXPECT_EQ(text.substr(text.rfind('\n', text.size() - 2) + 1), "no figure more than 5% slower\n");
}

}  // namespace
}  // namespace stampede::report
