#include "clients/server_series.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "common/name_match.hpp"
#include "infinity.hpp"
#include "prometheus_exposition_file.hpp"

namespace stampede::clients {
namespace {

using Shape = ServerSeriesValue::Shape;
using stampede::testing::kInf;

proto::Exposition scrape(std::string_view body) {
  auto parsed = proto::parse_exposition(body);
  EXPECT_TRUE(parsed.ok()) << parsed.error->message();
  return std::move(parsed.exposition);
}

const ServerSeriesValue* find(const std::vector<ServerSeriesValue>& values, std::string_view name) {
  for (const ServerSeriesValue& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const ServerSeriesValue& get(const std::vector<ServerSeriesValue>& values, std::string_view name) {
  const ServerSeriesValue* v = find(values, name);
  if (v == nullptr) throw std::runtime_error("no series " + std::string(name));
  return *v;
}

std::vector<std::string> names(const std::vector<ServerSeriesValue>& values) {
  std::vector<std::string> out;
  for (const ServerSeriesValue& v : values) out.push_back(v.name);
  return out;
}

// ---- counters --------------------------------------------------------------------------

constexpr std::string_view kCounterA =
    "# TYPE http_requests_total counter\n"
    "http_requests_total{method=\"GET\",status=\"200\"} 100\n"
    "http_requests_total{method=\"GET\",status=\"500\"} 7\n";

TEST(ServerSeriesCounter, FirstScrapeHasNoRateThenIncreasePerSecond) {
  ServerSeries series;
  EXPECT_TRUE(series.next(scrape(kCounterA), 1.0).empty());
  const auto values = series.next(scrape("# TYPE http_requests_total counter\n"
                                         "http_requests_total{method=\"GET\",status=\"200\"} 130\n"
                                         "http_requests_total{method=\"GET\",status=\"500\"} 7\n"),
                                  2.0);
  EXPECT_EQ(names(values), (std::vector<std::string>{"server.http_requests_total{method=\"GET\",status=\"200\"}",
                                                     "server.http_requests_total{method=\"GET\",status=\"500\"}"}));
  EXPECT_EQ(values[0].shape, Shape::Rate);
  EXPECT_EQ(values[0].value, 15.0);  // 30 in 2 s
  EXPECT_EQ(values[1].value, 0.0);
  EXPECT_FALSE(values[0].is_duration());
}

TEST(ServerSeriesCounter, ACounterThatWentDownWasResetAsRateTakesIt) {
  ServerSeries series;
  series.next(scrape("# TYPE c counter\nc_total 1000\n"), 1);
  const auto values = series.next(scrape("# TYPE c counter\nc_total 4\n"), 1);
  EXPECT_EQ(get(values, "server.c_total").value, 4.0);
}

TEST(ServerSeriesCounter, ASeriesNewSinceThePreviousScrapeCountsFromZero) {
  ServerSeries series;
  series.next(scrape(kCounterA), 1);
  const auto values = series.next(scrape(std::string(kCounterA) + "http_requests_total{method=\"POST\",status=\"201\"} 3\n"), 0.5);
  EXPECT_EQ(get(values, "server.http_requests_total{method=\"POST\",status=\"201\"}").value, 6.0);
}

TEST(ServerSeriesCounter, NoRateWithoutElapsedTimeOrForNonNumbers) {
  ServerSeries series;
  series.next(scrape(kCounterA), 1);
  EXPECT_TRUE(series.next(scrape(kCounterA), 0).empty());
  EXPECT_TRUE(series.next(scrape(kCounterA), -1).empty());
  EXPECT_TRUE(series.next(scrape(kCounterA), std::numeric_limits<double>::quiet_NaN()).empty());
  // The state still moved on: a proper interval after those works.
  EXPECT_EQ(series.next(scrape(kCounterA), 1).size(), 2u);
  series.next(scrape("# TYPE n counter\nn_total NaN\nm_total +Inf\n"), 1);
  EXPECT_TRUE(series.next(scrape("# TYPE n counter\nn_total NaN\n"), 1).empty());
}

TEST(ServerSeriesCounter, OpenMetricsCounterIsNamedByItsTotalSampleAndCreatedIsIgnored) {
  ServerSeries series;
  series.next(scrape("# TYPE jobs counter\njobs_total{queue=\"q\"} 1\njobs_created{queue=\"q\"} 1700000000\n# EOF\n"), 1);
  const auto values = series.next(
      scrape("# TYPE jobs counter\njobs_total{queue=\"q\"} 5\njobs_created{queue=\"q\"} 1700000000\n# EOF\n"), 1);
  EXPECT_EQ(names(values), std::vector<std::string>{"server.jobs_total{queue=\"q\"}"});
  EXPECT_EQ(values[0].value, 4.0);
}

TEST(ServerSeriesCounter, ResetForgetsThePreviousScrape) {
  ServerSeries series;
  series.next(scrape(kCounterA), 1);
  series.reset();
  EXPECT_TRUE(series.next(scrape(kCounterA), 1).empty());
}

// ---- gauges and naming ---------------------------------------------------------------------

TEST(ServerSeriesGauge, ValuesFromTheFirstScrape) {
  ServerSeries series;
  const auto values = series.next(scrape("# TYPE beam_run_queue gauge\nbeam_run_queue 3\n"
                                         "untyped_thing{a=\"1\"} 4.5\n"
                                         "# TYPE g gauge\ng NaN\ng{x=\"inf\"} +Inf\n"),
                                  1);
  EXPECT_EQ(names(values), (std::vector<std::string>{"server.beam_run_queue", "server.untyped_thing{a=\"1\"}"}));
  EXPECT_EQ(values[0].shape, Shape::Value);
  EXPECT_EQ(values[0].value, 3);
  EXPECT_EQ(values[1].value, 4.5);
}

TEST(ServerSeriesGauge, LabelsKeepTheScrapesOrderAndTheirEscapes) {
  ServerSeries series;
  const auto values = series.next(scrape(R"(g{zeta="1",alpha="a\"b\\c\nd"} 1)"), 1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].name, R"(server.g{zeta="1",alpha="a\"b\\c\nd"})");
}

TEST(ServerSeriesGauge, InfoAndStateSetAreValues) {
  ServerSeries series;
  const auto values = series.next(scrape("# TYPE build info\nbuild_info{version=\"1.2\"} 1\n"
                                         "# TYPE state stateset\nstate{state=\"a\"} 1\nstate{state=\"b\"} 0\n# EOF\n"),
                                  1);
  EXPECT_EQ(names(values), (std::vector<std::string>{"server.build_info{version=\"1.2\"}", "server.state{state=\"a\"}",
                                                     "server.state{state=\"b\"}"}));
}

TEST(ServerSeriesGauge, ASeriesTwiceInOneScrapeIsTakenOnce) {
  ServerSeries series;
  const auto values = series.next(scrape("g{a=\"1\"} 1\ng{a=\"1\"} 2\n"), 1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].value, 1);
}

// ---- histograms ----------------------------------------------------------------------------

std::string histogram(double fast, double medium, double all, double sum, std::string_view name = "req_seconds") {
  const std::string n(name);
  return "# TYPE " + n + " histogram\n" + n + "_bucket{path=\"/\",le=\"0.1\"} " + std::to_string(fast) + "\n" + n +
         "_bucket{path=\"/\",le=\"0.5\"} " + std::to_string(medium) + "\n" + n + "_bucket{path=\"/\",le=\"+Inf\"} " +
         std::to_string(all) + "\n" + n + "_sum{path=\"/\"} " + std::to_string(sum) + "\n" + n +
         "_count{path=\"/\"} " + std::to_string(all) + "\n" + n + "_created{path=\"/\"} 1700000000\n";
}

TEST(ServerSeriesHistogram, BucketDeltasOfTheInterval) {
  ServerSeries series;
  EXPECT_TRUE(series.next(scrape(histogram(10, 20, 25, 4)), 1).empty());
  const auto values = series.next(scrape(histogram(13, 27, 33, 6.5)), 1);
  ASSERT_EQ(values.size(), 1u);
  const ServerSeriesValue& v = values[0];
  EXPECT_EQ(v.name, "server.req_seconds{path=\"/\"}");  // le is not part of the name
  EXPECT_EQ(v.shape, Shape::Buckets);
  EXPECT_EQ(v.buckets, (std::vector<BucketDelta>{{0, 0.1, 3}, {0.1, 0.5, 4}, {0.5, kInf, 1}}));
  EXPECT_EQ(v.value, 8);
  EXPECT_DOUBLE_EQ(v.sum, 2.5);
  EXPECT_EQ(v.nanoseconds_per_unit, 1e9);
  EXPECT_TRUE(v.is_duration());
}

TEST(ServerSeriesHistogram, DurationUnitsFromTheNameOrTheUnitLine) {
  ServerSeries series;
  const std::string both = histogram(1, 2, 3, 1, "phoenix_http_request_duration_milliseconds") +
                           histogram(1, 2, 3, 1, "response_size_bytes") + histogram(1, 2, 3, 1, "rpc_microseconds") +
                           "# TYPE latency histogram\n# UNIT latency seconds\nlatency_bucket{le=\"+Inf\"} 1\n"
                           "latency_count 1\nlatency_sum 0.2\n# EOF\n";
  series.next(scrape(both), 1);
  const auto values = series.next(scrape(both), 1);
  EXPECT_EQ(get(values, "server.phoenix_http_request_duration_milliseconds{path=\"/\"}").nanoseconds_per_unit, 1e6);
  EXPECT_EQ(get(values, "server.response_size_bytes{path=\"/\"}").nanoseconds_per_unit, 0);
  EXPECT_EQ(get(values, "server.rpc_microseconds{path=\"/\"}").nanoseconds_per_unit, 1e3);
  EXPECT_EQ(get(values, "server.latency").nanoseconds_per_unit, 1e9);
}

TEST(ServerSeriesHistogram, RestartCountsTheNewValuesFromZero) {
  ServerSeries series;
  series.next(scrape(histogram(100, 200, 300, 50)), 1);
  const auto values = series.next(scrape(histogram(1, 1, 2, 0.7)), 1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].buckets, (std::vector<BucketDelta>{{0, 0.1, 1}, {0.5, kInf, 1}}));
  EXPECT_EQ(values[0].value, 2);
  EXPECT_DOUBLE_EQ(values[0].sum, 0.7);
}

TEST(ServerSeriesHistogram, BucketSetChangedBetweenScrapes) {
  ServerSeries series;
  series.next(scrape("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"2\"} 2\nh_bucket{le=\"+Inf\"} 3\n"
                     "h_sum 3\nh_count 3\n"),
              1);
  const auto values =
      series.next(scrape("# TYPE h histogram\nh_bucket{le=\"1\"} 4\nh_bucket{le=\"1.5\"} 5\nh_bucket{le=\"+Inf\"} 7\n"
                         "h_sum 9\nh_count 7\n"),
                  1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].buckets, (std::vector<BucketDelta>{{0, 1, 3}, {1, kInf, 1}}));
  EXPECT_EQ(values[0].value, 4);
}

TEST(ServerSeriesHistogram, MissingInfBucketIsTakenFromTheCount) {
  ServerSeries series;
  series.next(scrape("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 2\nh_sum 1\n"), 1);
  const auto values = series.next(scrape("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_count 5\nh_sum 4\n"), 1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].buckets, (std::vector<BucketDelta>{{0, 1, 1}, {1, kInf, 2}}));
  EXPECT_EQ(values[0].value, 3);
}

