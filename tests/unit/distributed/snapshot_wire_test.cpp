#include "distributed/snapshot_wire.hpp"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "metrics/collector.hpp"
#include "metrics/summary.hpp"

namespace stampede::distributed {
namespace {

using metrics::Kind;

// A second as a rank records it: timings, a counter with reasons, a check, a gauge.
metrics::Snapshot record_second(metrics::Registry& registry, std::uint32_t seed, std::int64_t second) {
  metrics::MetricSink sink(registry);
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> latency(15.0, 1.0);  // ~3 ms, long tail
  const auto http = sink.id("http.request", Kind::Timing);
  const auto errors = sink.id("iteration.errors", Kind::Counter);
  const auto ok = sink.id("checks.status", Kind::Check);
  const auto vus = sink.id("vus", Kind::Gauge);
  for (int i = 0; i < 5000; ++i) {
    sink.record(http, static_cast<Nanos>(latency(rng)));
    sink.request_sent();
    sink.request_finished(i % 7 != 0);
    sink.check(ok, i % 11 != 0);
    if (i % 13 == 0) sink.add_error(errors, i % 2 == 0 ? "status 503" : "timeout");
  }
  sink.set_gauge(vus, 40 + seed);
  return sink.take(second);
}

std::string serial(const metrics::Snapshot& s, const metrics::Registry& r, std::string_view name) {
  metrics::MetricId id = 0;
  if (!r.find(name, id) || id >= s.metrics.size()) return "absent";
  return s.metrics[id].histogram.serialize();
}

TEST(SnapshotWire, RoundTripKeepsEverythingExactly) {
  metrics::Registry sender;
  const metrics::Snapshot sent = record_second(sender, 1, 17);
  metrics::Registry receiver;
  const metrics::Snapshot got = decode_snapshot(encode_snapshot(sent, sender), receiver);
  EXPECT_EQ(got.second, 17);
  EXPECT_EQ(got.requests.sent, sent.requests.sent);
  EXPECT_EQ(got.requests.completed, sent.requests.completed);
  EXPECT_EQ(got.requests.failed, sent.requests.failed);
  for (const char* name : {"http.request", "iteration.errors", "checks.status", "vus"}) {
    metrics::MetricId a = 0, b = 0;
    ASSERT_TRUE(sender.find(name, a));
    ASSERT_TRUE(receiver.find(name, b));
    EXPECT_EQ(receiver.kind(b), sender.kind(a));
    const metrics::MetricData& x = sent.metrics[a];
    const metrics::MetricData& y = got.metrics[b];
    EXPECT_EQ(y.present, x.present) << name;
    EXPECT_EQ(y.count, x.count) << name;
    EXPECT_EQ(y.failed, x.failed) << name;
    EXPECT_EQ(y.gauge_last, x.gauge_last) << name;
    EXPECT_EQ(y.gauge_max, x.gauge_max) << name;
    EXPECT_EQ(y.reasons, x.reasons) << name;
    EXPECT_EQ(y.histogram.serialize(), x.histogram.serialize()) << name;
  }
  EXPECT_EQ(serial(got, receiver, "http.request"), serial(sent, sender, "http.request"));
}

TEST(SnapshotWire, NegativeSecondsAndEmptySecondsSurvive) {
  metrics::Registry r;
  metrics::Snapshot empty;
  empty.second = -3;
  metrics::Registry receiver;
  const metrics::Snapshot got = decode_snapshot(encode_snapshot(empty, r), receiver);
  EXPECT_EQ(got.second, -3);
  EXPECT_TRUE(got.metrics.empty());
}

// Rank 0 and two ranks that met their metrics in different orders: ids differ, names
// do not, and merging the decoded seconds equals recording everything in one place.
TEST(SnapshotWire, MergeOfDecodedRanksEqualsOneProcess) {
  metrics::Registry rank1, rank2;
  rank2.intern("vus", Kind::Gauge);  // a different id order from rank 1
  rank2.intern("only.on.rank2", Kind::Counter);
  const metrics::Snapshot s1 = record_second(rank1, 1, 4);
  const metrics::Snapshot s2 = record_second(rank2, 2, 4);

  // What one process recording both would hold.
  metrics::Registry one;
  metrics::Snapshot together = record_second(one, 1, 4);
  together.merge_parallel(record_second(one, 2, 4));

  metrics::Registry root;
  metrics::Collector merged(2);
  merged.push(0, decode_snapshot(encode_snapshot(s1, rank1), root));
  merged.push(1, decode_snapshot(encode_snapshot(s2, rank2), root));
  merged.flush();
  const metrics::Summary summary = merged.summary();

  for (const char* name : {"http.request", "iteration.errors", "checks.status", "vus"}) {
    metrics::MetricId a = 0, b = 0;
    ASSERT_TRUE(one.find(name, a));
    ASSERT_TRUE(root.find(name, b));
    const metrics::MetricData& x = together.metrics[a];
    const metrics::MetricData& y = summary.metrics[b];
    EXPECT_EQ(y.count, x.count) << name;
    EXPECT_EQ(y.failed, x.failed) << name;
    EXPECT_EQ(y.reasons, x.reasons) << name;
    EXPECT_EQ(y.gauge_last, x.gauge_last) << name;
    EXPECT_EQ(y.histogram.serialize(), x.histogram.serialize()) << name;
    for (double p : {50.0, 95.0, 99.0, 99.9, 100.0}) EXPECT_EQ(y.histogram.percentile(p), x.histogram.percentile(p));
  }
  EXPECT_EQ(summary.requests.sent, together.requests.sent);
  EXPECT_EQ(summary.requests.failed, together.requests.failed);
  metrics::MetricId only = 0;
  EXPECT_TRUE(root.find("only.on.rank2", only));  // known to rank 0, so listed as a zero
}

TEST(SnapshotWire, KindConflictIsRejected) {
  metrics::Registry sender;
  const metrics::Snapshot s = record_second(sender, 3, 0);
  metrics::Registry receiver;
  receiver.intern("http.request", Kind::Counter);
  EXPECT_THROW(decode_snapshot(encode_snapshot(s, sender), receiver), std::invalid_argument);
}

TEST(SnapshotWire, MalformedBytesAreRejectedNotTrusted) {
  metrics::Registry sender;
  const std::string good = encode_snapshot(record_second(sender, 4, 2), sender);
  metrics::Registry r;
  EXPECT_THROW(decode_snapshot("", r), std::invalid_argument);
  EXPECT_THROW(decode_snapshot("XX\x01", r), std::invalid_argument);
  EXPECT_THROW(decode_snapshot(good + "x", r), std::invalid_argument);
  // Every truncation fails cleanly.
  for (std::size_t n = 0; n < good.size(); n += 7) {
    metrics::Registry fresh;
    EXPECT_THROW(decode_snapshot(std::string_view(good).substr(0, n), fresh), std::invalid_argument) << n;
  }
  // Flipped bytes either fail cleanly or decode to something; never crash.
  for (std::size_t i = 3; i < good.size(); i += 5) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    metrics::Registry fresh;
    try {
      decode_snapshot(bad, fresh);
    } catch (const std::invalid_argument&) {
    }
  }
}

}  // namespace
}  // namespace stampede::distributed
