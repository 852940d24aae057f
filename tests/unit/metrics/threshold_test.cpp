#include "metrics/threshold.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "metrics/histogram_samples.hpp"
#include "metrics/metric_table.hpp"

namespace stampede::metrics {
namespace {

using samples::kMs;

// A run of 10 seconds: 100 requests from 1ms to 100ms, 3 refused connections, checks
// with 2 failures out of 50, a VU gauge, and a timing and a counter that never fired.
class Thresholds : public ::testing::Test {
 protected:
  Thresholds() {
    MetricSink sink(registry);
    const MetricId latency = sink.id("http.request", Kind::Timing);
    for (int i = 1; i <= 100; ++i) sink.record(latency, i * kMs);
    const MetricId errors = sink.id("http.request.errors", Kind::Counter);
    for (int i = 0; i < 3; ++i) sink.add_error(errors, "refused");
    const MetricId check = sink.id("status is 200", Kind::Check);
    for (int i = 0; i < 50; ++i) sink.check(check, i >= 2);
    sink.set_gauge(sink.id("vus", Kind::Gauge), 20);
    const MetricId sizes = sink.id("live.diff.bytes", Kind::Distribution);
    for (int i = 1; i <= 100; ++i) sink.record(sizes, i * 10);  // 10 B .. 1,000 B
    sink.id("ws.connect", Kind::Timing);
    sink.id("iteration.errors", Kind::Counter);
    Summary summary;
    summary.add(sink.take(0));
    table = make_metric_table(summary, registry);
  }

  ThresholdResult judge_(const std::string& metric, const std::string& aggregation, double limit) {
    return judge({metric, aggregation, limit, "test.lua"}, table, 10.0);
  }

