// The target's GET /metrics read by our own exposition parser (the official Python client reads
// it in tests/integration/test_target_metrics.py), over loopback: what it counts, and that
// watching does not change what it counts. And the lag probe's arithmetic.
#include <gtest/gtest.h>

#include <chrono>

#include "proto/prometheus_exposition.hpp"
#include "target/loopback_client.hpp"
#include "target/server_stats.hpp"
#include "target/target_server.hpp"
#include "wait_until.hpp"

namespace stampede::target {
namespace {

using testing::LoopbackClient;

double sample(const proto::Exposition& e, std::string_view name, std::string_view label = {},
              std::string_view label_value = {}) {
  for (const auto& family : e.families) {
    for (const auto& s : family.samples) {
      if (s.name != name) continue;
      if (!label.empty() && (s.label(label) == nullptr || *s.label(label) != label_value)) continue;
      return s.value;
    }
  }
  ADD_FAILURE() << "no sample " << name;
  return -1;
}

class TargetMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TargetOptions options;
    options.listen.port = 0;
    options.threads = 2;
    server_ = std::make_unique<TargetServer>(options);
    server_->start();
  }
  proto::Exposition scrape() {
    LoopbackClient client(server_->port());
    const auto r = client.get("/metrics");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    auto parsed = proto::parse_exposition(r.body, proto::exposition_format_of(r.header("content-type")));
    EXPECT_TRUE(parsed.ok()) << parsed.error->message() << "\n" << r.body;
    return parsed.exposition;
  }

  std::unique_ptr<TargetServer> server_;
};

TEST_F(TargetMetricsTest, CountsRequestsNotScrapesAndSumsTheLoops) {
  const auto before = scrape();
  EXPECT_EQ(sample(before, "stampede_target_http_requests_total"), 0);
  EXPECT_EQ(sample(before, "stampede_target_event_loops"), 2);
  EXPECT_EQ(before.find("stampede_target_event_loop_lag_seconds")->type, proto::MetricType::Histogram);
  {
    LoopbackClient client(server_->port());
    for (int i = 0; i < 7; ++i) EXPECT_EQ(client.get("/api/posts").status, 200);
    EXPECT_EQ(client.get("/__truth").status, 200);  // control endpoints are not counted
  }
  const auto after = scrape();
  EXPECT_EQ(sample(after, "stampede_target_http_requests_total"), 7);
  EXPECT_EQ(sample(after, "stampede_target_http_requests_in_flight"), 0);
  EXPECT_EQ(server_->truth().count, 7u) << "the scrapes are not in the truth either";
  EXPECT_GT(sample(after, "process_resident_memory_bytes"), 1e6);
  EXPECT_GT(sample(after, "process_cpu_seconds_total"), 0);
}

TEST_F(TargetMetricsTest, ConnectionsOpenAreCounted) {
  LoopbackClient a(server_->port());
  LoopbackClient b(server_->port());
  EXPECT_EQ(a.get("/").status, 200);
  EXPECT_EQ(b.get("/").status, 200);
  LoopbackClient c(server_->port());
  const auto r = c.get("/metrics");
  const auto parsed = proto::parse_exposition(r.body);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(sample(parsed.exposition, "stampede_target_connections"), 3);
  EXPECT_EQ(sample(parsed.exposition, "stampede_target_websocket_sessions", "kind", "channels"), 0);
}

TEST_F(TargetMetricsTest, TheLagProbeStartsWithTheFirstScrape) {
  const auto first = scrape();
  EXPECT_EQ(sample(first, "stampede_target_event_loop_lag_seconds_count"), 0) << "no probe before anyone asked";
  // Ten probes a second per loop from now on: some have fired once the count says so.
  const auto probes_counted = [&] { return sample(scrape(), "stampede_target_event_loop_lag_seconds_count"); };
  EXPECT_TRUE(stampede::testing::wait_until("four lag probes counted", [&] { return probes_counted() >= 4; },
                                            stampede::testing::kHangGuard, std::chrono::milliseconds(20)));
  const auto later = scrape();
  EXPECT_EQ(sample(later, "stampede_target_event_loop_lag_seconds_bucket", "le", "+Inf"),
            sample(later, "stampede_target_event_loop_lag_seconds_count"));
}

TEST(LoopLagHistogram, BucketsByUpperBound) {
  EXPECT_EQ(LoopLagHistogram::bucket_of(0), 0u);
  EXPECT_EQ(LoopLagHistogram::bucket_of(100 * kMicro), 0u) << "le=0.0001 includes 100 µs";
  EXPECT_EQ(LoopLagHistogram::bucket_of(101 * kMicro), 1u);
  EXPECT_EQ(LoopLagHistogram::bucket_of(kSecond), LoopLagHistogram::kBounds.size() - 1);
  EXPECT_EQ(LoopLagHistogram::bucket_of(2 * kSecond), LoopLagHistogram::kBounds.size()) << "+Inf";
  EXPECT_EQ(LoopLagHistogram::bucket_of(-5), 0u);
  LoopLagHistogram h;
  h.record(3 * kMilli);
  h.record(300 * kMilli);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.sum(), 303 * kMilli);
  EXPECT_EQ(h.bucket(LoopLagHistogram::bucket_of(3 * kMilli)), 1u);
}

TEST(LoopLagProbe, NextDueKeepsThePeriodOrRestartsAfterALongStall) {
  EXPECT_EQ(next_probe_due(1000 * kMilli, 1002 * kMilli), 1100 * kMilli);
  EXPECT_EQ(next_probe_due(1000 * kMilli, 1250 * kMilli), 1350 * kMilli) << "missed firings are not made up";
}

}  // namespace
}  // namespace stampede::target
