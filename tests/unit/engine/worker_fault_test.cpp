// A handler that throws inside a worker's event loop: an engine fault, counted under
// vu.crashes; the run goes on to its end instead of the exception ending the process.
#include "engine/worker.hpp"

#include <boost/asio/steady_timer.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "metrics/names.hpp"

namespace stampede::engine {
namespace {

constexpr const char* kSleeperScenario = R"(
local stampede = require "stampede"
return { run = function() stampede.sleep(5) end }
)";

TEST(WorkerFault, AHandlerThatThrowsIsCountedAsACrashAndTheRunGoesOn) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("stampede-worker-fault-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "scenario.lua").string();
  std::ofstream(path) << kSleeperScenario;

  metrics::Registry registry;
  std::vector<metrics::Snapshot> seconds;
  bool last_seen = false;
  WorkerConfig cfg;
  cfg.shape.model = LoadModel::Vus;
  cfg.shape.start = 1;
  cfg.shape.stages = {{400 * kMilli, 1}};
  cfg.env.scenario_path = path;
  cfg.registry = &registry;
  cfg.publish = [&](int, metrics::Snapshot s, bool last) {
    seconds.push_back(std::move(s));
    last_seen = last_seen || last;
  };
  Worker worker(std::move(cfg));
  worker.load();

  // 100 ms into the run, a handler on the worker's loop throws.
  boost::asio::steady_timer fault(worker.io());
  fault.expires_after(std::chrono::milliseconds(110));
  fault.async_wait([](const boost::system::error_code&) { throw std::runtime_error("boom"); });

  const Nanos start = SteadyClock::monotonic_now() + 10 * kMilli;
  worker.run(start);
  const Nanos ended = SteadyClock::monotonic_now();

  EXPECT_TRUE(last_seen);                     // the final second was published
  EXPECT_GE(ended - start, 380 * kMilli);     // the run went on to its end
  std::uint64_t crashes = 0;
  std::uint64_t iterations = 0;
  std::string reason;
  for (const auto& s : seconds) {
    metrics::MetricId id = 0;
    if (registry.find("vu.crashes", id) && id < s.metrics.size()) {
      crashes += s.metrics[id].count;
      for (const auto& [why, n] : s.metrics[id].reasons) reason = why;
    }
    if (registry.find(metrics::names::kIterations, id) && id < s.metrics.size()) iterations += s.metrics[id].count;
  }
  EXPECT_EQ(crashes, 1u);
  EXPECT_EQ(reason, "engine fault: boom");
  EXPECT_GT(iterations, 30u);  // ~75 iterations of 5 ms: most of them after the fault
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace stampede::engine
