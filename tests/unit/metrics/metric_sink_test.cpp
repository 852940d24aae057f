#include "metrics/metric_sink.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace stampede::metrics {
namespace {

TEST(KindName, NamesEveryKind) {
  EXPECT_STREQ(kind_name(Kind::Timing), "timing");
  EXPECT_STREQ(kind_name(Kind::Counter), "counter");
  EXPECT_STREQ(kind_name(Kind::Check), "check");
  EXPECT_STREQ(kind_name(Kind::Gauge), "gauge");
}

TEST(Registry, InternsDenseStableIds) {
  Registry r;
  const MetricId a = r.intern("http.request", Kind::Timing);
  const MetricId b = r.intern("iteration.errors", Kind::Counter);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 1u);
  EXPECT_EQ(r.intern("http.request", Kind::Timing), a);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r.name(b), "iteration.errors");
  EXPECT_EQ(r.kind(b), Kind::Counter);
  MetricId found = 99;
  EXPECT_TRUE(r.find("iteration.errors", found));
  EXPECT_EQ(found, b);
  EXPECT_FALSE(r.find("nope", found));
}

TEST(Registry, ReRegisteringWithAnotherKindThrows) {
  Registry r;
  r.intern("x", Kind::Counter);
  try {
    r.intern("x", Kind::Timing);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "metric \"x\" is a counter, not a timing");
  }
}

TEST(Registry, ConcurrentInternsAgree) {
  Registry r;
  std::vector<std::vector<MetricId>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&r, &seen, t] {
      for (int i = 0; i < 200; ++i) seen[t].push_back(r.intern(fmt::format("m{}", i), Kind::Counter));
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(r.size(), 200u);
  for (int t = 1; t < 4; ++t) EXPECT_EQ(seen[t], seen[0]);
}

TEST(MetricSink, IdIsCachedAndChecksTheKind) {
  Registry r;
  MetricSink sink(r);
  const MetricId id = sink.id("ws.connect", Kind::Timing);
  EXPECT_EQ(sink.id(std::string_view("ws.connect"), Kind::Timing), id);
  EXPECT_EQ(&sink.registry(), &r);
  EXPECT_THROW(sink.id("ws.connect", Kind::Gauge), std::invalid_argument);
  // Another sink of the same run gets the same id.
  MetricSink other(r);
  EXPECT_EQ(other.id("ws.connect", Kind::Timing), id);
}

