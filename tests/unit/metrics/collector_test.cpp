#include "metrics/collector.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

#include "metrics/metric_sink.hpp"

namespace stampede::metrics {
namespace {

// Two workers of one run, each with its own sink, as the engine has them.
class TwoWorkers : public ::testing::Test {
 protected:
  TwoWorkers()
      : sinks{MetricSink(registry), MetricSink(registry)},
        latency(registry.intern("http.request", Kind::Timing)),
        errors(registry.intern("iteration.errors", Kind::Counter)),
        vus(registry.intern("vus", Kind::Gauge)) {
    collector.subscribe([this](const Snapshot& s) { delivered.push_back(s.second); });
  }

  // Worker `w` finishes second `s` having made `requests` requests of `ms` each.
  void push(std::size_t w, std::int64_t s, int requests, std::int64_t ms, double level) {
    for (int i = 0; i < requests; ++i) {
      sinks[w].record(latency, ms * 1'000'000);
      sinks[w].request_sent();
      sinks[w].request_finished(true);
    }
    sinks[w].set_gauge(vus, level);
    collector.push(w, sinks[w].take(s));
  }

  Registry registry;
  MetricSink sinks[2];
  MetricId latency, errors, vus;
  Collector collector{2};
  std::vector<std::int64_t> delivered;
};

TEST_F(TwoWorkers, ASecondIsMergedOnceBothWorkersDeliveredIt) {
  push(0, 0, 3, 10, 5);
  EXPECT_TRUE(collector.timeline().empty());
  EXPECT_TRUE(delivered.empty());
  push(1, 0, 2, 20, 7);
  ASSERT_EQ(collector.timeline().size(), 1u);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0}));

  const Snapshot& s0 = *collector.timeline()[0];
  EXPECT_EQ(s0.second, 0);
  EXPECT_EQ(s0.metrics[latency].histogram.count(), 5u);
  EXPECT_EQ(s0.metrics[latency].histogram.max(), 20'000'000);
  EXPECT_EQ(s0.metrics[vus].gauge_last, 12);  // the workers' VUs add up
  EXPECT_EQ(s0.requests.completed, 5u);
}

TEST_F(TwoWorkers, ALateWorkerHoldsSecondsBackUntilItCatchesUp) {
  push(0, 0, 1, 10, 1);
  push(0, 1, 1, 10, 1);
  push(0, 2, 1, 10, 1);
  EXPECT_TRUE(delivered.empty());
  push(1, 0, 1, 30, 1);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0}));
  push(1, 1, 1, 30, 1);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0, 1}));
  // Worker 1 never delivers second 2: the end of the run merges what there is.
  collector.flush();
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0, 1, 2}));
  const auto timeline = collector.timeline();
  ASSERT_EQ(timeline.size(), 3u);
  EXPECT_EQ(timeline[0]->metrics[latency].histogram.count(), 2u);
  EXPECT_EQ(timeline[2]->metrics[latency].histogram.count(), 1u);
  EXPECT_EQ(collector.late_snapshots(), 0u);
}

TEST_F(TwoWorkers, AWorkerThatSkippedASecondDoesNotBlockIt) {
  push(0, 0, 1, 10, 1);
  push(0, 1, 1, 10, 1);
  push(1, 0, 1, 10, 1);
  (void)sinks[1].take(1);  // stalled through second 1: nothing delivered for it
  push(1, 2, 1, 10, 1);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0, 1}));
  push(0, 2, 1, 10, 1);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0, 1, 2}));
}

TEST_F(TwoWorkers, AFinishedWorkerIsNotWaitedFor) {
  push(0, 0, 1, 10, 1);
  push(1, 0, 1, 10, 1);
  collector.finish(1);
  push(0, 1, 1, 10, 1);
  push(0, 2, 1, 10, 1);
  EXPECT_EQ(delivered, (std::vector<std::int64_t>{0, 1, 2}));
}

TEST_F(TwoWorkers, DataForAMergedSecondIsAddedNotLost) {
  push(0, 0, 2, 10, 1);
  collector.flush();  // worker 1 had not delivered second 0
  ASSERT_EQ(delivered, (std::vector<std::int64_t>{0}));
  const auto before = collector.timeline();
  push(1, 0, 3, 10, 1);
  EXPECT_EQ(collector.late_snapshots(), 1u);
  EXPECT_EQ(delivered.size(), 1u);  // subscribers are not called twice for a second
  EXPECT_EQ(collector.timeline()[0]->metrics[latency].histogram.count(), 5u);
  EXPECT_EQ(before[0]->metrics[latency].histogram.count(), 2u);  // a reader's copy is unchanged
  EXPECT_EQ(collector.summary().metrics[latency].histogram.count(), 5u);
  EXPECT_EQ(collector.summary().requests.sent, 5u);
}

