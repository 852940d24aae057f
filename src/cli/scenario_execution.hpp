#pragma once
// One run of a scenario file's load, with everything a run has around it: the worker
// threads, the Collector, the generator monitor, the progress line (RunOutput) and Ctrl-C.
// A plain `stampede run` runs through it, and so do find-limit's staircase, each --refine
// probe and rank 0 of a distributed run; an observer sees every merged second and may end
// the load early.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/live_exports.hpp"
#include "cli/run_args.hpp"
#include "cli/run_output.hpp"
#include "common/load_shape.hpp"
#include "engine/measured_run.hpp"
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

// What a run on several processes adds, seen from rank 0 (cli/distributed_run.cpp keeps
// MPI behind it): the other ranks start with this one and stop with it, their seconds
// are merged with its own, and the run waits for their last ones.
class OtherRanks {
 public:
  virtual ~OtherRanks() = default;
  // Every rank of the run, this one included.
  virtual int ranks() const = 0;
  // The common start, once every rank has loaded the scenario (`loaded_here`: this one
  // has). Throws std::runtime_error naming the ranks that could not load it.
  virtual Nanos agree_start(bool loaded_here) = 0;
  // While `io` runs: their seconds into slots 1.. of `merged`; `lost` gets the warning
  // when one stops reporting (the run is then stopped, everywhere).
  virtual void watch(boost::asio::io_context& io, metrics::Collector& merged, Nanos t0,
                     std::function<void(const std::string&)> lost) = 0;
  virtual void stop(bool graceful) = 0;
  // After this process's load has ended: runs `io` until every rank has reported its end.
  virtual void wait(boost::asio::io_context& io) = 0;
};

// This process's share when it is rank 0 of several: its worker threads, their segments
// of the run's (distributed/rank_split.hpp), and the other ranks.
struct RankShare {
  int threads = 1;
  int first_segment = 0;
  int total_segments = 0;
  OtherRanks* others = nullptr;
};

class ScenarioExecution {
 public:
  // `share`: set on rank 0 of a distributed run; null for one process.
  ScenarioExecution(const PreparedScenario& scenario, const RunArgs& args, LoadShape shape, metrics::Registry& registry,
                    LiveExports* live, bool quiet, const RankShare* share = nullptr);
  ~ScenarioExecution();

  // Sees each merged second (on a worker's thread or the main thread, one at a time).
  void observe(std::function<void(const metrics::Snapshot&)> observer);
  // Runs the load to its end, stop(), or Ctrl-C; returns how long it lasted. Throws
  // scenario::ScenarioError when the scenario does not load (or, with other ranks,
  // std::runtime_error when one of them could not).
  Nanos run();
  // Thread-safe: ends the load at once.
  void stop();
  // After run(): teardown(), then the summary and threshold verdicts and the generator's
  // line on stdout; `result` receives what was measured. Returns the exit status.
  int summarise(Nanos lasted, report::ScenarioResult& result);

  RunOutput& output() { return *output_; }
  // The run's seconds: this process's, merged with the other ranks' when there are some.
  metrics::Collector& collector() { return merged_ ? *merged_ : measured_.collector(); }
  // This process's own seconds: the generator's health is judged on one process, since
  // its gauges (busiest thread, open files) compare with one process's limits.
  metrics::Collector& own_collector() { return measured_.collector(); }
  int interrupts() const { return interrupts_; }

 private:
  const PreparedScenario& scenario_;
  LoadShape shape_;
  metrics::Registry& registry_;
  LiveExports* live_;
  OtherRanks* others_;
  std::unique_ptr<metrics::Collector> merged_;  // with other ranks: slot r is rank r
  std::unique_ptr<RunOutput> output_;
  std::vector<std::function<void(const metrics::Snapshot&)>> observers_;
  bool running_ = false;
  std::mutex stop_mutex_;
  int interrupts_ = 0;
  // Declared last, so destroyed first: its worker threads are joined while what their
  // seconds reach (merged_, output_, the observers) still exists.
  engine::MeasuredRun measured_;
};

// The generator's figures over merged seconds first..last of `collector` (the whole run
// when last < 0), for a load described as `load` ("300 VUs").
report::GeneratorFigures generator_figures(const metrics::Collector& collector, const metrics::Registry& registry,
                                           std::int64_t first, std::int64_t last, double seconds,
                                           const std::string& load);
// The peak load of a plain run, described for the verdict: "300 VUs", "2,000 iterations/s".
std::string peak_load(const LoadShape& shape, const metrics::Summary& summary, const metrics::Registry& registry);

}  // namespace stampede::cli
