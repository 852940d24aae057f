#include "cli/distributed_run.hpp"

#include <cstdio>
#include <cstdlib>

#ifdef STAMPEDE_HAVE_MPI
#include <boost/asio/io_context.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "cli/dashboard_session.hpp"
#include "cli/live_exports.hpp"
#include "cli/result_files.hpp"
#include "cli/scenario_execution.hpp"
#include "cli/scenario_preflight.hpp"
#include "cli/stopped_before_the_load.hpp"
#include "cli/version.hpp"
#include "distributed/coordinator.hpp"
#include "distributed/launcher.hpp"
#include "distributed/rank_dump.hpp"
#include "distributed/rank_split.hpp"
#include "distributed/rank_worker.hpp"
#include "distributed/run_peers.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/load_plan.hpp"
#include "engine/stop_signals.hpp"
#include "scenario/scenario_error.hpp"
#endif

namespace stampede::cli {

#ifdef STAMPEDE_HAVE_MPI

namespace {

// Under mpirun the workers sleep unless --cpu-policy says otherwise: ranks share the
// machine's cores (often more ranks than cores), and a polling one would take a core.
engine::CpuPolicy rank_cpu_policy(const RunArgs& args) { return args.cpu_policy.value_or(engine::CpuPolicy::normal); }

// Exit status of a run that lost a rank (0 ok, 1 threshold failed, 2 usage or scenario error).
constexpr int kRankLost = 3;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rank 0's run of one scenario: like run_command.cpp's run_one, plus the plan sent to the
// other ranks, a common start, and their seconds merged in (one collector slot per rank).
int coordinate_one(const std::string& path, const RunArgs& args, LiveExports* live, distributed::Coordinator& coord,
                   report::ScenarioResult& result) {
  metrics::Registry registry;
  PreparedScenario s = load_scenario(path, args, registry);
  const LoadShape shape = engine::build_load_shape(s.options, args.overrides, path);
  if (shape.model == LoadModel::Rate && shape.max_vus < coord.ranks()) {
    // Every rank takes its share of the arrivals; one without a VU would drop all of them.
    throw scenario::ScenarioError(fmt::format(
        "{}: max_vus {} is fewer than the {} processes of this run: each needs a VU for its share of the "
        "arrivals; raise max_vus or run fewer processes",
        path, shape.max_vus, coord.ranks()));
  }
  engine::run_setup(s, registry);

  distributed::RankPlan rank_plan;
  rank_plan.file = path;
  rank_plan.source = read_file(path);
  rank_plan.shape = shape;
  rank_plan.setup_data = s.setup_data;
  rank_plan.insecure = s.insecure;
  for (const auto& a : s.local_addresses) rank_plan.local_addresses.push_back(a.to_string());
  const int threads =
      distributed::rank_threads(engine::worker_threads(args.threads, rank_cpu_policy(args)), shape, coord.ranks());
  const distributed::Segments segments = distributed::segments_of(coord.share_plan(rank_plan, threads), 0);

  distributed::CoordinatorPeers peers(coord, registry);
  const RankShare share{threads, 0, segments.total, &peers};
  ScenarioExecution execution(s, args, shape, registry, live, args.quiet, &share);
  int status = execution.summarise(execution.run(), result);
  for (const auto& lost : coord.lost()) result.lost_ranks.push_back({lost.rank, lost.at, lost.why});
  for (const std::string& e : coord.rank_errors()) std::fprintf(stderr, "error: %s\n", e.c_str());
  if (!coord.rank_errors().empty()) status = std::max(status, 2);
  if (!args.cluster.rank_dump.empty()) {
    distributed::write_dump(args.cluster.rank_dump, "rank-0",
                            distributed::summary_dump_json(execution.own_collector().summary(), registry, 0));
    distributed::write_dump(args.cluster.rank_dump, "merged",
                            distributed::summary_dump_json(execution.collector().summary(), registry, 0));
  }
  return status;
}

// Whether mpirun was told not to end the job when a rank dies (--nodes does; a user's
// mpirun takes `--mca orte_abort_on_non_zero_status 0`, and exports it to the ranks).
bool mpirun_keeps_the_job_alive() {
  const char* value = std::getenv("OMPI_MCA_orte_abort_on_non_zero_status");
  return value != nullptr && (std::string_view(value) == "0" || std::string_view(value) == "false");
}

// Rank 0: the whole command, like run_command() for one process.
int coordinate(const RunArgs& args, distributed::World& world) {
  // As in a plain run (run_command.cpp): from here a stop signal is noted, never the default
  // action, and before the load it keeps the load from starting (engine/stop_signals.hpp).
  engine::note_stop_signals();
  if (!args.quiet && !mpirun_keeps_the_job_alive())
    std::fprintf(stderr,
                 "note: this mpirun ends the whole job if a rank dies (OpenMPI's default), before rank 0 can name it; "
                 "--out and --html are rewritten after every merged second, so what was measured up to then is kept either way. Add --mca "
                 "orte_abort_on_non_zero_status 0 to mpirun (or run with --nodes) for rank 0 to report the lost rank "
                 "and finish the run.\n");
  if (args.find_limit.enabled() || (args.parallel && args.files.size() > 1)) {
    std::fprintf(stderr, "error: --find-limit and --parallel do not run over several processes yet; "
                         "run them without mpirun\n");
    world.abort(2);
  }
  if (args.files.size() > 1 && !all_scenarios_load(args)) world.abort(2);
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
    world.abort(2);
  }
  report::RunResult run;
  run.tool = {"stampede", version_number(), version_commit()};
  int status = 0;
  std::vector<std::string> not_started;  // a stop signal came before their load started
  distributed::Coordinator coord(world, args.cluster.rank_timeout);
  for (const auto& file : args.files) {
    try {
      report::ScenarioResult result;
      status = std::max(status, coordinate_one(file, args, live.get(), coord, result));
      run.results.push_back(std::move(result));
      live->checkpoint().scenario_finished(run.results.back());
      if (dashboard) dashboard->scenario_finished(run);
      if (run.results.back().interrupts > 0 || !coord.lost().empty()) break;
    } catch (const engine::StoppedBeforeTheLoad&) {  // the other ranks were told that nothing runs
      not_started.push_back(file);
      break;
    } catch (const std::runtime_error& e) {  // scenario::ScenarioError, or a rank that could not load it
      std::fprintf(stderr, "error: %s\n", e.what());
      status = 2;
      break;
    }
  }
  status = std::max(status, say_stopped_before_the_load(not_started, !run.results.empty()));
  live->checkpoint().stop();  // none may replace the final files
  if (!run.results.empty() && !write_result_files(args.outputs, run)) status = 2;
  if (!coord.lost().empty()) {
    for (const auto& lost : coord.lost()) {
      if (lost.before_run) continue;  // the exchange that found it already said so
      std::fprintf(stderr, "error: rank %d was lost %.1f s into the run (%s); the results hold what was measured until then\n",
                   lost.rank, static_cast<double>(lost.at) / kSecond, lost.why.c_str());
    }
    std::fflush(stderr);
    distributed::tell_launcher(kRankLost);
    // A collective with a dead rank may never return: end the job here, every rank.
    world.abort(kRankLost);
  }
  // The other ranks wait (on rank 0's beats) while the final results are served.
  if (dashboard && !run.results.empty() && run.results.back().interrupts < 2)
    serve_final_results(args.dashboard, *dashboard);
  // mpirun run with orte_abort_on_non_zero_status 0 (so that a dead rank does not take
  // the others down) exits 0 whatever a rank returned; MPI_Abort's code is what it passes on.
  // Without it mpirun passes on rank 0's exit status itself: a failed threshold (every rank
  // done and released) then exits 1 without OpenMPI's "MPI_ABORT was invoked" banner.
  const bool ends_by_abort = status > 1 || (status == 1 && mpirun_keeps_the_job_alive());
  coord.release(ends_by_abort ? status : 0);
  distributed::tell_launcher(status);
  if (ends_by_abort) {
    std::fflush(stdout);
    std::fflush(stderr);
    world.end_with(status);
  }
  return status;
}

int launch(const RunArgs& args) {
  distributed::LaunchRequest request;
  request.argv = args.cluster.argv;
  request.nodes = args.cluster.nodes;
  request.procs_per_node = args.cluster.procs_per_node;
  std::error_code ec;
  request.self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) request.self = args.cluster.argv.empty() ? "stampede" : args.cluster.argv[0];
  request.as_root = geteuid() == 0;
  request.status_file = (std::filesystem::temp_directory_path() / fmt::format("stampede-status-{}", getpid())).string();
  try {
    const int mpirun_status = distributed::run_mpirun(distributed::mpirun_command(request));
    // Rank 0's own status when it got to say it (a killed rank makes mpirun's 137).
    return distributed::status_told(request.status_file).value_or(mpirun_status);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

}  // namespace

std::optional<int> run_distributed_if_asked(const RunArgs& args) {
  const int world_size = distributed::launched_world_size();
  if (world_size <= 1) {
    if (args.cluster.nodes.empty()) return std::nullopt;
    return launch(args);
  }
  if (!args.cluster.nodes.empty()) {
    std::fprintf(stderr, "error: --nodes starts mpirun itself; this process was already started by an MPI launcher\n");
    return 2;
  }
  try {
    distributed::World world;
    // Bounds every wait from here on, the checks of a multi-file run's scenarios included
    // (docs/design/026); the Coordinator would start the beats only later.
    world.bound_waits(args.cluster.rank_timeout);
    if (world.rank() == 0) return coordinate(args, world);
    return distributed::serve_rank(world, {args.threads, args.cluster.rank_dump, rank_cpu_policy(args)});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}

#else  // built without MPI

std::optional<int> run_distributed_if_asked(const RunArgs& args) {
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr && std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")) > 1;
  if (args.cluster.nodes.empty() && !launched) return std::nullopt;
  std::fprintf(stderr, "error: this stampede was built without MPI: install libopenmpi-dev, re-run cmake and rebuild "
                       "to spread a run over several processes\n");
  return 2;
}

#endif

}  // namespace stampede::cli
