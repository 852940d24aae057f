// MeasuredRun: the worker threads and the generator monitor of one process, their seconds
// merged in one collector. Runs a real (tiny) scenario for a few hundred milliseconds.
#include "engine/measured_run.hpp"

#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "metrics/generator_health.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::engine {
namespace {

class MeasuredRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("stampede-measured-run-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  RunPlan plan(const std::string& lua, int threads, Nanos duration) {
    const std::string path = (dir_ / "scenario.lua").string();
    std::ofstream(path) << lua;
    RunPlan p;
    p.shape.model = LoadModel::Vus;
    p.shape.start = threads;
    p.shape.stages = {{duration, static_cast<double>(threads)}};
    p.threads = threads;
    p.env.scenario_path = path;
    return p;
  }

  std::filesystem::path dir_;
  metrics::Registry registry_;
};

constexpr const char* kSleeper = R"(
local stampede = require "stampede"
return { run = function() stampede.sleep(5) end }
)";

TEST_F(MeasuredRunTest, EveryWorkersSecondsAndTheMonitorsReachTheOneCollector) {
  MeasuredRun run(plan(kSleeper, 2, 400 * kMilli), registry_);
  std::atomic<int> seconds{0};
  run.collector().subscribe([&](const metrics::Snapshot&) { ++seconds; });
  run.load();
  run.start(SteadyClock::monotonic_now() + 10 * kMilli);
  run.run_to_end();

  EXPECT_GE(seconds.load(), 1);  // the partial last second is delivered too
  const auto table = metrics::make_metric_table(run.collector().summary(), registry_);
  const auto* iterations = metrics::find_metric(table, metrics::names::kIterations);
  ASSERT_NE(iterations, nullptr);
  // 2 VUs sleeping 5 ms each for 0.4 s: at most ~160 iterations.
  EXPECT_GT(iterations->data.count, 0u);
  EXPECT_LE(iterations->data.count, 170u);
  // One VU on each worker: the live-VU gauges of both workers' seconds added up.
  const auto* vus = metrics::find_metric(table, metrics::names::kVus);
  ASSERT_NE(vus, nullptr);
  EXPECT_EQ(vus->data.gauge_max, 2.0);
  // The monitor's slot: the open files it counts at every second, the partial last one too.
  const auto* fds = metrics::find_metric(table, metrics::names::kGeneratorFds);
  ASSERT_NE(fds, nullptr);
  EXPECT_TRUE(fds->data.present);
  EXPECT_GT(fds->data.gauge_max, 2.0);
}

TEST_F(MeasuredRunTest, StopEndsTheLoadBeforeItsDuration) {
  MeasuredRun run(plan(kSleeper, 1, 60 * kSecond), registry_);
  run.load();
  const Nanos t0 = SteadyClock::monotonic_now() + 10 * kMilli;
  run.start(t0);
  boost::asio::steady_timer stop_soon(run.io(), std::chrono::milliseconds(200));
  stop_soon.async_wait([&](const boost::system::error_code&) { run.stop(false); });
  run.run_to_end();
  // Not a timing check: unstopped, the run would last its whole minute.
  EXPECT_LT(SteadyClock::monotonic_now() - t0, 30 * kSecond);
  const auto table = metrics::make_metric_table(run.collector().summary(), registry_);
  EXPECT_GT(metrics::find_metric(table, metrics::names::kIterations)->data.count, 0u);
}

TEST_F(MeasuredRunTest, AScenarioThatDoesNotLoadSaysSoAndNothingRuns) {
  MeasuredRun run(plan("return { run = 42 }", 2, kSecond), registry_);
  EXPECT_THROW(run.load(), scenario::ScenarioError);
}  // and the destructor stops the worker that did start

}  // namespace
}  // namespace stampede::engine
