#include "report/progress_line.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include "metrics/names.hpp"

namespace stampede::report {
namespace {

using metrics::Kind;
namespace names = metrics::names;

TEST(ProgressLine, FormatsTheFigures) {
  ProgressFigures f;
  f.elapsed = 12 * kSecond;
  f.total = 90 * kSecond;
  f.vus = 500;
  f.iterations_per_second = 812;
  f.errors = 3;
  f.request_errors = 1204;
  f.dropped = 0;
  f.busiest_timing = "http.request";
  f.busiest_p95 = 31'900'000;
  EXPECT_EQ(format_progress(f),
            "[  12s / 1m30s] vus 500  it/s 812.0  errors 3  req errors 1204  dropped 0  http.request p95 31.90ms");

  f.busiest_timing.clear();
  f.total = 0;  // no planned end
  EXPECT_EQ(format_progress(f), "[12s] vus 500  it/s 812.0  errors 3  req errors 1204  dropped 0");
}

TEST(ProgressLine, FiguresComeFromTheSecondAndTheTotals) {
  metrics::Registry registry;
  metrics::MetricSink a(registry);
  metrics::MetricSink b(registry);
  ProgressTotals totals;

  // Second 0: one error, two refused requests.
  a.add_error(a.id(names::kIterationErrors, Kind::Counter), "boom");
  a.add_error(a.id("http.request.errors", Kind::Counter), "refused");
  b.add_error(b.id("http.request.errors", Kind::Counter), "refused");
  metrics::Snapshot s0 = a.take(0);
  s0.merge_parallel(b.take(0));
  totals.add(s0, registry);

  // Second 1: two workers' VUs, iterations and timings; the busiest timing wins.
  const auto vus_a = a.id(names::kVus, Kind::Gauge);
  const auto vus_b = b.id(names::kVus, Kind::Gauge);
  a.set_gauge(vus_a, 250);
  b.set_gauge(vus_b, 250);
  a.add(a.id(names::kIterations, Kind::Counter), 400);
  b.add(b.id(names::kIterations, Kind::Counter), 412);
  a.add_error(a.id(names::kIterationErrors, Kind::Counter), "boom");
  b.add_error(b.id(names::kIterationErrors, Kind::Counter), "boom");
  b.add(b.id(names::kDroppedIterations, Kind::Counter), 4);
  // Every client's error counter adds to the request errors; other counters do not.
  a.add_error(a.id("http.request.errors", Kind::Counter), "status 503");
  b.add_error(b.id("ws.connect.errors", Kind::Counter), "refused");
  b.add(b.id("http.request.errors.seen", Kind::Counter), 7);
  b.add(b.id("channel.messages", Kind::Counter), 9);
  // The server's failed scrapes and its series are not the scenario's requests.
  a.add_error(a.id("server.scrape.errors", Kind::Counter), "refused");
  const auto server_timing = a.id("server.phoenix_endpoint_stop_duration_seconds", Kind::Timing);
  for (int i = 0; i < 500; ++i) a.record(server_timing, 2'000'000);
  const auto request = a.id("http.request", Kind::Timing);
  const auto connect = b.id("ws.connect", Kind::Timing);
  const auto hidden = b.id("_internal.timing", Kind::Timing);
  for (int i = 1; i <= 100; ++i) a.record(request, i * 1'000'000);
  for (int i = 0; i < 10; ++i) b.record(connect, 5'000'000);
  for (int i = 0; i < 1000; ++i) b.record(hidden, 1);
  metrics::Snapshot s1 = a.take(1);
  s1.merge_parallel(b.take(1));
  totals.add(s1, registry);

  const ProgressFigures f = progress_figures(s1, registry, totals, 90 * kSecond);
  EXPECT_EQ(f.elapsed, 2 * kSecond);
  EXPECT_EQ(f.vus, 500);
  EXPECT_EQ(f.iterations_per_second, 812);
  EXPECT_EQ(f.errors, 3u);
  EXPECT_EQ(f.request_errors, 4u);
  EXPECT_EQ(f.dropped, 4u);
  EXPECT_EQ(f.busiest_timing, "http.request");
  EXPECT_NEAR(static_cast<double>(f.busiest_p95), 95e6, 95e6 / 2000);
  EXPECT_EQ(format_progress(f),
            "[   2s / 1m30s] vus 500  it/s 812.0  errors 3  req errors 4  dropped 4  http.request p95 94.99ms");
}

TEST(ProgressLine, TerminalRedrawsInPlaceOthersAppendLines) {
  EXPECT_EQ(progress_frame("line", ProgressStyle::RedrawInPlace), "\r\x1b[Kline");
  EXPECT_EQ(progress_frame("line", ProgressStyle::LinePerUpdate), "line\n");
  EXPECT_EQ(progress_end(ProgressStyle::RedrawInPlace), "\n");
  EXPECT_EQ(progress_end(ProgressStyle::LinePerUpdate), "");

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_EQ(progress_style_for(fds[1]), ProgressStyle::LinePerUpdate);  // a pipe is no terminal
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace stampede::report
