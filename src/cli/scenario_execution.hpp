#pragma once
// One run of a scenario file's load, with everything a run has around it: the worker
// threads, the Collector, the generator monitor, the progress line (RunOutput) and Ctrl-C.
// A plain `stampede run` runs through it, and so do find-limit's staircase and each --refine
// probe; an observer sees every merged second and may end the load early.
#include <boost/asio/ip/address.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/live_exports.hpp"
#include "cli/run_args.hpp"
#include "cli/run_output.hpp"
#include "common/load_shape.hpp"
#include "metrics/collector.hpp"
#include "metrics/threshold.hpp"
#include "report/find_limit_result.hpp"
#include "scenario/scenario_options.hpp"

namespace stampede::cli {

// A scenario file read once on the main thread, its setup() run.
struct PreparedScenario {
  std::string path;
  std::string name;
  scenario::ScenarioOptions options;
  bool has_setup = false;
  bool has_teardown = false;
  bool insecure = false;
  std::string setup_data;
  std::vector<boost::asio::ip::address> local_addresses;
  std::vector<metrics::ThresholdSpec> thresholds;
};

// Loads the file and reads its options (throws scenario::ScenarioError).
PreparedScenario load_scenario(const std::string& path, const RunArgs& args, metrics::Registry& registry);
// Runs setup() (throws scenario::ScenarioError when it fails).
void run_setup(PreparedScenario& scenario, metrics::Registry& registry);
// Runs teardown(); the message when it failed, empty otherwise.
std::string run_teardown(const PreparedScenario& scenario, metrics::Registry& registry);

std::string local_host_name();
// Worker threads for a load: --threads (default one per core), no more than the most VUs.
int worker_threads_for(const RunArgs& args, const LoadShape& shape);

class ScenarioExecution {
 public:
  ScenarioExecution(const PreparedScenario& scenario, const RunArgs& args, LoadShape shape, metrics::Registry& registry,
                    LiveExports* live, bool quiet);
  ~ScenarioExecution();

  // Sees each merged second (on a worker's thread or the main thread, one at a time).
  void observe(std::function<void(const metrics::Snapshot&)> observer);
  // Runs the load to its end, stop(), or Ctrl-C; returns how long it lasted.
  Nanos run();
  // Thread-safe: ends the load at once.
  void stop();

  RunOutput& output() { return *output_; }
  metrics::Collector& collector() { return collector_; }
  int interrupts() const { return interrupts_; }
  int threads() const { return threads_; }

 private:
  const PreparedScenario& scenario_;
  LoadShape shape_;
  metrics::Registry& registry_;
  LiveExports* live_;
  int threads_;
  metrics::Collector collector_;
  std::unique_ptr<RunOutput> output_;
  std::vector<std::function<void(const metrics::Snapshot&)>> observers_;
  std::function<void()> stop_;
  std::mutex stop_mutex_;
  int interrupts_ = 0;
};

// The generator's figures over merged seconds first..last of `collector` (the whole run
// when last < 0), for a load described as `load` ("300 VUs").
report::GeneratorFigures generator_figures(const metrics::Collector& collector, const metrics::Registry& registry,
                                           std::int64_t first, std::int64_t last, double seconds,
                                           const std::string& load);
// The peak load of a plain run, described for the verdict: "300 VUs", "2,000 iterations/s".
std::string peak_load(const LoadShape& shape, const metrics::Summary& summary, const metrics::Registry& registry);

}  // namespace stampede::cli
