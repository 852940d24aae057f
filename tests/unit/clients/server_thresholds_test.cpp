// Thresholds on server series, in the scenario's usual syntax, judged on what the sampler
// records from real-shaped scrapes (Stampede.Probe's names): a gauge's max, a duration
// histogram's p95 in ms, a family as a whole, a plain histogram in its own unit; and a name
// the endpoint never exposed fails naming what it did expose.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "clients/server_metrics_recorder.hpp"
#include "clients/server_series.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"
#include "proto/prometheus_exposition.hpp"

namespace stampede::clients {
namespace {

// Stampede.Probe's scrape after `n` seconds of load: the run queue at `queue`, and Ecto
// queue times of which `slow` of every 100 wait between 50 and 100 ms, the others under 20 ms.
std::string probe_scrape(int n, int queue, int slow) {
  const auto num = [](double v) { return std::to_string(v); };
  std::string b = "# TYPE erlang_vm_run_queues_length gauge\nerlang_vm_run_queues_length " + num(queue) + "\n";
  b += "# TYPE erlang_vm_run_queue_length gauge\n";
  b += "erlang_vm_run_queue_length{queue=\"1\"} " + num(queue / 2) + "\n";
  b += "erlang_vm_run_queue_length{queue=\"2\"} " + num(queue - queue / 2) + "\n";
  b += "# TYPE erlang_vm_memory_bytes gauge\nerlang_vm_memory_bytes{kind=\"total\"} 73400320\n";
  b += "# TYPE ecto_query_queue_duration_seconds histogram\n";
  for (const char* source : {"users", "posts"}) {
    const std::string labels = std::string("repo=\"MyApp.Repo\",source=\"") + source + "\"";
    const double fast = (100.0 - slow) * n;
    b += "ecto_query_queue_duration_seconds_bucket{" + labels + ",le=\"0.005\"} " + num(fast * 0.5) + "\n";
    b += "ecto_query_queue_duration_seconds_bucket{" + labels + ",le=\"0.02\"} " + num(fast) + "\n";
    b += "ecto_query_queue_duration_seconds_bucket{" + labels + ",le=\"0.05\"} " + num(fast) + "\n";
    b += "ecto_query_queue_duration_seconds_bucket{" + labels + ",le=\"0.1\"} " + num(100.0 * n) + "\n";
    b += "ecto_query_queue_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} " + num(100.0 * n) + "\n";
    b += "ecto_query_queue_duration_seconds_sum{" + labels + "} 1\n";
    b += "ecto_query_queue_duration_seconds_count{" + labels + "} " + num(100.0 * n) + "\n";
  }
  b += "# TYPE payload_size histogram\n";
  b += "payload_size_bucket{le=\"100\"} " + num(90.0 * n) + "\npayload_size_bucket{le=\"1000\"} " + num(100.0 * n) +
       "\npayload_size_bucket{le=\"+Inf\"} " + num(100.0 * n) + "\npayload_size_count " + num(100.0 * n) + "\n";
  return b;
}

class ServerThresholds : public ::testing::Test {
 protected:
  // Five scrapes a second apart into one summary, as a run's would be merged.
  void run(const std::vector<std::pair<int, int>>& queue_and_slow) {
    metrics::MetricSink sink(registry);
    ServerMetricsRecorder recorder(sink, {""});
    ServerSeries series;
    metrics::Summary summary;
    for (std::size_t i = 0; i < queue_and_slow.size(); ++i) {
      const auto [queue, slow] = queue_and_slow[i];
      const auto parsed = proto::parse_exposition(probe_scrape(static_cast<int>(i + 1), queue, slow));
      ASSERT_TRUE(parsed.ok()) << parsed.error->message();
      recorder.record_scrape(0, series.next(parsed.exposition, 1.0));
      summary.add(sink.take(static_cast<std::int64_t>(i)));
    }
    table = metrics::make_metric_table(summary, registry);
    exposed = series.families_seen();
    for (std::string& name : exposed) name = "server." + name;
  }
  metrics::ThresholdResult judge(const std::string& metric, const std::string& aggregation, double limit) {
    return metrics::judge({metric, aggregation, limit, "lobby.lua"}, table, 5, exposed);
  }

