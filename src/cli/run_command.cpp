// `stampede run`: load each scenario, run it, print its summary, judge its thresholds.
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "cli/dashboard_session.hpp"
#include "cli/distributed_run.hpp"
#include "cli/live_exports.hpp"
#include "cli/result_files.hpp"
#include "cli/run_args.hpp"
#include "cli/run_output.hpp"
#include "cli/version.hpp"
#include "clients/client_context.hpp"
#include "common/address_list.hpp"
#include "cli/find_limit_command.hpp"
#include "cli/parallel_runs.hpp"
#include "cli/scenario_execution.hpp"
#include "cli/summary_lock.hpp"
#include "engine/generator_monitor.hpp"
#include "engine/scenario_run.hpp"
#include "report/find_limit_table.hpp"
#include "metrics/collector.hpp"
#include "metrics/names.hpp"
#include "scenario/scenario_error.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::cli {

namespace {

// What the scenario file says, read once on the main thread before any worker starts.
struct LoadedScenario {
  std::string name;
  scenario::ScenarioOptions options;
  bool has_setup = false;
  bool has_teardown = false;
};

// Runs setup() or teardown() to completion on a private event loop.
std::pair<bool, std::string> run_lifecycle(const std::string& path, const char* fn, const std::string& arg,
                                           metrics::Registry& registry, bool insecure) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  scenario::RuntimeEnv env{path, clock.now(), "", insecure};
  scenario::ScenarioRuntime rt(ctx, env);
  std::pair<bool, std::string> result{false, "did not finish"};
  bool done = false;
  rt.call_lifecycle(fn, arg, [&](bool ok, std::string value) {
    result = {ok, std::move(value)};
    done = true;
  });
  while (!done && io.run_one() > 0) {
  }
  return result;
}

LoadedScenario probe(const std::string& path, metrics::Registry& registry) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", false});
  LoadedScenario s;
  s.name = rt.name();
  s.options = rt.options(path + ": options");
  s.has_setup = rt.has_function("setup");
  s.has_teardown = rt.has_function("teardown");
  return s;
}

int threads_for(const RunArgs& args, const LoadShape& shape) {
  int threads = args.threads > 0 ? args.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // No point in a worker that could never hold a VU.
  long long most = shape.model == LoadModel::Rate ? shape.max_vus : static_cast<long long>(shape.start);
  for (const Stage& st : shape.stages)
    if (shape.model == LoadModel::Vus) most = std::max(most, static_cast<long long>(st.target));
  return static_cast<int>(std::max<long long>(1, std::min<long long>(threads, most)));
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// Runs one scenario file; `result` receives what it measured (when it got to run).
int run_one(const std::string& path, const RunArgs& args, LiveExports* live, report::ScenarioResult& result) {
  metrics::Registry registry;
  LoadedScenario loaded = probe(path, registry);
  const LoadShape shape = engine::build_load_shape(loaded.options, args.overrides, path);
  const bool insecure = args.insecure || loaded.options.insecure;

  std::vector<boost::asio::ip::address> local_addresses;
  try {
    local_addresses = args.local_addresses.empty() ? parse_address_list(loaded.options.local_addresses)
                                                   : parse_address_list(args.local_addresses);
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError(fmt::format("local addresses: {}", e.what()));
  }

  std::vector<metrics::ThresholdSpec> thresholds;
  for (const auto& t : loaded.options.thresholds) thresholds.push_back({t.metric, t.aggregation, t.limit, path});

  std::string setup_data;
  if (loaded.has_setup) {
    auto [ok, value] = run_lifecycle(path, "setup", "", registry, insecure);
    if (!ok) throw scenario::ScenarioError(fmt::format("setup() failed: {}", value));
    setup_data = value;
  }

  engine::RunPlan plan;
  plan.shape = shape;
  plan.threads = threads_for(args, shape);
  plan.env = scenario::RuntimeEnv{path, 0, setup_data, insecure};
  plan.local_addresses = local_addresses;

  report::ScenarioResult header;
  header.scenario = loaded.name;
  header.file = path;
  header.options = {shape, thresholds};
  header.host = host_name();
  header.threads = plan.threads;
  header.ranks = 1;

  metrics::Collector collector(static_cast<std::size_t>(plan.threads) + 1);  // + the generator monitor
  RunOutput output(std::move(header), args.quiet, registry, collector, live);
  collector.subscribe([&output](const metrics::Snapshot& second) { output.on_second(second); });

  boost::asio::io_context main_io;
  engine::ScenarioRun run(plan, registry, [&collector](int worker, metrics::Snapshot snap, bool last) {
    collector.push(static_cast<std::size_t>(worker), std::move(snap));
    if (last) collector.finish(static_cast<std::size_t>(worker));
  });
  run.on_finished = [&main_io] { boost::asio::post(main_io, [&main_io] { main_io.stop(); }); };
  run.load();
  const auto monitor_index = static_cast<std::size_t>(plan.threads);
  engine::GeneratorMonitor monitor(main_io, registry, run.thread_cpu_clocks(),
                                   [&collector, monitor_index](metrics::Snapshot snap, bool last) {
                                     collector.push(monitor_index, std::move(snap));
                                     if (last) collector.finish(monitor_index);
                                   });

  // First Ctrl-C: stop starting iterations and let running ones finish (graceful_stop).
  // Second: stop at once. Either way the summary is printed.
  boost::asio::signal_set signals(main_io, SIGINT, SIGTERM);
  int interrupts = 0;
  std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec, int) {
    if (ec) return;
    ++interrupts;
    output.interrupted(interrupts);
    run.stop(interrupts == 1 && shape.graceful_stop > 0);
    signals.async_wait(on_signal);
  };
  signals.async_wait(on_signal);

  // Every worker starts at the same instant, a moment from now.
  const Nanos t0 = SteadyClock::monotonic_now() + 20 * kMilli;
  output.started(t0);
  if (live != nullptr && live->dashboard() != nullptr)
    live->dashboard()->scenario_started({"stampede", version_number(), version_commit()}, output.result());
  run.start(t0);
  monitor.start(t0);
  main_io.run();
  monitor.finish();
  run.join();
  const Nanos ended = SteadyClock::monotonic_now();
  collector.flush();

  if (loaded.has_teardown) {
    auto [ok, value] = run_lifecycle(path, "teardown", setup_data, registry, insecure);
    if (!ok) output.warn(fmt::format("teardown() failed: {}", value));
  }
  std::lock_guard summary(summary_lock());
  const int status = output.finish(ended - t0, thresholds);
  result = output.result();
  result.generator = generator_figures(collector, registry, 0, -1, std::max(1e-9, static_cast<double>(ended - t0) / kSecond),
                                       peak_load(shape, collector.summary(), registry));
  std::fputs(report::render_generator_line(*result.generator).c_str(), stdout);
  std::fflush(stdout);
  return status;
}

}  // namespace

