#include "metrics/generator_health.hpp"

#include <gtest/gtest.h>

#include "metrics/names.hpp"

namespace stampede::metrics {
namespace {

// A window of `seconds` seconds in which the busiest worker thread used `cpu` % each
// second, its loop ran `delay` late at every probe, and `fds` files were open; with
// `wait_us`, the most-waiting worker waited that long for a CPU each second.
MetricTable window(int seconds, double cpu, Nanos delay, double fds, Registry& registry, std::uint64_t wait_us = 0) {
  Summary summary;
  for (int s = 0; s < seconds; ++s) {
    MetricSink sink(registry);
    sink.set_gauge(sink.id(names::kGeneratorCpu, Kind::Gauge), cpu);
    sink.add(sink.id(names::kGeneratorBusy, Kind::Counter), static_cast<std::uint64_t>(cpu * 1e4));
    sink.add(sink.id(names::kGeneratorWall, Kind::Counter), 1'000'000);
    sink.set_gauge(sink.id(names::kGeneratorFds, Kind::Gauge), fds);
    if (wait_us > 0) sink.add(sink.id(names::kGeneratorWait, Kind::Counter), wait_us);
    const MetricId loop = sink.id(names::kGeneratorLoopDelay, Kind::Timing);
    for (int i = 0; i < 50; ++i) sink.record(loop, delay);
    summary.add(sink.take(s));
  }
  return make_metric_table(summary, registry);
}

TEST(GeneratorHealth, AnIdleGeneratorIsConclusive) {
  Registry r;
  const auto h = assess_generator(window(3, 20, 100 * kMicro, 30, r), 3, 20000, "10 VUs");
  EXPECT_NEAR(h.cpu_mean, 20, 1e-9);
  EXPECT_EQ(h.cpu_peak, 20);
  EXPECT_FALSE(h.bottleneck);
  EXPECT_EQ(h.verdict, "");
  EXPECT_EQ(h.fds_peak, 30);
  ASSERT_TRUE(h.loop_delay_p99);
  EXPECT_NEAR(static_cast<double>(*h.loop_delay_p99), 100e3, 100);
  EXPECT_FALSE(h.lag_p99);  // closed model: no lag recorded
}

TEST(GeneratorHealth, ABusyCpuNamesTheGenerator) {
  Registry r;
  const auto h = assess_generator(window(4, 98, kMilli, 30, r), 4, 20000, "14,000 VUs");
  EXPECT_TRUE(h.bottleneck);
  EXPECT_EQ(h.verdict,
            "inconclusive: Stampede used 98% of its CPU at 14,000 VUs; latency at this load measures the load "
            "generator, not the server");
}

TEST(GeneratorHealth, ALateLoopNamesTheGeneratorEvenWithCpuToSpare) {
  // Starved by another process on the same cores: little CPU of its own, a loop running late.
  Registry r;
  const auto h = assess_generator(window(2, 40, 80 * kMilli, 30, r), 2, 20000, "500 iterations/s");
  EXPECT_TRUE(h.bottleneck);
  EXPECT_NE(h.verdict.find("event loop ran 80.0ms late"), std::string::npos) << h.verdict;
}

TEST(GeneratorHealth, WaitingForACpuNamesTheCompetitionAndWhatToDo) {
  // A local server took the cores: the worker was ready but waited 30% of the time, ran
  // late, and used little CPU of its own. The verdict says so, not "the server is slow".
  Registry r;
  const MetricTable table = window(3, 40, 80 * kMilli, 30, r);
  const auto h = assess_generator(window(3, 40, 80 * kMilli, 30, r, 300'000), 3, 20000, "50,000 iterations/s");
  ASSERT_TRUE(h.cpu_wait);
  EXPECT_NEAR(*h.cpu_wait, 30, 1e-9);
  EXPECT_TRUE(h.bottleneck);
  EXPECT_NE(h.verdict.find("waited for a CPU 30% of the time"), std::string::npos) << h.verdict;
  EXPECT_NE(h.verdict.find("--threads 1"), std::string::npos) << h.verdict;
  // Without the wait, the same lateness is the plain late-loop verdict.
  EXPECT_FALSE(assess_generator(table, 3, 20000, "50,000 iterations/s").cpu_wait);
  EXPECT_NE(assess_generator(table, 3, 20000, "x").verdict.find("event loop ran 80.0ms late"), std::string::npos);
}

TEST(GeneratorHealth, ALittleWaitOnTimeIsNoVerdict) {
  // Waited 40% of the time, but was on time: no verdict.
  Registry r;
  const auto h = assess_generator(window(2, 20, kMilli, 30, r, 400'000), 2, 20000, "x");
  EXPECT_FALSE(h.bottleneck) << h.verdict;
}

TEST(GeneratorHealth, RunningOutOfFileDescriptorsIsTheGenerators) {
  Registry r;
  const auto h = assess_generator(window(2, 10, kMilli, 19'500, r), 2, 20'000, "19,000 VUs");
  EXPECT_TRUE(h.bottleneck);
  EXPECT_NE(h.verdict.find("19500 of its 20000 file descriptors"), std::string::npos) << h.verdict;
}

TEST(GeneratorHealth, TheMeanIsOverTheMeasuredTimeNotTheWindow) {
  // Two measured seconds at 95%, in a window of 2.4 s (the last, partial second is not measured).
  Registry r;
  const auto h = assess_generator(window(2, 95, kMilli, 30, r), 2.4, 0, "2 VUs");
  EXPECT_NEAR(h.cpu_mean, 95, 1e-9);
  EXPECT_TRUE(h.bottleneck);
}

TEST(GeneratorHealth, OneBusySecondIsNotABusyWindow) {
  // The mean over the window decides, not a single spike.
  Registry r;
  Summary summary;
  for (int s = 0; s < 10; ++s) {
    MetricSink sink(r);
    const double cpu = s == 3 ? 100 : 30;
    sink.set_gauge(sink.id(names::kGeneratorCpu, Kind::Gauge), cpu);
    sink.add(sink.id(names::kGeneratorBusy, Kind::Counter), static_cast<std::uint64_t>(cpu * 1e4));
    summary.add(sink.take(s));
  }
  const auto h = assess_generator(make_metric_table(summary, r), 10, 0, "1 VU");
  EXPECT_EQ(h.cpu_peak, 100);
  EXPECT_NEAR(h.cpu_mean, 37, 1e-9);
  EXPECT_FALSE(h.bottleneck);
}

}  // namespace
}  // namespace stampede::metrics
