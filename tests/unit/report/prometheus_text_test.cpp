#include "report/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

using testing::kMs;

ScenarioResult small_run() {
  ScenarioResult r;
  r.scenario = "Demo \"A\"\\B\nC";
  r.duration = 2500 * kMs;
  r.requests = {10, 7, 1};
  r.metrics = {testing::timing_figures("http.request", 4, 5 * kMs, 30 * kMs, 90 * kMs),
               testing::counter_figures("http.request.errors", 3, {{"refused", 2}, {"status 503", 1}}),
               testing::check_figures("status is 200", 6, 1), testing::gauge_figures("vus", 50, 20)};
  r.metrics[0].mean = 10 * kMs;
  SecondResult last;
  last.second = 2;
  last.iterations = 4;
  last.cpu_cores = 0.5;
  r.timeline = {last};
  return r;
}

TEST(PrometheusText, Names) {
  EXPECT_EQ(prometheus_name("http.request"), "http_request");
  EXPECT_EQ(prometheus_name("http.request.list-posts/v1"), "http_request_list_posts_v1");
  EXPECT_EQ(prometheus_name("ns:metric"), "ns:metric");
  EXPECT_EQ(prometheus_name("µs"), "__s");  // each byte of a non-ASCII character becomes '_'
}

TEST(PrometheusText, WritesTheFixedModel) {
  const std::string labels = "scenario=\"Demo \\\"A\\\"\\\\B\\nC\"";
  const std::string expected =
      "# HELP stampede_requests_sent_total Requests sent by every client\n"
      "# TYPE stampede_requests_sent_total counter\n"
      "stampede_requests_sent_total{" + labels + "} 10\n"
      "# HELP stampede_requests_completed_total Requests that succeeded: an HTTP response with status below 400, an ok "
      "channel reply, a completed WebSocket handshake\n"
      "# TYPE stampede_requests_completed_total counter\n"
      "stampede_requests_completed_total{" + labels + "} 7\n"
      "# HELP stampede_requests_failed_total Requests that failed: an HTTP response with status 400 or above (404 "
      "included), a channel reply that was not ok, or no answer at all (refused, reset, timeout, ...)\n"
      "# TYPE stampede_requests_failed_total counter\n"
      "stampede_requests_failed_total{" + labels + "} 1\n"
      "# HELP stampede_requests_in_flight Requests sent and not finished yet\n"
      "# TYPE stampede_requests_in_flight gauge\n"
      "stampede_requests_in_flight{" + labels + "} 2\n"
      "# HELP stampede_elapsed_seconds Time since the scenario's run started\n"
      "# TYPE stampede_elapsed_seconds gauge\n"
      "stampede_elapsed_seconds{" + labels + "} 2.5\n"
      "# HELP stampede_iterations_per_second Iterations finished in the latest second\n"
      "# TYPE stampede_iterations_per_second gauge\n"
      "stampede_iterations_per_second{" + labels + "} 4\n"
      "# HELP stampede_generator_cpu_cores CPU the generator used in the latest second (1 = one core)\n"
      "# TYPE stampede_generator_cpu_cores gauge\n"
      "stampede_generator_cpu_cores{" + labels + "} 0.5\n"
      "# HELP stampede_checks_total Check outcomes by check and result\n"
      "# TYPE stampede_checks_total counter\n"
      "stampede_checks_total{" + labels + ",check=\"status is 200\",result=\"pass\"} 6\n"
      "stampede_checks_total{" + labels + ",check=\"status is 200\",result=\"fail\"} 1\n"
      "# HELP stampede_http_request_seconds Stampede timing \"http.request\" over the run so far, in seconds\n"
      "# TYPE stampede_http_request_seconds summary\n"
      "stampede_http_request_seconds{" + labels + ",quantile=\"0.5\"} 0.005\n"
      "stampede_http_request_seconds{" + labels + ",quantile=\"0.9\"} 0.0175\n"
      "stampede_http_request_seconds{" + labels + ",quantile=\"0.95\"} 0.03\n"
      "stampede_http_request_seconds{" + labels + ",quantile=\"0.99\"} 0.09\n"
      "stampede_http_request_seconds_sum{" + labels + "} 0.04\n"
      "stampede_http_request_seconds_count{" + labels + "} 4\n"
      "# HELP stampede_http_request_errors_total Stampede counter \"http.request.errors\"\n"
      "# TYPE stampede_http_request_errors_total counter\n"
      "stampede_http_request_errors_total{" + labels + "} 3\n"
      "# HELP stampede_http_request_errors_by_reason_total Stampede counter \"http.request.errors\" by reason\n"
      "# TYPE stampede_http_request_errors_by_reason_total counter\n"
      "stampede_http_request_errors_by_reason_total{" + labels + ",reason=\"refused\"} 2\n"
      "stampede_http_request_errors_by_reason_total{" + labels + ",reason=\"status 503\"} 1\n"
      "# HELP stampede_vus Stampede gauge \"vus\": its latest value\n"
      "# TYPE stampede_vus gauge\n"
      "stampede_vus{" + labels + "} 20\n";
  EXPECT_EQ(prometheus_text({small_run()}), expected);
}

