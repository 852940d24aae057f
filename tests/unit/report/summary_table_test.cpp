#include "report/summary_table.hpp"

#include <gtest/gtest.h>

#include "metrics/threshold.hpp"
#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

using metrics::Kind;
using metrics::MetricData;
using metrics::NamedMetric;

constexpr Nanos kUs = 1'000;
using testing::kMs;

NamedMetric timing(std::string name, std::initializer_list<std::pair<Nanos, int>> values) {
  NamedMetric m{std::move(name), Kind::Timing, {}};
  m.data.present = true;
  for (const auto& [value, times] : values) {
    m.data.histogram.record(value, static_cast<std::uint64_t>(times));
    m.data.count += static_cast<std::uint64_t>(times);
  }
  return m;
}

NamedMetric counter(std::string name, std::uint64_t count,
                    std::initializer_list<std::pair<const char*, std::uint64_t>> reasons = {}) {
  NamedMetric m{std::move(name), Kind::Counter, {}};
  m.data.present = true;
  m.data.count = count;
  for (const auto& [reason, n] : reasons) m.data.reasons[reason] = n;
  return m;
}

NamedMetric check(std::string name, std::uint64_t total, std::uint64_t failed) {
  NamedMetric m{std::move(name), Kind::Check, {}};
  m.data.present = true;
  m.data.count = total;
  m.data.failed = failed;
  return m;
}

NamedMetric gauge(std::string name, double max, double last) {
  NamedMetric m{std::move(name), Kind::Gauge, {}};
  m.data.present = true;
  m.data.count = 3;
  m.data.gauge_max = max;
  m.data.gauge_last = last;
  return m;
}