  Registry registry;
  MetricTable table;
};

TEST_F(Thresholds, TimingAggregationsAreInMilliseconds) {
  struct Case {
    const char* aggregation;
    double expected_ms;
  };
  for (const Case c : {Case{"min", 1}, Case{"max", 100}, Case{"mean", 50.5}, Case{"p50", 50},
                       Case{"p90", 90}, Case{"p95", 95}, Case{"p99", 99}}) {
    const ThresholdResult r = judge_("http.request", c.aggregation, 1000);
    EXPECT_TRUE(r.judged) << c.aggregation;
    EXPECT_TRUE(r.pass) << c.aggregation;
    // Within the histogram's 0.05%.
    EXPECT_NEAR(r.value, c.expected_ms, c.expected_ms / 2000) << c.aggregation;
  }
}

TEST_F(Thresholds, PassesAtTheLimitAndFailsAbove) {
  const ThresholdResult at = judge_("http.request", "max", 100);
  EXPECT_TRUE(at.pass);
  EXPECT_EQ(at.message, "max 100ms <= 100ms");
  const ThresholdResult above = judge_("http.request", "max", 50);
  EXPECT_FALSE(above.pass);
  EXPECT_TRUE(above.judged);
  EXPECT_EQ(above.message, "max 100ms > 50ms");
  EXPECT_EQ(above.spec.source, "test.lua");
}

TEST_F(Thresholds, CountAndRateWorkForEveryKind) {
  EXPECT_EQ(judge_("http.request", "count", 1e9).value, 100);
  EXPECT_EQ(judge_("http.request", "rate", 1e9).value, 10);  // 100 over 10 s
  EXPECT_EQ(judge_("http.request.errors", "count", 1e9).value, 3);
  EXPECT_DOUBLE_EQ(judge_("http.request.errors", "rate", 1e9).value, 0.3);
  EXPECT_EQ(judge_("status is 200", "count", 1e9).value, 50);
  EXPECT_EQ(judge_("vus", "count", 1e9).value, 1);

  const ThresholdResult errors = judge_("http.request.errors", "count", 0);
  EXPECT_FALSE(errors.pass);
  EXPECT_EQ(errors.message, "count 3 > 0");
}

TEST_F(Thresholds, CheckAggregations) {
  EXPECT_EQ(judge_("status is 200", "failed", 5).value, 2);
  const ThresholdResult rate = judge_("status is 200", "failed_rate", 0.01);
  EXPECT_DOUBLE_EQ(rate.value, 0.04);
  EXPECT_FALSE(rate.pass);
  EXPECT_TRUE(judge_("status is 200", "failed_rate", 0.05).pass);
}

TEST_F(Thresholds, ACounterThatNeverFiredIsZero) {
  const ThresholdResult r = judge_("iteration.errors", "count", 0);
  EXPECT_TRUE(r.judged);
  EXPECT_TRUE(r.pass);
  EXPECT_EQ(r.value, 0);
}

TEST_F(Thresholds, NoSamplesFails) {
  const ThresholdResult unknown = judge_("http.requests", "p95", 1e9);
  EXPECT_FALSE(unknown.pass);
  EXPECT_FALSE(unknown.judged);
  EXPECT_EQ(unknown.message, "no samples: \"http.requests\" was never recorded (did you mean \"http.request\"?)");

  const ThresholdResult silent = judge_("ws.connect", "p95", 1e9);
  EXPECT_FALSE(silent.pass);
  EXPECT_EQ(silent.message, "no samples: \"ws.connect\" recorded nothing");

  // Even `count <= huge` must not pass on a timing that recorded nothing.
  EXPECT_FALSE(judge_("ws.connect", "count", 1e9).pass);
}

TEST_F(Thresholds, ANameNearABuiltinOneSaysWhichItMayHaveMeant) {
  EXPECT_EQ(judge_("ws.cnonect", "p95", 1).message,
            "no samples: \"ws.cnonect\" was never recorded (did you mean \"ws.connect\"?)");
  EXPECT_EQ(judge_("iteration.eror", "count", 0).message,
            "no samples: \"iteration.eror\" was never recorded (did you mean \"iteration.errors\"?)");
  // Far from every built-in name, or a named request row: no guess.
  EXPECT_EQ(judge_("checkout.latency", "p95", 1).message, "no samples: \"checkout.latency\" was never recorded");
  EXPECT_EQ(judge_("http.request.ab", "p95", 1).message, "no samples: \"http.request.ab\" was never recorded");
}

TEST_F(Thresholds, ACounterNeverIncrementedSaysHowToRecordZero) {
  // `if res.status ~= 200 then stampede.increment("bad") end` with {"bad", count = 0}: a
  // healthy run never creates the counter, and the message says how to.
  const ThresholdResult r = judge_("bad", "count", 0);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.message,
            "no samples: \"bad\" was never recorded (a counter of events that may not happen: call "
            "stampede.increment(\"bad\", 0) in run so that zero is recorded)");
  EXPECT_NE(judge_("bad", "rate", 1).message.find("stampede.increment(\"bad\", 0)"), std::string::npos);
  // Not for a timing's aggregation, nor for a built-in metric a run did not use.
  EXPECT_EQ(judge_("bad", "p95", 1).message.find("increment"), std::string::npos);
  EXPECT_EQ(judge_("live.page.errors", "count", 0).message.find("increment"), std::string::npos);
}

TEST_F(Thresholds, KindMismatchFails) {
  const ThresholdResult r = judge_("http.request.errors", "p95", 1e9);
  EXPECT_FALSE(r.pass);
  EXPECT_FALSE(r.judged);
  EXPECT_EQ(r.message, "p95 applies to a timing, but \"http.request.errors\" is a counter");
  EXPECT_EQ(judge_("http.request", "failed_rate", 1).message,
            "failed_rate applies to a check, but \"http.request\" is a timing");
}

TEST_F(Thresholds, MaxOfAGaugeIsItsHighestLevel) {
  // {"generator.cpu", max = 90}: a gauge's max is a plain level, not milliseconds.
  const ThresholdResult below = judge_("vus", "max", 25);
  EXPECT_TRUE(below.judged);
  EXPECT_TRUE(below.pass);
  EXPECT_EQ(below.value, 20);
  EXPECT_EQ(result_unit(below), AggregationUnit::Count);
  EXPECT_EQ(below.message, "max 20 <= 25");
  EXPECT_FALSE(judge_("vus", "max", 19).pass);
  EXPECT_EQ(judge_("vus", "p95", 1e9).message, "p95 applies to a timing, but \"vus\" is a gauge");
  EXPECT_EQ(judge_("status is 200", "max", 1e9).message,
            "max applies to a timing or a gauge, but \"status is 200\" is a check");
}

TEST_F(Thresholds, UnknownAggregationFailsWithTheValidOnes) {
  const ThresholdResult r = judge_("http.request", "p98", 1e9);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.message, validate_aggregation("p98"));
  EXPECT_EQ(validate_aggregation("p98"),
            "unknown aggregation \"p98\": use min, mean, p50, p90, p95, p99 or max (timings, in ms), "
            "failed or failed_rate (checks), count or rate (any metric)");
  for (const char* ok : {"min", "mean", "p50", "p90", "p95", "p99", "max", "failed", "failed_rate",
                         "count", "rate"}) {
    EXPECT_EQ(validate_aggregation(ok), "") << ok;
  }
}