TEST(ServerSeriesHistogram, UnreadableSeriesAreSkippedOthersKept) {
  ServerSeries series;
  const std::string body =
      "# TYPE h histogram\n"
      "h_bucket{s=\"bad_le\",le=\"fast\"} 1\nh_bucket{s=\"bad_le\",le=\"+Inf\"} 1\nh_count{s=\"bad_le\"} 1\n"
      "h_bucket{s=\"no_le\"} 1\nh_count{s=\"no_le\"} 1\n"
      "h_bucket{s=\"nan\",le=\"+Inf\"} NaN\nh_count{s=\"nan\"} 1\n"
      "h_bucket{s=\"twice\",le=\"1\"} 1\nh_bucket{s=\"twice\",le=\"1\"} 1\nh_bucket{s=\"twice\",le=\"+Inf\"} 1\n"
      "h_bucket{s=\"no_inf_no_count\",le=\"1\"} 1\n"
      "h_bucket{s=\"ok\",le=\"+Inf\"} 1\nh_count{s=\"ok\"} 1\n";
  series.next(scrape(body), 1);
  EXPECT_EQ(names(series.next(scrape(body), 1)), std::vector<std::string>{"server.h{s=\"ok\"}"});
}

TEST(ServerSeriesHistogram, GaugeHistogramIsTheCurrentDistribution) {
  ServerSeries series;
  const auto values = series.next(scrape("# TYPE queue_seconds gaugehistogram\n"
                                         "queue_seconds_bucket{le=\"0.01\"} 20.0\nqueue_seconds_bucket{le=\"+Inf\"} 22.0\n"
                                         "queue_seconds_gcount 22.0\nqueue_seconds_gsum 2.0\n# EOF\n"),
                                  1);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].shape, Shape::Buckets);
  EXPECT_EQ(values[0].buckets, (std::vector<BucketDelta>{{0, 0.01, 20}, {0.01, kInf, 2}}));
  EXPECT_EQ(values[0].value, 22);
  EXPECT_EQ(values[0].sum, 2);
  EXPECT_EQ(values[0].nanoseconds_per_unit, 1e9);
}

