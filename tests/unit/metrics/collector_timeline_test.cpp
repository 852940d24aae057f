// The timeline keeps every second of a run: its size is what a long run costs in memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "metrics/collector.hpp"
#include "metrics/histogram_samples.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::metrics {
namespace {

using samples::kMs;

// Everything a timeline entry holds: the Snapshot, its metric slots, and the
// histograms' heap (memory_bytes also counts the Histogram inside each slot).
std::size_t entry_bytes(const Snapshot& s) {
  std::size_t bytes = sizeof(Snapshot) + s.metrics.capacity() * (sizeof(MetricData) - sizeof(Histogram));
  for (const MetricData& m : s.metrics) bytes += m.histogram.memory_bytes();
  return bytes;
}

// Lognormal latencies, drawn once: an hour of seconds reads from the pool at random
// offsets, so the test spends its time in the collector, not in std::log.
class LatencyPool {
 public:
  LatencyPool(double median_ms, double sigma, std::uint64_t seed) : gen_(seed) {
    std::lognormal_distribution<double> latency(std::log(median_ms * kMs), sigma);
    values_.resize(1 << 16);
    for (std::int64_t& v : values_) v = static_cast<std::int64_t>(latency(gen_));
  }
  // `n` consecutive values from a random place.
  template <typename F>
  void draw(int n, F&& use) {
    std::size_t at = gen_();
    for (int i = 0; i < n; ++i) use(values_[at++ & (values_.size() - 1)]);
  }

 private:
  std::mt19937_64 gen_;
  std::vector<std::int64_t> values_;
};

// An hour of two workers, each recording 1000 samples a second into each of three
// timings of different spreads: the dense form would keep about 1 GB.
TEST(CollectorTimeline, AnHourOfThreeTimingsStaysUnder100MB) {
  constexpr int kWorkers = 2;
  constexpr std::int64_t kSeconds = 3600;
  constexpr int kPerSecond = 1000;
  constexpr std::int64_t kWatched = 1234;  // a second checked against a dense copy

  Registry registry;
  const MetricId timings[] = {registry.intern("http.request", Kind::Timing),
                              registry.intern("http.connect", Kind::Timing),
                              registry.intern("iteration", Kind::Timing)};
  LatencyPool pools[] = {{20, 0.8, 1}, {0.5, 0.6, 2}, {120, 1.0, 3}};
  std::vector<MetricSink> sinks(kWorkers, MetricSink(registry));
  Histogram watched[3];
  Collector collector(kWorkers);

  for (std::int64_t s = 0; s < kSeconds; ++s) {
    for (int w = 0; w < kWorkers; ++w) {
      for (int t = 0; t < 3; ++t) {
        pools[t].draw(kPerSecond, [&](std::int64_t v) {
          sinks[w].record(timings[t], v);
          if (s == kWatched) watched[t].record(v);
        });
      }
      collector.push(static_cast<std::size_t>(w), sinks[w].take(s));
    }
  }
  collector.flush();

  const auto timeline = collector.timeline();
  ASSERT_EQ(timeline.size(), static_cast<std::size_t>(kSeconds));
  std::size_t total = timeline.capacity() * sizeof(timeline[0]);
  for (const auto& entry : timeline) {
    total += entry_bytes(*entry);
    for (const MetricId id : timings) EXPECT_TRUE(entry->metrics[id].histogram.is_compact());
  }
  RecordProperty("timeline_bytes", std::to_string(total));
  EXPECT_LT(total, 100u * 1024 * 1024);

  // Compact, and still the same data.
  for (int t = 0; t < 3; ++t) {
    const Histogram& kept = timeline[kWatched]->metrics[timings[t]].histogram;
    EXPECT_EQ(kept.serialize(), watched[t].serialize());
    EXPECT_EQ(kept.percentile(99), watched[t].percentile(99));
  }
  const Summary whole = collector.summary();
  const Summary window = collector.summary_window(0, kSeconds - 1);
  for (const MetricId id : timings) {
    EXPECT_EQ(window.metrics[id].histogram.count(), kSeconds * kWorkers * kPerSecond);
    EXPECT_EQ(window.metrics[id].histogram.serialize(), whole.metrics[id].histogram.serialize());
  }
}

// Late data either replaces a timeline entry with a merged copy or inserts a second that
// had none: both are compact too.
TEST(CollectorTimeline, LateDataKeepsEntriesCompact) {
  Registry registry;
  const MetricId latency = registry.intern("http.request", Kind::Timing);
  MetricSink sinks[] = {MetricSink(registry), MetricSink(registry)};
  Collector collector(2);
  Histogram all;
  const auto record = [&](int w, std::int64_t v) {
    sinks[w].record(latency, v);
    all.record(v);
  };
  for (int i = 1; i <= 100; ++i) record(0, i * kMs);
  collector.push(0, sinks[0].take(0));
  record(0, 2 * kMs);
  collector.push(0, sinks[0].take(2));
  collector.flush();  // worker 1 delivered nothing yet: seconds 0 and 2 are merged
  for (int i = 1; i <= 50; ++i) record(1, i * 3 * kMs);
  collector.push(1, sinks[1].take(0));  // late, into an existing entry
  record(1, 7 * kMs);
  collector.push(1, sinks[1].take(1));  // late, for a second with no entry yet

  EXPECT_EQ(collector.late_snapshots(), 2u);
  const auto timeline = collector.timeline();
  ASSERT_EQ(timeline.size(), 3u);
  Histogram merged;
  for (const auto& entry : timeline) {
    const Histogram& h = entry->metrics[latency].histogram;
    EXPECT_TRUE(h.is_compact()) << entry->second;
    merged.merge(h);
  }
  EXPECT_EQ(timeline[0]->metrics[latency].histogram.count(), 150u);
  EXPECT_EQ(timeline[1]->metrics[latency].histogram.percentile(50), 7 * kMs);
  EXPECT_EQ(merged.serialize(), all.serialize());
}

}  // namespace
}  // namespace stampede::metrics
