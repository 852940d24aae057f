// `stampede run`: load each scenario, run it, print its summary, judge its thresholds.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/dashboard_session.hpp"
#include "cli/distributed_run.hpp"
#include "cli/live_exports.hpp"
#include "cli/result_files.hpp"
#include "cli/run_args.hpp"
#include "cli/find_limit_command.hpp"
#include "cli/parallel_runs.hpp"
#include "cli/scenario_execution.hpp"
#include "cli/scenario_preflight.hpp"
#include "cli/stopped_before_the_load.hpp"
#include "cli/version.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/load_plan.hpp"
#include "engine/stop_signals.hpp"
#include "scenario/scenario_error.hpp"

namespace stampede::cli {

namespace {

// Runs one scenario file; `result` receives what it measured (when it got to run).
int run_one(const std::string& path, const RunArgs& args, LiveExports* live, report::ScenarioResult& result) {
  metrics::Registry registry;
  PreparedScenario scenario = load_scenario(path, args, registry);
  // The load is checked before setup() runs: a bad duration must not cost a setup.
  const LoadShape shape = engine::build_load_shape(scenario.options, args.overrides, path);
  engine::run_setup(scenario, registry);

  ScenarioExecution execution(scenario, args, shape, registry, live, args.quiet);
  return execution.summarise(execution.run(), result);
}

}  // namespace

int run_command(const RunArgs& args) {
  // Under mpirun (or --nodes): rank 0 coordinates, the other ranks serve (cli/distributed_run.hpp).
  if (const std::optional<int> status = run_distributed_if_asked(args)) return *status;
  // From here a Ctrl-C, SIGTERM or SIGUSR1 never ends the process by its default action: the
  // engine notes it, and before a load has started no load starts (engine/stop_signals.hpp).
  engine::note_stop_signals();
  if (args.parallel && args.files.size() > 1 && args.dashboard.enabled) {
    std::fprintf(stderr, "error: the dashboard follows one scenario at a time; with --parallel use --out-stream or "
                         "--prometheus to watch the run, and --html for the report\n");
    return 2;
  }
  if (args.files.size() > 1 && !all_scenarios_load(args)) return 2;
  if (const std::string why = args.cpu_policy ? engine::cpu_policy_unavailable(*args.cpu_policy) : std::string();
      !why.empty()) {
    std::fprintf(stderr, "error: --cpu-policy %s: the kernel refused it (%s); run without it\n",
                 std::string(engine::cpu_policy_name(*args.cpu_policy)).c_str(), why.c_str());
    return 2;
  }
  std::unique_ptr<dashboard::LiveDashboard> dashboard;
  std::unique_ptr<LiveExports> live;
  try {
    live = std::make_unique<LiveExports>(args.outputs);
    if (args.dashboard.enabled) {
      dashboard = open_dashboard(args.dashboard);
      live->set_dashboard(dashboard.get());
    }
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  report::RunResult run;
  run.tool = {"stampede", version_number(), version_commit()};
  int status = 0;
  std::vector<std::string> not_started;  // a stop signal came before their load started
  // One scenario file: a plain run, or a search for its limit (--find-limit). With
  // --parallel the progress lines of several scenarios would overwrite each other: none.
  RunArgs file_args = args;
  if (args.parallel && args.files.size() > 1) file_args.quiet = true;
  const auto run_file = [&](const std::string& file, report::ScenarioResult& result) {
    return args.find_limit.enabled() ? find_limit_one(file, file_args, live.get(), result)
                                     : run_one(file, file_args, live.get(), result);
  };
  if (args.parallel && args.files.size() > 1) {
    status = run_in_parallel(args.files, run_file, run.results, not_started);
    for (const report::ScenarioResult& result : run.results) live->checkpoint().scenario_finished(result);
    if (dashboard && !run.results.empty()) dashboard->scenario_finished(run);
  }
  for (const auto& file : args.files) {
    if (args.parallel && args.files.size() > 1) break;  // all ran above
    try {
      report::ScenarioResult result;
      status = std::max(status, run_file(file, result));
      run.results.push_back(std::move(result));
      live->checkpoint().scenario_finished(run.results.back());
      if (dashboard) dashboard->scenario_finished(run);
      // Ctrl-C stops the whole command, not just the scenario that was running.
      if (run.results.back().interrupts > 0) break;
    } catch (const engine::StoppedBeforeTheLoad&) {
      not_started.push_back(file);  // and the files after it are not run either
      break;
    } catch (const scenario::ScenarioError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      status = 2;
      break;
    }
  }
  status = std::max(status, say_stopped_before_the_load(not_started, !run.results.empty()));
  // What was measured is written whatever ended the run; a file that cannot be written
  // is an error of its own (the summary is already on stdout). The checkpoints stop
  // first: none may replace the final files.
  live->checkpoint().stop();
  if (!run.results.empty() && !write_result_files(args.outputs, run)) status = 2;
  // A second Ctrl-C means "stop now", lingering included.
  if (dashboard && !run.results.empty() && run.results.back().interrupts < 2)
    serve_final_results(args.dashboard, *dashboard);
  return status;
}

}  // namespace stampede::cli