SummaryModel demo_run() {
  SummaryModel model;
  model.scenario = "Demo.Api";
  model.duration = 10 * kSecond + 4'500'000;  // a little over: still "10.0s"
  model.window_start = 0;
  model.window_end = 10 * kSecond;
  // p50 is the 50th of the 100 requests, p95 the 95th... A percentile reads as the
  // midpoint of the histogram bucket holding it: 31.90ms is in a bucket 16.384µs wide
  // whose midpoint is 31.907840ms ("31.91ms"), 97.77ms in one whose midpoint is
  // 97.746944ms ("97.75ms"). Mean, min and max are exact. Listed out of order on
  // purpose: the table sorts.
  model.metrics = {
      counter("_loop.lag", 5),  // internal: hidden
      timing("http.request",
             {{5'490 * kUs, 50}, {18'590 * kUs, 40}, {31'900 * kUs, 5}, {97'770 * kUs, 4}, {103'810 * kUs, 1}}),
      counter("http.request.errors", 12, {{"timeout", 2}, {"refused", 9}, {"reset", 1}}),
      counter("iteration.errors", 12),
      check("body has token", 50, 0),
      check("status is 200", 100, 1),
      gauge("vus", 500, 0),
      timing("ws.connect", {{850 * kUs, 4}}),
      timing("ws.join", {{1'200 * kMs, 3}}),
  };
  model.requests = {6000, 5990, 8};
  const double seconds = 10;
  for (const metrics::ThresholdSpec& spec : std::vector<metrics::ThresholdSpec>{
           {"http.request", "p95", 250, "demo.lua"},
           {"iteration.errors", "count", 0, "demo.lua"},
           {"ws.connect", "p99", 1, "demo.lua"},
           {"status is 200", "failed_rate", 0.001, "demo.lua"},
           {"http.request", "rate", 5, "demo.lua"},
           {"ws.jion", "p95", 2000, "--threshold"},
       }) {
    model.thresholds.push_back(metrics::judge(spec, model.metrics, seconds));
  }
  model.iteration_errors = {
      {"timeout waiting for reply to \"join\"\nstack traceback:\n\tdemo.lua:12", 5},
      {"connection refused", 9},
      {"unexpected status 500", 2},
  };
  for (int i = 0; i < 10; ++i) model.iteration_errors.push_back({"rare " + std::to_string(i), 1});
  return model;
}

TEST(SummaryTable, RendersTheWholeRun) {
  const std::string expected =
      "Demo.Api ran for 10.0s\n"
      "metric           count  rate/s     mean      p50      p90      p95      p99      max errors\n"
      "http.request       100   10.00  16.72ms   5.49ms  18.59ms  31.91ms  97.75ms 103.81ms     12\n"
      "  refused  9\n"
      "  timeout  2\n"
      "  reset    1\n"
      "iteration.errors    12    1.20\n"
      "vus              max 500  last 0\n"
      "ws.connect           4    0.40 850.00µs 850.00µs 850.00µs 850.00µs 850.00µs 850.00µs\n"
      "ws.join              3    0.30    1.20s    1.20s    1.20s    1.20s    1.20s    1.20s\n"
      "requests: 6000 sent, 5990 completed, 8 failed, 2 in flight at the end\n"
      "window: 0.0s to 10.0s\n"
      "checks\n"
      "  body has token   100.00%  (50 / 50)\n"
      "  status is 200     99.00%  (99 / 100)\n"
      "iteration errors\n"
      "  9  connection refused\n"
      "  5  timeout waiting for reply to \"join\" stack traceback:  demo.lua:12\n"
      "  2  unexpected status 500\n"
      "  1  rare 0\n"
      "  1  rare 1\n"
      "  1  rare 2\n"
      "  1  rare 3\n"
      "  1  rare 4\n"
      "  1  rare 5\n"
      "  1  rare 6\n"
      "  ... and 3 more messages (3 errors)\n"
      "thresholds\n"
      "pass http.request p95 <= 250.00ms (31.91ms)\n"
      "fail iteration.errors count <= 0 (12)\n"
      "pass ws.connect p99 <= 1.00ms (850.00µs)\n"
      "fail status is 200 failed_rate <= 0.10% (1.00%)\n"
      "fail http.request rate <= 5.00/s (10.00/s)\n"
      "fail ws.jion p95 <= 2.00s (no samples: \"ws.jion\" was never recorded)\n";
  EXPECT_EQ(render_summary_table(demo_run()), expected);
}

TEST(SummaryTable, LeavesOutEmptySectionsAndShowsMissingFigures) {
  SummaryModel model;
  model.scenario = "Quiet";
  model.duration = 0;
  model.metrics = {timing("http.request", {}), counter("iteration.errors", 0)};
  model.metrics[0].data.present = false;
  model.all_metrics = true;  // --summary all: the metrics with nothing recorded too
  const std::string expected =
      "Quiet ran for 0.0s\n"
      "metric           count  rate/s     mean      p50      p90      p95      p99      max\n"
      "http.request         0       -        -        -        -        -        -        -\n"
      "iteration.errors     0       -\n"
      "requests: 0 sent, 0 completed, 0 failed, 0 in flight at the end\n"
      "window: 0.0s to 0.0s\n";
  EXPECT_EQ(render_summary_table(model), expected);
}

// What a person reads: the metrics the scenario used, each timing with its errors; not the
// ones it never touched, unless a threshold names them.
TEST(SummaryTable, LeavesOutWhatWasNeverRecordedAndFoldsErrorsIntoTheirTiming) {
  SummaryModel model;
  model.scenario = "Lobby";
  model.duration = kSecond;
  model.window_end = kSecond;
  model.metrics = {
      timing("channel.join", {{2 * kMs, 10}}),
      counter("channel.join.errors", 0),
      timing("channel.leave", {}),          // never used: left out
      counter("channel.leave.errors", 0),   // with it
      timing("live.navigate", {}),          // never used, but a threshold names it: shown
      timing("ws.connect", {}),             // every connect failed: shown, with its errors
      counter("ws.connect.errors", 3, {{"refused", 3}}),
      counter("iterations.dropped", 0),     // nothing dropped: left out
      counter("vu.crashes", 0),             // left out
  };
  model.thresholds.push_back(metrics::judge({"live.navigate", "p95", 100, "lobby.lua"}, model.metrics, 1));
  const std::string expected =
      "Lobby ran for 1.0s\n"
      "metric        count  rate/s     mean      p50      p90      p95      p99      max errors\n"
      "channel.join     10   10.00   2.00ms   2.00ms   2.00ms   2.00ms   2.00ms   2.00ms      0\n"
      "live.navigate     0    0.00        -        -        -        -        -        -\n"
      "ws.connect        0    0.00        -        -        -        -        -        -      3\n"
      "  refused  3\n"
      "(3 metrics with nothing recorded not shown: --summary all lists every one)\n"
      "requests: 0 sent, 0 completed, 0 failed, 0 in flight at the end\n"
      "window: 0.0s to 1.0s\n"
      "thresholds\n"
      "fail live.navigate p95 <= 100.00ms (no samples: \"live.navigate\" recorded nothing)\n";
  EXPECT_EQ(render_summary_table(model), expected);

  model.all_metrics = true;
  const std::string all = render_summary_table(model);
  for (const char* row : {"\nchannel.leave ", "\niterations.dropped ", "\nvu.crashes "})
    EXPECT_NE(all.find(row), std::string::npos) << row << "\n" << all;
  EXPECT_EQ(all.find("channel.join.errors"), std::string::npos);  // folded all the same
  EXPECT_EQ(all.find("not shown"), std::string::npos);
}

// A column is as wide as its widest figure plus one space.
TEST(SummaryTable, ColumnsGrowForWideFigures) {
  SummaryModel model;
  model.scenario = "Big";
  model.duration = kSecond;
  model.window_end = kSecond;
  model.metrics = {counter("bytes", 123'456'789'012)};
  const std::string expected =
      "Big ran for 1.0s\n"
      "metric        count          rate/s\n"
      "bytes  123456789012 123456789012.00\n"
      "requests: 0 sent, 0 completed, 0 failed, 0 in flight at the end\n"
      "window: 0.0s to 1.0s\n";
  EXPECT_EQ(render_summary_table(model), expected);
}


TEST(SummaryTable, ADistributionOfBytesPrintsSizes) {
  NamedMetric m{"live.diff.bytes", Kind::Distribution, {}};
  m.data.present = true;
  m.data.histogram.record(120, 2);
  m.data.histogram.record(3400, 1);
  SummaryModel model;
  model.scenario = "S";
  model.duration = kSecond;
  model.window_end = kSecond;
  model.metrics = {m};
  const std::string text = render_summary_table(model);
  EXPECT_NE(text.find("live.diff.bytes     3    3.00   1.21kB     120B   3.40kB   3.40kB   3.40kB   3.40kB\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("ns"), std::string::npos) << text;
}

}  // namespace
}  // namespace stampede::report
