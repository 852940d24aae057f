#include "report/run_result_builder.hpp"

#include <gtest/gtest.h>

#include "metrics/names.hpp"
#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

using testing::kMs;

metrics::NamedMetric named(std::string name, metrics::Kind kind) {
  metrics::NamedMetric m{std::move(name), kind, {}};
  m.data.present = true;
  return m;
}

TEST(RunResultBuilder, TimingFiguresAreTheHistogramsAndRatesPerSecondOfTheWindow) {
  metrics::NamedMetric m = named("http.request", metrics::Kind::Timing);
  for (int i = 1; i <= 100; ++i) m.data.histogram.record(i * kMs);
  m.data.count = 100;
  const MetricFigures f = figures_of(m, 4.0);
  EXPECT_EQ(f.count, 100u);
  EXPECT_DOUBLE_EQ(f.rate, 25);
  EXPECT_EQ(f.min, 1 * kMs);
  EXPECT_EQ(f.max, 100 * kMs);
  EXPECT_EQ(f.p50, m.data.histogram.percentile(50));
  EXPECT_EQ(f.p90, m.data.histogram.percentile(90));
  EXPECT_EQ(f.p95, m.data.histogram.percentile(95));
  EXPECT_EQ(f.p99, m.data.histogram.percentile(99));
  EXPECT_DOUBLE_EQ(f.mean, 50.5 * kMs);
}

TEST(RunResultBuilder, CountersChecksAndGauges) {
  metrics::NamedMetric errors = named("http.request.errors", metrics::Kind::Counter);
  errors.data.count = 12;
  errors.data.reasons = {{"refused", 9}, {"reset", 1}, {"timeout", 2}};
  const MetricFigures e = figures_of(errors, 2.0);
  EXPECT_EQ(e.count, 12u);
  EXPECT_DOUBLE_EQ(e.rate, 6);
  ASSERT_EQ(e.reasons.size(), 3u);
  EXPECT_EQ(e.reasons[0].reason, "refused");  // most frequent first
  EXPECT_EQ(e.reasons[1].reason, "timeout");
  EXPECT_EQ(e.reasons[2].reason, "reset");

  metrics::NamedMetric check = named("status is 200", metrics::Kind::Check);
  check.data.count = 100;
  check.data.failed = 3;
  const MetricFigures c = figures_of(check, 1.0);
  EXPECT_EQ(c.passes, 97u);
  EXPECT_EQ(c.fails, 3u);

  metrics::NamedMetric vus = named("vus", metrics::Kind::Gauge);
  vus.data.gauge_max = 500;
  vus.data.gauge_last = 20;
  const MetricFigures g = figures_of(vus, 1.0);
  EXPECT_EQ(g.gauge_max, 500);
  EXPECT_EQ(g.gauge_last, 20);
}

TEST(RunResultBuilder, LeavesInternalMetricsOut) {
  const metrics::MetricTable table = {named("_loop.lag", metrics::Kind::Counter), named("iterations", metrics::Kind::Counter)};
  const auto figures = figures_of(table, 1.0);
  ASSERT_EQ(figures.size(), 1u);
  EXPECT_EQ(figures[0].name, "iterations");
}

TEST(RunResultBuilder, SecondWindowIsAWholeSecondButTheLastPartialOne) {
  EXPECT_EQ(second_window(0, 5 * kSecond), kSecond);
  EXPECT_EQ(second_window(4, 4 * kSecond + 250 * kMs), 250 * kMs);
  EXPECT_EQ(second_window(5, 4 * kSecond), 0);
}

TEST(RunResultBuilder, SecondResultNamesTheMetricsAndPicksTheRunFigures) {
  metrics::Registry registry;
  metrics::MetricSink sink(registry);
  const auto request = sink.id("http.request", metrics::Kind::Timing);
  const auto iterations = sink.id(metrics::names::kIterations, metrics::Kind::Counter);
  const auto errors = sink.id(metrics::names::kIterationErrors, metrics::Kind::Counter);
  const auto dropped = sink.id(metrics::names::kDroppedIterations, metrics::Kind::Counter);
  const auto vus = sink.id(metrics::names::kVus, metrics::Kind::Gauge);
  sink.id("never.recorded", metrics::Kind::Timing);
  sink.id("_internal", metrics::Kind::Counter);
  sink.add(sink.id("_internal", metrics::Kind::Counter));
  for (int i = 0; i < 10; ++i) sink.record(request, 5 * kMs);
  sink.add(iterations, 10);
  sink.add_error(errors, "boom");
  sink.add(dropped, 2);
  sink.set_gauge(vus, 7);
  sink.request_sent();
  sink.request_finished(true);

  const SecondResult s = second_result(sink.take(3), registry, 500 * kMs);
  EXPECT_EQ(s.second, 3);
  EXPECT_EQ(s.vus, 7);
  EXPECT_EQ(s.iterations, 10u);
  EXPECT_EQ(s.errors, 1u);
  EXPECT_EQ(s.dropped, 2u);
  EXPECT_EQ(s.requests.sent, 1u);
  EXPECT_FALSE(s.cpu_cores.has_value());
  std::vector<std::string> names;
  for (const MetricFigures& m : s.metrics) names.push_back(m.name);
  EXPECT_EQ(names, (std::vector<std::string>{"http.request", "iteration.errors", "iterations", "iterations.dropped", "vus"}));
  EXPECT_DOUBLE_EQ(find_figures(s.metrics, "http.request")->rate, 20);  // 10 in half a second
}

TEST(RunResultBuilder, FillSummaryCopiesTheSummaryModel) {
  SummaryModel model;
  model.scenario = "S";
  model.duration = 2 * kSecond;
  model.window_end = 2 * kSecond;
  metrics::NamedMetric it = named("iterations", metrics::Kind::Counter);
  it.data.count = 10;
  model.metrics = {it};
  model.requests = {3, 2, 1};
  model.iteration_errors = {{"rare", 1}, {"common", 5}};
  ScenarioResult r;
  fill_summary(r, model);
  EXPECT_EQ(r.scenario, "S");
  EXPECT_EQ(r.duration, 2 * kSecond);
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(r.metrics[0].rate, 5);
  EXPECT_EQ(r.requests.failed, 1u);
  EXPECT_EQ(r.iteration_errors[0].message, "common");  // most frequent first
  EXPECT_TRUE(r.passed());
}

}  // namespace
}  // namespace stampede::report