// ---- summaries -----------------------------------------------------------------------------

TEST(ServerSeriesSummary, QuantilesAsValuesAndTheCountAsARate) {
  const std::string a =
      "# TYPE rpc_duration_seconds summary\n"
      "rpc_duration_seconds{service=\"a\",quantile=\"0.5\"} 0.004\n"
      "rpc_duration_seconds{service=\"a\",quantile=\"0.95\"} 0.009\n"
      "rpc_duration_seconds{service=\"a\",quantile=\"0.99\"} NaN\n"
      "rpc_duration_seconds_sum{service=\"a\"} 17.5\n"
      "rpc_duration_seconds_count{service=\"a\"} 2693\n";
  ServerSeries series;
  const auto first = series.next(scrape(a), 1);
  EXPECT_EQ(names(first), (std::vector<std::string>{"server.rpc_duration_seconds{service=\"a\",quantile=\"0.5\"}",
                                                    "server.rpc_duration_seconds{service=\"a\",quantile=\"0.95\"}"}));
  EXPECT_EQ(first[1].shape, Shape::Value);
  EXPECT_EQ(first[1].value, 0.009);
  EXPECT_EQ(first[1].nanoseconds_per_unit, 1e9);

  std::string b = a;
  b.replace(b.find("2693"), 4, "2793");
  const auto second = series.next(scrape(b), 4);
  const ServerSeriesValue& count = get(second, "server.rpc_duration_seconds_count{service=\"a\"}");
  EXPECT_EQ(count.shape, Shape::Rate);
  EXPECT_EQ(count.value, 25);
  EXPECT_FALSE(count.is_duration());  // a count of observations, not a duration
  EXPECT_EQ(find(second, "server.rpc_duration_seconds_sum{service=\"a\"}"), nullptr);
}