  metrics::Registry registry;
  metrics::MetricTable table;
  std::vector<std::string> exposed;
};

TEST_F(ServerThresholds, AGaugesMaxIsItsHighestLevel) {
  run({{2, 5}, {3, 5}, {25, 5}, {4, 5}, {3, 5}});
  const auto over = judge("server.erlang_vm_run_queues_length", "max", 20);
  EXPECT_TRUE(over.judged);
  EXPECT_FALSE(over.pass);
  EXPECT_EQ(over.value, 25);
  EXPECT_EQ(over.message, "max 25 > 20");
  EXPECT_TRUE(judge("server.erlang_vm_run_queues_length", "max", 30).pass);
  // A labelled series is named with its labels, as the endpoint wrote them.
  EXPECT_EQ(judge("server.erlang_vm_run_queue_length{queue=\"2\"}", "max", 20).value, 13);
  // A gauge has no percentiles: that is said, not judged.
  const auto p95 = judge("server.erlang_vm_run_queues_length", "p95", 20);
  EXPECT_FALSE(p95.judged);
  EXPECT_EQ(p95.message, "p95 applies to a timing, but \"server.erlang_vm_run_queues_length\" is a gauge");
}

TEST_F(ServerThresholds, ADurationHistogramsPercentilesAreInMilliseconds) {
  run({{2, 4}, {2, 4}, {2, 4}, {2, 4}, {2, 4}});  // 4% slow: p95 within the fast 5-20 ms bucket
  const auto family = judge("server.ecto_query_queue_duration_seconds", "p95", 50);
  EXPECT_TRUE(family.judged);
  EXPECT_TRUE(family.pass) << family.message;
  EXPECT_GT(family.value, 5);
  EXPECT_LE(family.value, 20.1);
  const auto one = judge("server.ecto_query_queue_duration_seconds{repo=\"MyApp.Repo\",source=\"users\"}", "p95", 50);
  EXPECT_NEAR(one.value, family.value, 0.05) << "both sources alike";

  run({{2, 8}, {2, 8}, {2, 8}, {2, 8}, {2, 8}});  // 8% slow: p95 in the 50-100 ms bucket
  const auto slow = judge("server.ecto_query_queue_duration_seconds", "p95", 50);
  EXPECT_FALSE(slow.pass);
  EXPECT_GT(slow.value, 50);
  EXPECT_LE(slow.value, 100.1);
  // histogram_quantile(0.95) of 92 fast + 8 in (0.05, 0.1] per 100: 0.05 + 0.05 * 3/8 = 68.75 ms.
  EXPECT_NEAR(slow.value, 68.75, 0.1);
}

TEST_F(ServerThresholds, APlainHistogramIsJudgedInItsOwnUnit) {
  run({{2, 5}, {2, 5}});
  const auto size = judge("server.payload_size", "p95", 500);
  EXPECT_TRUE(size.judged);
  EXPECT_EQ(metrics::result_unit(size), metrics::AggregationUnit::Count);
  EXPECT_GT(size.value, 100);
  EXPECT_LE(size.value, 1000);
}

TEST_F(ServerThresholds, ANameTheEndpointNeverExposedFailsNamingTheClosest) {
  run({{2, 5}, {3, 5}});
  const auto typo = judge("server.beam_run_que", "max", 20);
  EXPECT_FALSE(typo.judged);
  EXPECT_FALSE(typo.pass);
  EXPECT_EQ(typo.message,
            "no samples: \"server.beam_run_que\" is not exposed by the endpoint; closest: "
            "server.erlang_vm_run_queue_length, server.erlang_vm_run_queues_length");
  EXPECT_EQ(judge("server.erlang_vm_run_queues_lenght", "max", 20).message,
            "no samples: \"server.erlang_vm_run_queues_lenght\" is not exposed by the endpoint; closest: "
            "server.erlang_vm_run_queues_length, server.erlang_vm_run_queue_length");
  EXPECT_EQ(judge("server.oban_jobs", "max", 1).message,
            "no samples: \"server.oban_jobs\" is not exposed by the endpoint, and none of the 5 families it exposed is "
            "close to that name");
}

TEST_F(ServerThresholds, AFamilyExposedButNotSelectedSaysSo) {
  run({{2, 5}});
  exposed.push_back("server.phoenix_endpoint_duration_seconds");
  EXPECT_EQ(judge("server.phoenix_endpoint_duration_seconds", "p95", 20).message,
            "no samples: \"server.phoenix_endpoint_duration_seconds\" is exposed by the endpoint but was not selected: "
            "add \"phoenix_endpoint_duration_seconds\" to server_metrics.select");
}

TEST(ServerThresholdsWithoutScraping, SayWhatIsMissing) {
  metrics::Registry registry;
  const metrics::MetricTable table = metrics::make_metric_table(metrics::Summary{}, registry);
  const auto r = metrics::judge({"server.erlang_vm_run_queues_length", "max", 20, "x"}, table, 5, {});
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.message,
            "no samples: \"server.erlang_vm_run_queues_length\" was never recorded: no server metrics were scraped "
            "(stampede run --server-metrics URL, or the scenario's server_metrics option)");
}

}  // namespace
}  // namespace stampede::clients
