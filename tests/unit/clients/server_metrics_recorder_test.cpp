// What each kind of server series becomes in the sink: names, kinds, units, the family as a
// whole, the instance label, and what a name clash costs.
#include "clients/server_metrics_recorder.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace stampede::clients {
namespace {

using metrics::Kind;
using metrics::MetricData;

class RecorderTest : public ::testing::Test {
 protected:
  const MetricData* metric(std::string_view name) {
    metrics::MetricId id = 0;
    if (!registry.find(name, id) || id >= second.metrics.size() || !second.metrics[id].present) return nullptr;
    return &second.metrics[id];
  }
  Kind kind(std::string_view name) {
    metrics::MetricId id = 0;
    EXPECT_TRUE(registry.find(name, id)) << name;
    return registry.kind(id);
  }
  void take() { second = sink.take(0); }

  metrics::Registry registry;
  metrics::MetricSink sink{registry};
  metrics::Snapshot second;
};

ServerSeriesValue gauge(std::string name, double value, ServerSeriesValue::Shape shape = ServerSeriesValue::Shape::Value) {
  ServerSeriesValue v;
  v.name = std::move(name);
  v.shape = shape;
  v.value = value;
  return v;
}

ServerSeriesValue buckets(std::string name, double ns_per_unit, std::vector<BucketDelta> b) {
  ServerSeriesValue v;
  v.name = std::move(name);
  v.shape = ServerSeriesValue::Shape::Buckets;
  v.nanoseconds_per_unit = ns_per_unit;
  for (const auto& x : b) v.value += x.count;
  v.buckets = std::move(b);
  return v;
}

TEST_F(RecorderTest, ValuesAndRatesAreGaugesDurationsTimingsOtherHistogramsDistributions) {
  ServerMetricsRecorder recorder(sink, {""});
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t n = recorder.record_scrape(
      0, {gauge("server.erlang_vm_run_queues_length", 3),
          gauge("server.phoenix_requests_total{status=\"200\"}", 125.5, ServerSeriesValue::Shape::Rate),
          buckets("server.phoenix_endpoint_duration_seconds{method=\"GET\"}", 1e9, {{0, 0.01, 4}, {0.01, 0.1, 6}}),
          buckets("server.phoenix_endpoint_duration_seconds{method=\"POST\"}", 1e9, {{0.1, inf, 2}}),
          buckets("server.response_size_bytes", 0, {{100, 1000, 10}})});
  EXPECT_EQ(n, 5u);
  take();
  EXPECT_EQ(kind("server.erlang_vm_run_queues_length"), Kind::Gauge);
  EXPECT_EQ(metric("server.erlang_vm_run_queues_length")->gauge_last, 3);
  EXPECT_EQ(kind("server.phoenix_requests_total{status=\"200\"}"), Kind::Gauge);
  EXPECT_EQ(metric("server.phoenix_requests_total{status=\"200\"}")->gauge_last, 125.5);

  EXPECT_EQ(kind("server.phoenix_endpoint_duration_seconds{method=\"GET\"}"), Kind::Timing);
  const MetricData* get = metric("server.phoenix_endpoint_duration_seconds{method=\"GET\"}");
  EXPECT_EQ(get->histogram.count(), 10u);
  EXPECT_EQ(get->count, 10u);
  EXPECT_EQ(get->histogram.max(), 100'000'000) << "in nanoseconds";
  // The family as a whole: every label set added.
  const MetricData* family = metric("server.phoenix_endpoint_duration_seconds");
  ASSERT_NE(family, nullptr);
  EXPECT_EQ(kind("server.phoenix_endpoint_duration_seconds"), Kind::Timing);
  EXPECT_EQ(family->histogram.count(), 12u);
  EXPECT_EQ(family->histogram.percentile(100), 100'000'000) << "the +Inf bucket at its lower bound";

  EXPECT_EQ(kind("server.response_size_bytes"), Kind::Distribution);
  EXPECT_EQ(metric("server.response_size_bytes")->histogram.max(), 1000);
  EXPECT_EQ(metric("server.series")->gauge_last, 5);
  EXPECT_EQ(metric("server.scrape.errors")->count, 0u) << "present from the start: zero errors is a value";

  const auto names = recorder.names();
  EXPECT_EQ(names.size(), 6u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST_F(RecorderTest, SeveralEndpointsGetAnInstanceLabelAndShareTheFamily) {
  ServerMetricsRecorder recorder(sink, {"10.0.0.1:9568", "10.0.0.2:9568"});
  recorder.record_scrape(0, {gauge("server.up", 1), buckets("server.q_seconds{repo=\"R\"}", 1e9, {{0, 1, 3}})});
  recorder.record_scrape(1, {gauge("server.up", 0), buckets("server.q_seconds{repo=\"R\"}", 1e9, {{0, 1, 5}})});
  take();
  EXPECT_EQ(metric("server.up{instance=\"10.0.0.1:9568\"}")->gauge_last, 1);
  EXPECT_EQ(metric("server.up{instance=\"10.0.0.2:9568\"}")->gauge_last, 0);
  EXPECT_EQ(metric("server.q_seconds{instance=\"10.0.0.2:9568\",repo=\"R\"}")->histogram.count(), 5u);
  EXPECT_EQ(metric("server.q_seconds")->histogram.count(), 8u) << "the cluster as a whole";
  EXPECT_EQ(metric("server.up"), nullptr) << "a gauge has no family total: a sum of levels would mislead";
  EXPECT_EQ(metric("server.series")->gauge_last, 4);
}

TEST_F(RecorderTest, ANameThatIsAlreadyAnotherKindIsSkippedWithAnError) {
  ServerMetricsRecorder recorder(sink, {""});
  // An exporter with a family named "scrape": its series would be server.scrape, our timing.
  const std::size_t n = recorder.record_scrape(0, {gauge("server.scrape", 1), gauge("server.ok", 2)});
  EXPECT_EQ(n, 1u);
  take();
  const MetricData* errors = metric("server.scrape.errors");
  ASSERT_NE(errors, nullptr);
  EXPECT_EQ(errors->count, 1u);
  ASSERT_EQ(errors->reasons.size(), 1u);
  EXPECT_EQ(errors->reasons.begin()->first, "series skipped: metric \"server.scrape\" is a timing, not a gauge");
  EXPECT_EQ(metric("server.ok")->gauge_last, 2);
}

TEST_F(RecorderTest, AFailureForgetsTheEndpointsLevels) {
  ServerMetricsRecorder recorder(sink, {"a:1", "b:1"});
  recorder.record_scrape(0, {gauge("server.up", 1)});
  recorder.record_scrape(1, {gauge("server.up", 1)});
  take();
  recorder.scrape_failed(1, "refused");
  take();  // the second after: a's level carried, b's forgotten
  EXPECT_NE(metric("server.up{instance=\"a:1\"}"), nullptr);
  EXPECT_EQ(metric("server.up{instance=\"b:1\"}"), nullptr);
  EXPECT_EQ(metric("server.series")->gauge_last, 1);
  EXPECT_EQ(metric("server.scrape.errors")->reasons.at("refused"), 1u);
}

TEST(WithFirstLabel, PutsTheLabelFirst) {
  EXPECT_EQ(with_first_label("server.x", "instance", "h:1"), "server.x{instance=\"h:1\"}");
  EXPECT_EQ(with_first_label("server.x{a=\"1\"}", "instance", "h:1"), "server.x{instance=\"h:1\",a=\"1\"}");
  EXPECT_EQ(family_of("server.x{a=\"{\"}"), "server.x");
  EXPECT_EQ(family_of("server.x"), "server.x");
}

}  // namespace
}  // namespace stampede::clients
