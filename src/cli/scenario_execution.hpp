#pragma once
// A run of a scenario as `stampede run` shows it: an engine::Run (workers, collector,
// monitor, signals, other ranks) followed by a RunOutput (the progress line, the live
// exports, the summary), then teardown() and the summary and verdicts. A plain run, each of
// find-limit's runs and probes, each of --parallel's scenarios and rank 0 of a distributed
// run; an observer sees every merged second and may end the load early.
#include <functional>
#include <memory>
#include <string>

#include "cli/live_exports.hpp"
#include "cli/run_args.hpp"
#include "cli/run_output.hpp"
#include "common/load_shape.hpp"
#include "engine/generator_setup.hpp"
#include "engine/prepared_scenario.hpp"
#include "engine/run.hpp"
#include "metrics/collector.hpp"
#include "report/find_limit_result.hpp"

namespace stampede::cli {

using engine::PreparedScenario;

// What the command line overrides of a scenario's own options.
engine::ScenarioOverrides scenario_overrides(const RunArgs& args);
// Loads the file with the command line's overrides (throws scenario::ScenarioError); its
// options.server_metrics become what the run scrapes (cli/server_metrics_args.hpp).
PreparedScenario load_scenario(const std::string& path, const RunArgs& args, metrics::Registry& registry);

std::string local_host_name();
// The worker threads and CPU policy a load of `scenario` runs on: as --threads and
// --cpu-policy ask, or chosen for this machine and the scenario's targets
// (engine/generator_setup.hpp); never more threads than the load's most VUs.
engine::GeneratorSetup generator_setup_for(const PreparedScenario& scenario, const RunArgs& args, const LoadShape& shape);

// This process's share when it is rank 0 of several: its worker threads, their segments of
// the run's (distributed/rank_split.hpp), and the other ranks.
struct RankShare {
  int threads = 1;
  int first_segment = 0;
  int total_segments = 0;
  engine::RunPeers* peers = nullptr;
};

class ScenarioExecution final : private engine::RunListener {
 public:
  // `share`: set on rank 0 of a distributed run; null for one process.
  ScenarioExecution(const PreparedScenario& scenario, const RunArgs& args, LoadShape shape, metrics::Registry& registry,
                    LiveExports* live, bool quiet, const RankShare* share = nullptr);
  ~ScenarioExecution() override;

  // Sees each merged second (on a worker's thread or the main thread, one at a time).
  void observe(std::function<void(const metrics::Snapshot&)> observer) { run_.observe(std::move(observer)); }
  // Runs the load to its end, stop(), or Ctrl-C; returns how long it lasted (engine::Run::run:
  // throws engine::StoppedBeforeTheLoad when a Ctrl-C came before the load started).
  Nanos run() { return run_.run(); }
  // Thread-safe: ends the load at once.
  void stop() { run_.stop(); }
  // After run(): teardown(), then the summary and threshold verdicts and the generator's
  // line on stdout; `result` receives what was measured. Returns the exit status.
  int summarise(Nanos lasted, report::ScenarioResult& result);

  RunOutput& output() { return *output_; }
  metrics::Collector& collector() { return run_.collector(); }
  metrics::Collector& own_collector() { return run_.own_collector(); }
  int interrupts() const { return run_.interrupts(); }
  // What the server-metrics endpoints exposed (engine::Run::server_exposed_names).
  std::vector<std::string> server_exposed_names() const { return run_.server_exposed_names(); }
  // What the load ran on and why, for the generator line: "1 worker, polling (2 cores, ...)".
  std::string setup_description() const;
  // Whether its workers may poll (their CPU figure then leaves the empty polls out).
  bool workers_may_poll() const { return engine::may_poll(setup_.policy); }

 private:
  // engine::RunListener: the run's events, to the output and the live exports.
  void started(Nanos t0) override;
  void second(const metrics::Snapshot& merged_second) override;
  void interrupted(int n, Nanos graceful_stop, int signal) override;
  void warn(const std::string& message) override;
  void urgent(const std::string& why) override;

  const PreparedScenario& scenario_;
  engine::GeneratorSetup setup_;
  metrics::Registry& registry_;
  LiveExports* live_;
  std::unique_ptr<RunOutput> output_;
  // Declared last, so destroyed first: its workers are joined while the output exists.
  engine::Run run_;
};

// The generator's figures over merged seconds first..last of `collector` (the whole run
// when last < 0), for a load described as `load` ("300 VUs").
report::GeneratorFigures generator_figures(const metrics::Collector& collector, const metrics::Registry& registry,
                                           std::int64_t first, std::int64_t last, double seconds,
                                           const std::string& load);
// The peak load of a plain run, described for the verdict: "300 VUs", "2,000 iterations/s".
std::string peak_load(const LoadShape& shape, const metrics::Summary& summary, const metrics::Registry& registry);

}  // namespace stampede::cli