TEST_F(Thresholds, UnitsOfAggregations) {
  EXPECT_EQ(aggregation_unit("p99"), AggregationUnit::Milliseconds);
  EXPECT_EQ(aggregation_unit("failed"), AggregationUnit::Count);
  EXPECT_EQ(aggregation_unit("failed_rate"), AggregationUnit::Ratio);
  EXPECT_EQ(aggregation_unit("rate"), AggregationUnit::PerSecond);
}

TEST_F(Thresholds, RateNeedsADurationAndNaNNeverPasses) {
  const ThresholdResult r = judge({"http.request", "rate", 1e9, ""}, table, 0);
  EXPECT_FALSE(r.pass);
  EXPECT_FALSE(r.judged);
  EXPECT_FALSE(judge_("http.request", "p95", std::nan("")).pass);
}

TEST(MetricTable, ListsEveryRegisteredMetricByName) {
  Registry registry;
  registry.intern("zeta", Kind::Counter);
  registry.intern("alpha", Kind::Timing);
  registry.intern("_internal", Kind::Counter);
  Summary summary;
  Snapshot s;
  s.metrics.resize(1);
  s.metrics[0].present = true;
  s.metrics[0].count = 4;
  summary.add(s);
  const MetricTable table = make_metric_table(summary, registry);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].name, "_internal");
  EXPECT_EQ(table[1].name, "alpha");
  EXPECT_EQ(table[2].name, "zeta");
  EXPECT_EQ(table[2].data.count, 4u);
  EXPECT_FALSE(table[1].data.present);
  ASSERT_NE(find_metric(table, "zeta"), nullptr);
  EXPECT_EQ(find_metric(table, "zeta")->kind, Kind::Counter);
  EXPECT_EQ(find_metric(table, "beta"), nullptr);
}

TEST(Summary, LateSecondsRaiseTheGaugeMaxButNotTheLast) {
  Summary summary;
  EXPECT_TRUE(summary.empty());
  Snapshot s;
  s.metrics.resize(1);
  s.metrics[0].present = true;
  s.second = 5;
  s.metrics[0].gauge_last = s.metrics[0].gauge_max = 10;
  summary.add(s);
  s.second = 3;
  s.metrics[0].gauge_last = s.metrics[0].gauge_max = 40;
  summary.add(s);
  EXPECT_EQ(summary.first_second, 3);
  EXPECT_EQ(summary.last_second, 5);
  EXPECT_EQ(summary.metrics[0].gauge_max, 40);
  EXPECT_EQ(summary.metrics[0].gauge_last, 10);
}

TEST_F(Thresholds, ADistributionIsJudgedInItsOwnUnitNotInMilliseconds) {
  const ThresholdResult p95 = judge_("live.diff.bytes", "p95", 960);
  EXPECT_TRUE(p95.judged) << p95.message;
  EXPECT_TRUE(p95.pass) << p95.message;
  EXPECT_NEAR(p95.value, 950, 950 * 0.01);
  EXPECT_EQ(result_unit(p95), AggregationUnit::Count);
  // Read as nanoseconds in ms, 1,000 B would be 0.001 and pass a limit of 5.
  const ThresholdResult max = judge_("live.diff.bytes", "max", 5);
  EXPECT_FALSE(max.pass) << max.message;
  EXPECT_NEAR(max.value, 1000, 10);
  EXPECT_EQ(judge_("live.diff.bytes", "count", 100).value, 100);
  EXPECT_FALSE(judge_("live.diff.bytes", "failed_rate", 1).judged);
}

}  // namespace
}  // namespace stampede::metrics