int run_command(const RunArgs& args) {
  // Under mpirun (or --nodes): rank 0 coordinates, the other ranks serve (cli/distributed_run.hpp).
  if (const std::optional<int> status = run_distributed_if_asked(args)) return *status;
  if (args.parallel && args.files.size() > 1 && args.dashboard.enabled) {
    std::fprintf(stderr, "error: the dashboard follows one scenario at a time; with --parallel use --out-stream or "
                         "--prometheus to watch the run, and --html for the report\n");
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
  // One scenario file: a plain run, or a search for its limit (--find-limit). With
  // --parallel the progress lines of several scenarios would overwrite each other: none.
  RunArgs file_args = args;
  if (args.parallel && args.files.size() > 1) file_args.quiet = true;
  const auto run_file = [&](const std::string& file, report::ScenarioResult& result) {
    return args.find_limit.enabled() ? find_limit_one(file, file_args, live.get(), result)
                                     : run_one(file, file_args, live.get(), result);
  };
  if (args.parallel && args.files.size() > 1) {
    status = run_in_parallel(args.files, run_file, run.results);
    if (dashboard && !run.results.empty()) dashboard->scenario_finished(run);
  }
  for (const auto& file : args.files) {
    if (args.parallel && args.files.size() > 1) break;  // all ran above
    try {
      report::ScenarioResult result;
      status = std::max(status, run_file(file, result));
      run.results.push_back(std::move(result));
      if (dashboard) dashboard->scenario_finished(run);
      // Ctrl-C stops the whole command, not just the scenario that was running.
      if (run.results.back().interrupts > 0) break;
    } catch (const scenario::ScenarioError& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      status = 2;
      break;
    }
  }
  // What was measured is written whatever ended the run; a file that cannot be written
  // is an error of its own (the summary is already on stdout).
  if (!run.results.empty() && !write_result_files(args.outputs, run)) status = 2;
  // A second Ctrl-C means "stop now", lingering included.
  if (dashboard && !run.results.empty() && run.results.back().interrupts < 2)
    serve_final_results(args.dashboard, *dashboard);
  return status;
}

}  // namespace stampede::cli
