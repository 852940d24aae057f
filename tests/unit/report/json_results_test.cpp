#include "report/json_results.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <limits>

#include "report/json_results_reader.hpp"
#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

namespace json = boost::json;
using testing::kMs;
using testing::sample_run;

json::object parsed(const RunResult& run) { return json::parse(results_json(run)).as_object(); }

TEST(JsonResults, WritesToolVersionAndOneResultPerScenario) {
  RunResult run = sample_run();
  run.results.push_back(testing::sample_scenario("Second"));
  const json::object doc = parsed(run);
  EXPECT_EQ(doc.at("version").as_int64(), kResultsSchemaVersion);
  EXPECT_EQ(doc.at("tool").at("name").as_string(), "stampede");
  EXPECT_EQ(doc.at("tool").at("version").as_string(), "0.1.0");
  EXPECT_EQ(doc.at("tool").at("commit").as_string(), "abc1234");
  EXPECT_FALSE(doc.at("passed").as_bool());  // a threshold failed
  ASSERT_EQ(doc.at("results").as_array().size(), 2u);
  EXPECT_EQ(doc.at("results").as_array()[1].at("scenario").as_string(), "Second");
}

TEST(JsonResults, WritesMetadataAndOptions) {
  const json::object r = parsed(sample_run()).at("results").as_array()[0].as_object();
  EXPECT_EQ(r.at("scenario").as_string(), "Demo <script>\"Api\"</script>");  // JSON escapes it; parsing restores it
  EXPECT_EQ(r.at("file").as_string(), "loadtest/api.lua");
  EXPECT_EQ(r.at("started_at").as_string(), "2024-05-01T12:00:00.123Z");
  EXPECT_EQ(r.at("host").as_string(), "ci-runner");
  EXPECT_EQ(r.at("threads").as_int64(), 2);
  EXPECT_EQ(r.at("cpu_policy").as_string(), "batch");
  EXPECT_EQ(r.at("ranks").as_int64(), 1);
  EXPECT_EQ(r.at("duration_ms").as_int64(), 10'000);
  EXPECT_EQ(r.at("window").at("end_ms").as_int64(), 10'000);
  EXPECT_EQ(r.at("interrupts").as_int64(), 0);
  const json::object& o = r.at("options").as_object();
  EXPECT_EQ(o.at("model").as_string(), "vus");
  EXPECT_EQ(o.at("stages").as_array().size(), 2u);
  EXPECT_EQ(o.at("stages").as_array()[1].at("duration_ms").as_int64(), 8'000);
  EXPECT_EQ(o.at("stages").as_array()[1].at("target").as_int64(), 50);
  EXPECT_EQ(o.at("duration_ms").as_int64(), 10'000);
  EXPECT_EQ(o.at("graceful_stop_ms").as_int64(), 500);
  EXPECT_EQ(o.at("thresholds").as_array()[0].at("aggregation").as_string(), "p95");
  EXPECT_EQ(o.at("thresholds").as_array()[1].at("unit").as_string(), "ratio");
}

TEST(JsonResults, WritesEveryKindOfMetricWithItsFigures) {
  const json::object r = parsed(sample_run()).at("results").as_array()[0].as_object();
  const json::object& timing = r.at("metrics").at("http.request").as_object();
  EXPECT_EQ(timing.at("kind").as_string(), "timing");
  EXPECT_EQ(timing.at("count").as_int64(), 1000);
  EXPECT_DOUBLE_EQ(timing.at("rate").as_int64(), 100);
  EXPECT_DOUBLE_EQ(timing.at("p50_ms").as_double(), 5.49);
  EXPECT_DOUBLE_EQ(timing.at("p95_ms").as_double(), 31.9);
  EXPECT_DOUBLE_EQ(timing.at("p99_ms").as_double(), 97.77);
  EXPECT_DOUBLE_EQ(timing.at("max_ms").as_double(), 195.54);
  EXPECT_DOUBLE_EQ(timing.at("min_ms").as_double(), 2.745);
  EXPECT_DOUBLE_EQ(timing.at("mean_ms").as_double(), 5.4900005);

  const json::object& errors = r.at("metrics").at("http.request.errors").as_object();
  EXPECT_EQ(errors.at("kind").as_string(), "counter");
  EXPECT_EQ(errors.at("count").as_int64(), 12);
  EXPECT_EQ(errors.at("reasons").at("refused").as_int64(), 9);
  EXPECT_EQ(errors.at("reasons").at("status 503").as_int64(), 3);

  const json::object& vus = r.at("metrics").at("vus").as_object();
  EXPECT_EQ(vus.at("kind").as_string(), "gauge");
  EXPECT_EQ(vus.at("max").as_int64(), 50);
  EXPECT_EQ(vus.at("last").as_int64(), 0);

  EXPECT_FALSE(r.at("metrics").as_object().contains("status is 200"));  // checks sit apart
  const json::object& check = r.at("checks").at("status is 200").as_object();
  EXPECT_EQ(check.at("passes").as_int64(), 990);
  EXPECT_EQ(check.at("fails").as_int64(), 10);
  EXPECT_DOUBLE_EQ(check.at("pass_rate").as_double(), 0.99);
}

TEST(JsonResults, WritesThresholdsErrorsRequestsAndTimeline) {
  const json::object r = parsed(sample_run()).at("results").as_array()[0].as_object();
  const json::array& thresholds = r.at("thresholds").as_array();
  ASSERT_EQ(thresholds.size(), 2u);
  EXPECT_TRUE(thresholds[0].at("pass").as_bool());
  EXPECT_FALSE(thresholds[1].at("pass").as_bool());
  EXPECT_DOUBLE_EQ(thresholds[1].at("value").as_double(), 0.01);
  EXPECT_EQ(thresholds[1].at("message").as_string(), "over the limit");
  EXPECT_FALSE(r.at("passed").as_bool());

  EXPECT_EQ(r.at("iteration_errors").as_array()[0].at("message").as_string(), "api.lua:12: boom <b>\"bad\"</b>");
  EXPECT_EQ(r.at("iteration_errors").as_array()[0].at("count").as_int64(), 2);

  const json::object& requests = r.at("requests").as_object();
  EXPECT_EQ(requests.at("sent").as_int64(), 1012);
  EXPECT_EQ(requests.at("completed").as_int64(), 1000);
  EXPECT_EQ(requests.at("failed").as_int64(), 12);
  EXPECT_EQ(requests.at("in_flight").as_int64(), 0);

  const json::array& timeline = r.at("timeline").as_array();
  ASSERT_EQ(timeline.size(), 2u);
  EXPECT_EQ(timeline[1].at("second").as_int64(), 1);
  EXPECT_EQ(timeline[1].at("vus").as_int64(), 50);
  EXPECT_EQ(timeline[1].at("iterations").as_int64(), 100);
  EXPECT_EQ(timeline[1].at("errors").as_int64(), 1);
  EXPECT_DOUBLE_EQ(timeline[0].at("cpu_cores").as_double(), 0.25);
  EXPECT_TRUE(timeline[1].at("cpu_cores").is_null());  // not measured
  EXPECT_DOUBLE_EQ(timeline[0].at("metrics").at("http.request").at("p95_ms").as_int64(), 30);
  EXPECT_EQ(timeline[0].at("checks").at("status is 200").at("fails").as_int64(), 1);
}

TEST(JsonResults, WritesNullForFiguresThatCannotBeComputed) {
  RunResult run = sample_run();
  ScenarioResult& r = run.results[0];
  r.metrics = {testing::timing_figures("ws.connect", 0, 0, 0, 0), testing::check_figures("never", 0, 0)};
  r.metrics[0].rate = std::numeric_limits<double>::quiet_NaN();
  MetricFigures unset_gauge = testing::gauge_figures("vus", 0, 0);
  unset_gauge.present = false;
  r.metrics.push_back(unset_gauge);
  r.thresholds[0].judged = false;
  const json::object parsed_result = parsed(run).at("results").as_array()[0].as_object();
  const json::object& timing = parsed_result.at("metrics").at("ws.connect").as_object();
  EXPECT_EQ(timing.at("count").as_int64(), 0);
  EXPECT_TRUE(timing.at("rate").is_null());
  for (const char* key : {"mean_ms", "min_ms", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "max_ms"})
    EXPECT_TRUE(timing.at(key).is_null()) << key;
  EXPECT_TRUE(parsed_result.at("checks").at("never").at("pass_rate").is_null());
  EXPECT_TRUE(parsed_result.at("metrics").at("vus").at("last").is_null());
  EXPECT_TRUE(parsed_result.at("thresholds").as_array()[0].at("value").is_null());
}

TEST(JsonResults, ReplacesBytesThatAreNotUtf8) {
  RunResult run = sample_run();
  run.results[0].iteration_errors = {{"bad \xFF\xC0 byte", 1}};
  const std::string text = results_json(run);
  const json::object r = json::parse(text).at("results").as_array()[0].as_object();
  EXPECT_EQ(r.at("iteration_errors").as_array()[0].at("message").as_string(), "bad \xEF\xBF\xBD\xEF\xBF\xBD byte");
}

TEST(JsonResults, StreamLineIsTheSecondWithItsScenario) {
  const RunResult run = sample_run();
  const SecondResult& second = run.results[0].timeline[0];
  const std::string line = second_json_line("Demo", second);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line
  const json::object o = json::parse(line).as_object();
  EXPECT_EQ(o.at("scenario").as_string(), "Demo");
  EXPECT_EQ(o.at("second").as_int64(), 0);
  EXPECT_EQ(o.at("metrics").at("http.request").at("count").as_int64(), 100);
}

TEST(JsonResultsReader, ReadsBackWhatWasWritten) {
  const RunResult written = sample_run();
  const RunResult read = read_results_json(results_json(written));
  EXPECT_EQ(read.version, written.version);
  EXPECT_EQ(read.tool.commit, "abc1234");
  ASSERT_EQ(read.results.size(), 1u);
  const ScenarioResult& a = written.results[0];
  const ScenarioResult& b = read.results[0];
  EXPECT_EQ(b.scenario, a.scenario);
  EXPECT_EQ(b.started_at, a.started_at);
  EXPECT_EQ(b.cpu_policy, "batch");
  EXPECT_EQ(b.duration, a.duration);
  EXPECT_EQ(b.options.shape.stages.size(), 2u);
  EXPECT_EQ(b.options.shape.stages[1].duration, 8 * kSecond);
  EXPECT_EQ(b.options.shape.graceful_stop, 500 * kMs);
  EXPECT_EQ(b.options.thresholds.size(), 2u);
  ASSERT_EQ(b.metrics.size(), a.metrics.size());
  for (std::size_t i = 0; i < a.metrics.size(); ++i) {
    EXPECT_EQ(b.metrics[i].name, a.metrics[i].name);
    EXPECT_EQ(b.metrics[i].kind, a.metrics[i].kind);
    if (a.metrics[i].kind != metrics::Kind::Gauge) {  // a gauge's count of samples is not in the file
      EXPECT_EQ(b.metrics[i].count, a.metrics[i].count);
    }
    EXPECT_EQ(b.metrics[i].p50, a.metrics[i].p50) << a.metrics[i].name;  // to the nanosecond
    EXPECT_EQ(b.metrics[i].p95, a.metrics[i].p95);
    EXPECT_EQ(b.metrics[i].p99, a.metrics[i].p99);
    EXPECT_EQ(b.metrics[i].max, a.metrics[i].max);
    EXPECT_NEAR(b.metrics[i].mean, a.metrics[i].mean, 1e-6);
    EXPECT_EQ(b.metrics[i].passes, a.metrics[i].passes);
    EXPECT_EQ(b.metrics[i].fails, a.metrics[i].fails);
    EXPECT_EQ(b.metrics[i].gauge_max, a.metrics[i].gauge_max);
    ASSERT_EQ(b.metrics[i].reasons.size(), a.metrics[i].reasons.size());
    for (std::size_t k = 0; k < a.metrics[i].reasons.size(); ++k)
      EXPECT_EQ(b.metrics[i].reasons[k].reason, a.metrics[i].reasons[k].reason);
  }
  EXPECT_EQ(b.thresholds[1].pass, false);
  EXPECT_EQ(b.thresholds[1].spec.aggregation, "failed_rate");
  EXPECT_EQ(b.iteration_errors[0].message, a.iteration_errors[0].message);
  EXPECT_EQ(b.requests.sent, 1012u);
  ASSERT_EQ(b.timeline.size(), 2u);
  EXPECT_EQ(b.timeline[0].cpu_cores, 0.25);
  EXPECT_FALSE(b.timeline[1].cpu_cores.has_value());
  EXPECT_EQ(b.timeline[1].metrics.size(), 3u);
  EXPECT_FALSE(read.passed());
}

// Files written before the policy was recorded have none: those runs used the default.
TEST(JsonResultsReader, AFileWithoutTheCpuPolicyRanWithNormal) {
  json::object doc = parsed(sample_run());
  doc.at("results").as_array()[0].as_object().erase("cpu_policy");
  const RunResult read = read_results_json(json::serialize(doc));
  ASSERT_EQ(read.results.size(), 1u);
  EXPECT_EQ(read.results[0].cpu_policy, "normal");
}

TEST(JsonResultsReader, SaysWhatIsWrongAndWhere) {
  const auto error_of = [](std::string_view text) -> std::string {
    try {
      read_results_json(text);
    } catch (const ResultsFormatError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of("{not json").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1}").find("not a Stampede results file"), std::string::npos);
  EXPECT_NE(error_of("{\"version\": 2, \"results\": []}").find("version 2"), std::string::npos);

  json::value doc = json::parse(results_json(sample_run()));
  doc.at("results").as_array()[0].at("metrics").at("http.request").as_object().erase("p95_ms");
  EXPECT_EQ(error_of(json::serialize(doc)), "results[0].metrics[\"http.request\"].p95_ms: missing");
  doc.at("results").as_array()[0].at("metrics").at("http.request").as_object()["p95_ms"] = "fast";
  EXPECT_EQ(error_of(json::serialize(doc)), "results[0].metrics[\"http.request\"].p95_ms: expected a number");
}


TEST(JsonResults, ADistributionKeepsItsUnitAndReadsBack) {
  RunResult run = sample_run();
  run.results[0].metrics.push_back(testing::diff_sizes());
  const json::object doc = parsed(run);
  const json::object& m = doc.at("results").as_array()[0].at("metrics").at("live.diff.bytes").as_object();
  EXPECT_EQ(m.at("kind"), "distribution");
  EXPECT_EQ(m.at("unit"), "bytes");
  EXPECT_EQ(m.at("p95").to_number<double>(), 3400);
  EXPECT_EQ(m.at("mean").to_number<double>(), 1213.5);
  EXPECT_FALSE(m.contains("p95_ms"));
  const RunResult read = read_results_json(results_json(run));
  const MetricFigures* f = find_figures(read.results[0].metrics, "live.diff.bytes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->kind, metrics::Kind::Distribution);
  EXPECT_EQ(f->p50, 120);
  EXPECT_EQ(f->max, 3400);
  EXPECT_EQ(f->count, 3u);
}

}  // namespace
}  // namespace stampede::report