// ---- selection -----------------------------------------------------------------------------

constexpr std::string_view kMixed =
    "# TYPE beam_run_queue gauge\nbeam_run_queue 1\n"
    "# TYPE beam_memory_bytes gauge\nbeam_memory_bytes 2\n"
    "# TYPE phoenix_http_requests counter\nphoenix_http_requests_total 3\n"
    "# TYPE vm_total gauge\nvm_total 4\n# EOF\n";

TEST(ServerSeriesSelection, GlobsOnFamilyNames) {
  ServerSeries beam({"beam_*"});
  EXPECT_EQ(names(beam.next(scrape(kMixed), 1)),
            (std::vector<std::string>{"server.beam_run_queue", "server.beam_memory_bytes"}));
  ServerSeries one({"beam_run_queu?", "vm_*"});
  EXPECT_EQ(names(one.next(scrape(kMixed), 1)), (std::vector<std::string>{"server.beam_run_queue", "server.vm_total"}));
  ServerSeries everything;
  EXPECT_EQ(everything.next(scrape(kMixed), 1).size(), 3u);  // the counter has no rate yet
}

TEST(ServerSeriesSelection, ServerPrefixAndCounterTotalNames) {
  // A counter is selected by its family name or by the _total name its series carry, so
  // a pattern works whether the endpoint speaks 0.0.4 or OpenMetrics.
  for (const char* pattern : {"phoenix_http_requests", "phoenix_http_requests_total", "server.phoenix_*_total"}) {
    ServerSeries series({pattern});
    series.next(scrape(kMixed), 1);
    EXPECT_EQ(names(series.next(scrape(kMixed), 1)), std::vector<std::string>{"server.phoenix_http_requests_total"})
        << pattern;
  }
}