TEST(MetricSink, TakeMovesTheWindowOut) {
  Registry r;
  MetricSink sink(r);
  const MetricId t = sink.id("http.request", Kind::Timing);
  const MetricId c = sink.id("http.request.errors", Kind::Counter);
  const MetricId k = sink.id("status is 200", Kind::Check);
  const MetricId n = sink.id("bytes", Kind::Counter);
  sink.record(t, 5'000'000);
  sink.record(t, 7'000'000);
  sink.add_error(c, "refused");
  sink.add_error(c, "refused");
  sink.add_error(c, std::string_view("timeout"));
  sink.check(k, true);
  sink.check(k, false);
  sink.check(k, true);
  sink.add(n, 100);
  sink.add(n);
  sink.request_sent();
  sink.request_sent();
  sink.request_finished(true);

  const Snapshot s0 = sink.take(0);
  EXPECT_EQ(s0.second, 0);
  ASSERT_EQ(s0.metrics.size(), 4u);
  EXPECT_TRUE(s0.metrics[t].present);
  EXPECT_EQ(s0.metrics[t].count, 2u);
  EXPECT_EQ(s0.metrics[t].histogram.count(), 2u);
  EXPECT_EQ(s0.metrics[t].histogram.max(), 7'000'000);
  EXPECT_EQ(s0.metrics[c].count, 3u);
  EXPECT_EQ(s0.metrics[c].reasons.at("refused"), 2u);
  EXPECT_EQ(s0.metrics[c].reasons.at("timeout"), 1u);
  EXPECT_EQ(s0.metrics[k].count, 3u);
  EXPECT_EQ(s0.metrics[k].failed, 1u);
  EXPECT_EQ(s0.metrics[n].count, 101u);
  EXPECT_EQ(s0.requests.sent, 2u);
  EXPECT_EQ(s0.requests.completed, 1u);
  EXPECT_EQ(s0.requests.failed, 0u);

  sink.record(t, 1'000);
  sink.request_finished(false);
  const Snapshot s1 = sink.take(1);
  EXPECT_EQ(s1.second, 1);
  EXPECT_EQ(s1.metrics[t].histogram.count(), 1u);
  EXPECT_EQ(s1.metrics[t].histogram.min(), 1'000);
  EXPECT_EQ(s1.requests.sent, 0u);
  EXPECT_EQ(s1.requests.failed, 1u);
  for (const MetricId other : {c, k, n}) {
    EXPECT_TRUE(other >= s1.metrics.size() || !s1.metrics[other].present) << other;
  }

  const Snapshot s2 = sink.take(2);
  for (const MetricData& d : s2.metrics) EXPECT_FALSE(d.present);
}

TEST(MetricSink, GaugesCarryTheirLevelIntoTheNextWindow) {
  Registry r;
  MetricSink sink(r);
  const MetricId vus = sink.id("vus", Kind::Gauge);
  sink.set_gauge(vus, 10);
  sink.set_gauge(vus, 5);
  const Snapshot s0 = sink.take(0);
  EXPECT_EQ(s0.metrics[vus].gauge_last, 5);
  EXPECT_EQ(s0.metrics[vus].gauge_max, 10);
  EXPECT_EQ(s0.metrics[vus].count, 2u);

  // Nothing set during second 1: the level is still 5.
  const Snapshot s1 = sink.take(1);
  EXPECT_TRUE(s1.metrics[vus].present);
  EXPECT_EQ(s1.metrics[vus].gauge_last, 5);
  EXPECT_EQ(s1.metrics[vus].gauge_max, 5);
  EXPECT_EQ(s1.metrics[vus].count, 0u);

  // Lowered during second 2: the window still started at 5.
  sink.set_gauge(vus, 2);
  const Snapshot s2 = sink.take(2);
  EXPECT_EQ(s2.metrics[vus].gauge_last, 2);
  EXPECT_EQ(s2.metrics[vus].gauge_max, 5);

  // A level of 0 carried over is still a level: a negative value does not become the max.
  sink.set_gauge(vus, 0);
  (void)sink.take(3);
  sink.set_gauge(vus, -1);
  const Snapshot s4 = sink.take(4);
  EXPECT_EQ(s4.metrics[vus].gauge_max, 0);
  EXPECT_EQ(s4.metrics[vus].gauge_last, -1);
}

TEST(MetricSink, ReasonsAreBounded) {
  Registry r;
  MetricSink sink(r);
  const MetricId errors = sink.id("iteration.errors", Kind::Counter);
  for (int i = 0; i < 1000; ++i) sink.add_error(errors, fmt::format("unique failure {}", i));
  const Snapshot s = sink.take(0);
  const MetricData& d = s.metrics[errors];
  EXPECT_EQ(d.count, 1000u);
  EXPECT_EQ(d.reasons.size(), MetricData::kMaxReasons + 1);
  std::uint64_t total = 0;
  for (const auto& [reason, n] : d.reasons) total += n;
  EXPECT_EQ(total, 1000u);
  EXPECT_EQ(d.reasons.at(std::string(MetricData::kOtherReason)), 1000u - MetricData::kMaxReasons);
}

TEST(MetricData, MergeParallelAddsEverythingIncludingGauges) {
  MetricData a;
  a.present = true;
  a.histogram.record(10);
  a.count = 1;
  a.gauge_last = 3;
  a.gauge_max = 4;
  a.reasons["refused"] = 2;
  MetricData b;
  b.present = true;
  b.histogram.record(30);
  b.count = 1;
  b.failed = 1;
  b.gauge_last = 5;
  b.gauge_max = 6;
  b.reasons["refused"] = 1;
  b.reasons["reset"] = 1;
  a.merge_parallel(b);
  EXPECT_EQ(a.histogram.count(), 2u);
  EXPECT_EQ(a.count, 2u);
  EXPECT_EQ(a.failed, 1u);
  EXPECT_EQ(a.gauge_last, 8);
  EXPECT_EQ(a.gauge_max, 10);
  EXPECT_EQ(a.reasons.at("refused"), 3u);
  EXPECT_EQ(a.reasons.at("reset"), 1u);

  MetricData absent;
  a.merge_parallel(absent);
  EXPECT_EQ(a.count, 2u);
  MetricData fresh;
  fresh.merge_parallel(absent);
  EXPECT_FALSE(fresh.present);
}

TEST(MetricData, MergeSequentialKeepsGaugeMaxAndLatest) {
  MetricData run;
  MetricData s0;
  s0.present = true;
  s0.gauge_max = 50;
  s0.gauge_last = 40;
  MetricData s1;
  s1.present = true;
  s1.gauge_max = 30;
  s1.gauge_last = 20;
  run.merge_sequential(s0);
  run.merge_sequential(s1);
  EXPECT_EQ(run.gauge_max, 50);
  EXPECT_EQ(run.gauge_last, 20);
}

TEST(MetricSink, RecordsManySamplesOfOneValueAtOnce) {
  Registry registry;
  MetricSink sink(registry);
  const MetricId id = sink.id("server.x_seconds", Kind::Timing);
  sink.record(id, 5'000'000, 3);
  sink.record(id, 7'000'000, 0);  // nothing
  sink.record(id, 9'000'000, 1);
  const Snapshot s = sink.take(0);
  EXPECT_EQ(s.metrics[id].count, 4u);
  EXPECT_EQ(s.metrics[id].histogram.count(), 4u);
  EXPECT_EQ(s.metrics[id].histogram.percentile(75), 5'000'000);
  EXPECT_EQ(s.metrics[id].histogram.max(), 9'000'000);
}

TEST(MetricSink, AForgottenGaugeIsNotCarriedAndItsCarriedLevelIsDropped) {
  Registry registry;
  MetricSink sink(registry);
  const MetricId kept = sink.id("kept", Kind::Gauge);
  const MetricId gone = sink.id("gone", Kind::Gauge);
  const MetricId set_then_forgotten = sink.id("set_then_forgotten", Kind::Gauge);
  sink.set_gauge(kept, 1);
  sink.set_gauge(gone, 2);
  sink.set_gauge(set_then_forgotten, 3);
  sink.take(0);
  // Second 1: all three carried; `gone` forgotten before anything set it again, the third
  // set again and then forgotten (its level this second is known, the next one's is not).
  sink.set_gauge(set_then_forgotten, 4);
  sink.forget_gauge(gone);
  sink.forget_gauge(set_then_forgotten);
  const Snapshot s1 = sink.take(1);
  EXPECT_TRUE(s1.metrics[kept].present);
  EXPECT_FALSE(s1.metrics[gone].present);
  EXPECT_TRUE(s1.metrics[set_then_forgotten].present);
  EXPECT_EQ(s1.metrics[set_then_forgotten].gauge_last, 4);
  const Snapshot s2 = sink.take(2);
  EXPECT_TRUE(s2.metrics[kept].present);
  EXPECT_EQ(s2.metrics[kept].gauge_last, 1);
  EXPECT_FALSE(s2.metrics.size() > gone && s2.metrics[gone].present);
  EXPECT_FALSE(s2.metrics.size() > set_then_forgotten && s2.metrics[set_then_forgotten].present);
  // Set again later, it is carried again.
  sink.set_gauge(gone, 5);
  sink.take(3);
  const Snapshot s4 = sink.take(4);
  EXPECT_EQ(s4.metrics[gone].gauge_last, 5);
}

TEST(Snapshot, MergeParallelAlignsMetricsById) {
  Snapshot a;
  a.metrics.resize(1);
  a.metrics[0].present = true;
  a.metrics[0].count = 2;
  a.requests.sent = 3;
  Snapshot b;
  b.metrics.resize(3);
  b.metrics[2].present = true;
  b.metrics[2].count = 5;
  b.requests.sent = 4;
  b.requests.completed = 1;
  a.merge_parallel(b);
  ASSERT_EQ(a.metrics.size(), 3u);
  EXPECT_EQ(a.metrics[0].count, 2u);
  EXPECT_FALSE(a.metrics[1].present);
  EXPECT_EQ(a.metrics[2].count, 5u);
  EXPECT_EQ(a.requests.sent, 7u);
  EXPECT_EQ(a.requests.completed, 1u);
}

}  // namespace
}  // namespace stampede::metrics
