// How ranks share a rate and how their generator gauges merge: the two ways a distributed
// run could differ from one process with the same load.
#include <gtest/gtest.h>

#include "distributed/rank_split.hpp"
#include "distributed/snapshot_wire.hpp"
#include "metrics/generator_health.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::distributed {
namespace {

using metrics::Kind;

LoadShape rate_with_max_vus(long long max_vus) {
  LoadShape rate;
  rate.model = LoadModel::Rate;
  rate.max_vus = max_vus;
  rate.stages = {{kSecond, 20}};
  return rate;
}

TEST(RankSplit, ByRateTheRunHasNoMoreThreadsThanMaxVus) {
  // 3 VUs over 2 ranks of 2 threads were 4 segments, one with no VU: a quarter of the
  // arrivals dropped (10 of 40), where one process dropped none.
  for (long long max_vus : {2LL, 3LL, 4LL, 5LL, 7LL}) {
    for (int ranks : {1, 2, 3}) {
      if (max_vus < ranks) continue;
      const int threads = rank_threads(2, rate_with_max_vus(max_vus), ranks);
      EXPECT_GE(threads, 1);
      EXPECT_LE(static_cast<long long>(threads) * ranks, max_vus) << max_vus << " VUs over " << ranks << " ranks";
    }
  }
  EXPECT_EQ(rank_threads(2, rate_with_max_vus(3), 2), 1);
  EXPECT_EQ(rank_threads(2, rate_with_max_vus(4), 2), 2);
}

metrics::Snapshot one_rank(metrics::Registry& registry, double cpu, double fds, double vus) {
  metrics::MetricSink sink(registry);
  sink.set_gauge(sink.id(metrics::names::kGeneratorCpu, Kind::Gauge), cpu);
  sink.set_gauge(sink.id(metrics::names::kGeneratorFds, Kind::Gauge), fds);
  sink.set_gauge(sink.id("vus", Kind::Gauge), vus);
  return sink.take(3);
}

double last(const metrics::Snapshot& s, const metrics::Registry& r, std::string_view name) {
  metrics::MetricId id = 0;
  EXPECT_TRUE(r.find(name, id));
  return s.metrics.at(id).gauge_last;
}

TEST(RankMerge, GeneratorGaugesOfRanksTakeTheHighestWhileVusAddUp) {
  // Rank 0's own second, then two ranks' seconds as they arrive over the wire.
  metrics::Registry coordinator;
  metrics::Snapshot merged = one_rank(coordinator, 35, 27, 10);
  for (double cpu : {41.0, 30.0}) {
    metrics::Registry sender;
    merged.merge_parallel(decode_snapshot(encode_snapshot(one_rank(sender, cpu, 25, 10), sender), coordinator));
  }
  EXPECT_DOUBLE_EQ(last(merged, coordinator, metrics::names::kGeneratorCpu), 41);  // not 106
  EXPECT_DOUBLE_EQ(last(merged, coordinator, metrics::names::kGeneratorFds), 27);  // not 77
  EXPECT_DOUBLE_EQ(last(merged, coordinator, "vus"), 30);
}

}  // namespace
}  // namespace stampede::distributed