TEST(PrometheusText, QuantilesOfNoSamplesAreNaN) {
  ScenarioResult r;
  r.scenario = "S";
  r.metrics = {testing::timing_figures("ws.connect", 0, 0, 0, 0)};
  const std::string text = prometheus_text({r});
  EXPECT_NE(text.find("stampede_ws_connect_seconds{scenario=\"S\",quantile=\"0.95\"} NaN\n"), std::string::npos);
  EXPECT_NE(text.find("stampede_ws_connect_seconds_count{scenario=\"S\"} 0\n"), std::string::npos);
}

TEST(PrometheusText, ScenariosShareFamilies) {
  ScenarioResult a = small_run(), b = small_run();
  a.scenario = "A";
  b.scenario = "B";
  const std::string text = prometheus_text({a, b});
  // One TYPE line per family, with both scenarios' samples under it.
  const auto type_line = text.find("# TYPE stampede_vus gauge\n");
  ASSERT_NE(type_line, std::string::npos);
  EXPECT_EQ(text.find("# TYPE stampede_vus gauge\n", type_line + 1), std::string::npos);
  EXPECT_NE(text.find("stampede_vus{scenario=\"A\"} 20\nstampede_vus{scenario=\"B\"} 20\n"), std::string::npos);
}

TEST(PrometheusText, NamesThatCollideAfterSanitisingKeepApart) {
  ScenarioResult r;
  r.scenario = "S";
  r.metrics = {testing::timing_figures("a.b", 1, kMs, kMs, kMs), testing::timing_figures("a_b", 1, kMs, kMs, kMs),
               testing::gauge_figures("a.b.seconds.count", 1, 1), testing::gauge_figures("elapsed.seconds", 1, 1)};
  const std::string text = prometheus_text({r});
  EXPECT_NE(text.find("# TYPE stampede_a_b_seconds summary\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE stampede_a_b_2_seconds summary\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE stampede_a_b_seconds_count_2 gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE stampede_elapsed_seconds_2 gauge\n"), std::string::npos) << text;
}


TEST(PrometheusText, ADistributionIsASummaryInItsOwnUnit) {
  ScenarioResult r;
  r.scenario = "S";
  r.metrics = {testing::diff_sizes()};
  const std::string text = prometheus_text({r});
  EXPECT_NE(text.find("# TYPE stampede_live_diff_bytes summary\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_live_diff_bytes{scenario=\"S\",quantile=\"0.95\"} 3400\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stampede_live_diff_bytes_sum{scenario=\"S\"} 3640.5\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("live_diff_bytes_seconds"), std::string::npos) << text;
}

}  // namespace
}  // namespace stampede::report