TEST(ServerSeriesSelection, FamiliesSeenIncludeTheUnselectedForSuggestions) {
  ServerSeries series({"beam_run_que"});
  EXPECT_TRUE(series.next(scrape(kMixed), 1).empty());
  const auto seen = series.families_seen();
  EXPECT_EQ(seen, (std::vector<std::string>{"beam_memory_bytes", "beam_run_queue", "phoenix_http_requests", "vm_total"}));
  EXPECT_EQ(closest_names("beam_run_que", seen), std::vector<std::string>{"beam_run_queue"});
}

// ---- real scrapes (tests/vectors/prometheus-expositions/README.md) ------------------------

TEST(ServerSeriesVectors, TwoScrapesOfAPrometheusServer) {
  ServerSeries series({"prometheus_http_*"});
  const auto first = series.next(scrape(testing::read_exposition_vector("prometheus-2.42.0-a.prom")), 1);
  for (const ServerSeriesValue& v : first) EXPECT_EQ(v.shape, Shape::Value) << v.name;
  const auto second = series.next(scrape(testing::read_exposition_vector("prometheus-2.42.0-b.prom")), 2.0);

  // /metrics was requested 3 times between the two scrapes (7, then 10).
  EXPECT_EQ(get(second, "server.prometheus_http_requests_total{code=\"200\",handler=\"/metrics\"}").value, 1.5);
  const ServerSeriesValue& duration =
      get(second, "server.prometheus_http_request_duration_seconds{handler=\"/metrics\"}");
  EXPECT_EQ(duration.shape, Shape::Buckets);
  EXPECT_EQ(duration.value, 3);
  EXPECT_EQ(duration.buckets, (std::vector<BucketDelta>{{0, 0.1, 3}}));  // all three under 100 ms
  EXPECT_DOUBLE_EQ(duration.sum, 0.038548474 - 0.030853679999999998);
  EXPECT_EQ(duration.nanoseconds_per_unit, 1e9);
  // Handlers not requested in between: an empty interval, not a missing series.
  const ServerSeriesValue& labels = get(second, "server.prometheus_http_request_duration_seconds{handler=\"/api/v1/labels\"}");
  EXPECT_EQ(labels.value, 0);
  EXPECT_TRUE(labels.buckets.empty());
}

TEST(ServerSeriesVectors, SeriesNamesDoNotDependOnTheFormat) {
  // The first scrape in OpenMetrics (counter families without _total), the second in 0.0.4:
  // the counter's series is the same one and gets its rate.
  ServerSeries series({"prometheus_http_requests*"});
  series.next(scrape(testing::read_exposition_vector("prometheus-2.42.0-a.om")), 1);
  const auto second = series.next(scrape(testing::read_exposition_vector("prometheus-2.42.0-b.prom")), 2.0);
  EXPECT_EQ(get(second, "server.prometheus_http_requests_total{code=\"200\",handler=\"/metrics\"}").value, 1.5);
}

TEST(ServerSeriesVectors, NodeExporterFirstScrape) {
  ServerSeries series;
  const auto values = series.next(scrape(testing::read_exposition_vector("node_exporter-1.5.0.prom")), 1);
  EXPECT_GT(values.size(), 200u);
  EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](const ServerSeriesValue& v) { return v.shape == Shape::Value; }));
  EXPECT_NE(find(values, "server.node_load1"), nullptr);
  EXPECT_NE(find(values, "server.go_gc_duration_seconds{quantile=\"0.5\"}"), nullptr);
  EXPECT_EQ(find(values, "server.node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}"), nullptr);  // a rate, later
}

}  // namespace
}  // namespace stampede::clients