TEST_F(TwoWorkers, SummaryMergesOverTime) {
  sinks[0].add_error(errors, "refused");
  push(0, 0, 1, 10, 4);
  push(1, 0, 1, 20, 6);  // 10 VUs in second 0
  sinks[1].add_error(errors, "timeout");
  sinks[1].add_error(errors, "refused");
  push(0, 1, 1, 30, 1);
  push(1, 1, 1, 40, 2);  // 3 VUs in second 1
  const Summary summary = collector.summary();
  EXPECT_EQ(summary.first_second, 0);
  EXPECT_EQ(summary.last_second, 1);
  EXPECT_EQ(summary.metrics[latency].histogram.count(), 4u);
  EXPECT_EQ(summary.metrics[latency].histogram.max(), 40'000'000);
  EXPECT_EQ(summary.metrics[errors].count, 3u);
  EXPECT_EQ(summary.metrics[errors].reasons.at("refused"), 2u);
  EXPECT_EQ(summary.metrics[vus].gauge_max, 10);
  EXPECT_EQ(summary.metrics[vus].gauge_last, 3);
  EXPECT_EQ(summary.requests.sent, 4u);
}

TEST_F(TwoWorkers, SummaryWindowMergesOnlyItsSeconds) {
  for (std::int64_t s = 0; s < 10; ++s) {
    push(0, s, static_cast<int>(s) + 1, s + 1, static_cast<double>(s));
    push(1, s, 1, 100, 0);
  }
  const Summary window = collector.summary_window(3, 5);
  EXPECT_EQ(window.first_second, 3);
  EXPECT_EQ(window.last_second, 5);
  // worker 0: 4 + 5 + 6 requests, worker 1: one per second
  EXPECT_EQ(window.metrics[latency].histogram.count(), 18u);
  EXPECT_EQ(window.metrics[latency].histogram.min(), 4'000'000);
  EXPECT_EQ(window.metrics[vus].gauge_max, 5);
  EXPECT_EQ(window.metrics[vus].gauge_last, 5);
  EXPECT_EQ(window.requests.sent, 18u);
  EXPECT_TRUE(collector.summary_window(20, 30).empty());
  EXPECT_EQ(collector.summary().metrics[latency].histogram.count(), 55u + 10u);
}

TEST_F(TwoWorkers, RejectsAnUnknownWorker) {
  EXPECT_THROW(collector.push(2, Snapshot{}), std::invalid_argument);
  EXPECT_THROW(collector.finish(7), std::invalid_argument);
  EXPECT_THROW(Collector(0), std::invalid_argument);
}

TEST_F(TwoWorkers, SubscribersMayReadTheCollector) {
  std::vector<std::size_t> timeline_sizes;
  collector.subscribe([&](const Snapshot&) {
    timeline_sizes.push_back(collector.timeline().size());
    (void)collector.summary();
  });
  push(0, 0, 1, 1, 1);
  push(1, 0, 1, 1, 1);
  push(0, 1, 1, 1, 1);
  push(1, 1, 1, 1, 1);
  EXPECT_EQ(timeline_sizes, (std::vector<std::size_t>{1, 2}));
}

// Workers on their own threads: every second is delivered once, in order, and nothing
// recorded is lost.
TEST(Collector, ManyThreadsDeliverEverySecondOnceInOrder) {
  constexpr int kWorkers = 4;
  constexpr int kSeconds = 200;
  Registry registry;
  const MetricId latency = registry.intern("http.request", Kind::Timing);
  Collector collector(kWorkers);
  std::vector<std::int64_t> delivered;  // written by one subscriber call at a time
  std::uint64_t delivered_samples = 0;
  collector.subscribe([&](const Snapshot& s) {
    delivered.push_back(s.second);
    delivered_samples += s.metrics[latency].histogram.count();
  });
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      MetricSink sink(registry);
      for (int s = 0; s < kSeconds; ++s) {
        for (int i = 0; i <= w; ++i) sink.record(latency, 1000 + s);
        collector.push(static_cast<std::size_t>(w), sink.take(s));
      }
      collector.finish(static_cast<std::size_t>(w));
    });
  }
  for (auto& t : threads) t.join();
  collector.flush();
  ASSERT_EQ(delivered.size(), static_cast<std::size_t>(kSeconds));
  for (int s = 0; s < kSeconds; ++s) EXPECT_EQ(delivered[s], s);
  EXPECT_EQ(delivered_samples, 10u * kSeconds);
  EXPECT_EQ(collector.summary().metrics[latency].histogram.count(), 10u * kSeconds);
  EXPECT_EQ(collector.late_snapshots(), 0u);
}

}  // namespace
}  // namespace stampede::metrics
