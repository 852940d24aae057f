#include "cli/scenario_execution.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>

#include <sched.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/summary_lock.hpp"
#include "cli/version.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/generator_monitor.hpp"
#include "metrics/generator_health.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "report/find_limit_table.hpp"
#include "transport/this_machine.hpp"

namespace stampede::cli {

engine::ScenarioOverrides scenario_overrides(const RunArgs& args) { return {args.insecure, args.local_addresses}; }

PreparedScenario load_scenario(const std::string& path, const RunArgs& args, metrics::Registry& registry) {
  PreparedScenario scenario = engine::load_scenario(path, scenario_overrides(args), registry);
  // What this run scrapes, the command line over the scenario: checked here, before setup().
  scenario.options.server_metrics = server_metrics_for(args.server_metrics, scenario.options.server_metrics, path);
  return scenario;
}

std::string local_host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The cores this process may run on (taskset and cgroups' cpusets narrow them).
unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

// Where the scenario's targets are, from the URLs in its text and in the environment
// variables it reads: on this machine when any of them is.
engine::MachineView machine_for(const PreparedScenario& scenario) {
  engine::MachineView m;
  m.cores = usable_cores();
  std::string text = read_text(scenario.path);
  for (const std::string& name : engine::getenv_names(text))
    if (const char* value = std::getenv(name.c_str())) text += std::string("\n") + value;
  bool elsewhere = false;
  for (const std::string& host : engine::url_hosts(text)) {
    const std::optional<bool> here = transport::is_this_machine(host);
    if (here.value_or(false)) {
      m.target = engine::TargetPlace::this_machine;
      m.target_name = host;
      return m;
    }
    if (here && !elsewhere) {
      elsewhere = true;
      m.target_name = host;
    }
  }
  m.target = elsewhere ? engine::TargetPlace::elsewhere : engine::TargetPlace::unknown;
  return m;
}

}  // namespace

engine::GeneratorSetup generator_setup_for(const PreparedScenario& scenario, const RunArgs& args, const LoadShape& shape) {
  engine::GeneratorSetup setup = engine::choose_generator_setup(args.threads, args.cpu_policy, machine_for(scenario));
  long long most = shape.model == LoadModel::Rate ? shape.max_vus : static_cast<long long>(shape.start);
  for (const Stage& st : shape.stages)
    if (shape.model == LoadModel::Vus) most = std::max(most, static_cast<long long>(st.target));
  setup.threads = static_cast<int>(std::max<long long>(1, std::min<long long>(setup.threads, most)));
  return setup;
}

namespace {

// Rank 0 of several runs its share of the threads, sleeping unless --cpu-policy says
// otherwise (distributed_run.cpp: ranks share the cores).
engine::GeneratorSetup setup_for(const PreparedScenario& scenario, const RunArgs& args, const LoadShape& shape,
                                 const RankShare* share) {
  if (share == nullptr) return generator_setup_for(scenario, args, shape);
  return {share->threads, args.cpu_policy.value_or(engine::CpuPolicy::normal),
          "under mpirun: its share of the run's threads"};
}

engine::RunPlan plan_for(const PreparedScenario& scenario, const engine::GeneratorSetup& setup, const LoadShape& shape,
                         const RankShare* share) {
  if (share != nullptr)
    return engine::run_plan_for(scenario, shape, setup.threads, setup.policy, share->first_segment,
                                share->total_segments);
  return engine::run_plan_for(scenario, shape, setup.threads, setup.policy);
}

engine::Run::Options run_options_for(const PreparedScenario& scenario) {
  engine::Run::Options options;
  options.server_metrics = scenario.options.server_metrics;  // this process is the one that scrapes
  return options;
}

// "1 worker, polling (2 cores, the target ... on this machine: ...)" for the generator line;
// an adaptive worker says how long it polled: "1 worker, adaptive (polled 4.2 s when busy;
// 2 cores, ...)".
std::string describe(const engine::GeneratorSetup& setup, int threads, Nanos polled) {
  const char* how = setup.policy == engine::CpuPolicy::poll       ? "polling"
                    : setup.policy == engine::CpuPolicy::batch    ? "under SCHED_BATCH"
                    : setup.policy == engine::CpuPolicy::adaptive ? "adaptive"
                                                                  : "sleeping";
  std::string why = setup.why;
  if (setup.policy == engine::CpuPolicy::adaptive) {
    why = (polled > 0 ? fmt::format("polled {:.1f} s when busy", static_cast<double>(polled) / kSecond)
                      : std::string("never busy enough to poll")) +
          "; " + why;
  }
  return fmt::format("{} worker{}, {} ({})", threads, threads == 1 ? "" : "s", how, why);
}

}  // namespace

ScenarioExecution::ScenarioExecution(const PreparedScenario& scenario, const RunArgs& args, LoadShape shape,
                                     metrics::Registry& registry, LiveExports* live, bool quiet, const RankShare* share)
    : scenario_(scenario),
      setup_(setup_for(scenario, args, shape, share)),
      registry_(registry),
      live_(live),
      run_(plan_for(scenario, setup_, shape, share), registry, this, share != nullptr ? share->peers : nullptr,
           run_options_for(scenario)) {
  report::ScenarioResult header;
  header.scenario = scenario.name;
  header.file = scenario.path;
  header.options = {shape, scenario.thresholds};
  header.host = local_host_name();
  header.threads = share != nullptr ? share->total_segments : run_.threads();
  header.cpu_policy = engine::cpu_policy_name(setup_.policy);
  header.ranks = share != nullptr && share->peers != nullptr ? share->peers->ranks() : 1;
  output_ = std::make_unique<RunOutput>(std::move(header), quiet, registry_, run_.collector(), live_);
  output_->list_every_metric(args.summary_all);
}

ScenarioExecution::~ScenarioExecution() = default;

void ScenarioExecution::started(Nanos t0) {
  output_->started(t0);
  if (live_ != nullptr && live_->dashboard() != nullptr)
    live_->dashboard()->scenario_started({"stampede", version_number(), version_commit()}, output_->result());
}

void ScenarioExecution::second(const metrics::Snapshot& merged_second) { output_->on_second(merged_second); }

void ScenarioExecution::interrupted(int n, Nanos graceful_stop, int signal) {
  // mpirun ends a job whose rank died with SIGTERM, then SIGKILL within milliseconds to a
  // second: the results files are written now, in case that is long enough.
  if (signal == SIGTERM && live_ != nullptr)
    live_->checkpoint().write_now(fmt::format(
        "the process was sent SIGTERM {:.1f} s into the run and did not finish writing its results (under "
        "mpirun without --mca orte_abort_on_non_zero_status 0, that is how OpenMPI ends the whole job when a "
        "rank dies)",
        static_cast<double>(output_->elapsed()) / kSecond));
  output_->interrupted(n, graceful_stop);
}

void ScenarioExecution::warn(const std::string& message) { output_->warn(message); }

void ScenarioExecution::urgent(const std::string& why) {
  if (live_ != nullptr) live_->checkpoint().write_now(why);
}

int ScenarioExecution::summarise(Nanos lasted, report::ScenarioResult& result) {
  // A second Ctrl-C asked to stop at once: teardown() is skipped, as it would be if the
  // user pressed Ctrl-C a third time while it ran.
  if (run_.interrupts() >= 2 && scenario_.has_teardown)
    output_->warn(fmt::format("{}: teardown() skipped: the run was stopped at once (second Ctrl-C)", scenario_.path));
  else if (std::string failed = engine::run_teardown(scenario_, registry_); !failed.empty())
    output_->warn(failed);
  std::lock_guard summary(summary_lock());
  const int status = output_->finish(lasted, scenario_.thresholds, run_.server_exposed_names());
  result = output_->result();
  // The merged figures: under mpirun every rank's loop delay, lag and drops count (the
  // generator gauges merge as the busiest rank's), not rank 0's alone.
  result.generator = generator_figures(collector(), registry_, 0, -1,
                                       std::max(1e-9, static_cast<double>(lasted) / kSecond),
                                       peak_load(run_.plan().shape, collector().summary(), registry_));
  result.generator->setup = setup_description();
  std::fputs(report::render_generator_line(*result.generator, workers_may_poll()).c_str(), stdout);
  std::fflush(stdout);
  return status;
}

std::string ScenarioExecution::setup_description() const {
  return describe(setup_, run_.threads(), run_.longest_polled());
}

report::GeneratorFigures generator_figures(const metrics::Collector& collector, const metrics::Registry& registry,
                                           std::int64_t first, std::int64_t last, double seconds,
                                           const std::string& load) {
  const metrics::Summary window = last < 0 ? collector.summary() : collector.summary_window(first, last);
  const auto h = metrics::assess_generator(metrics::make_metric_table(window, registry), seconds,
                                           engine::GeneratorMonitor::fd_limit(), load);
  report::GeneratorFigures g;
  g.cpu_mean = h.cpu_mean;
  g.cpu_peak = h.cpu_peak;
  g.loop_delay_p99 = h.loop_delay_p99;
  g.loop_delay_max = h.loop_delay_max;
  g.lag_p99 = h.lag_p99;
  g.dropped = h.dropped;
  g.fds_peak = h.fds_peak;
  g.fds_limit = h.fds_limit;
  g.cpu_wait = h.cpu_wait;
  g.bottleneck = h.bottleneck;
  g.verdict = h.verdict;
  return g;
}

std::string peak_load(const LoadShape& shape, const metrics::Summary& summary, const metrics::Registry& registry) {
  if (shape.model == LoadModel::Rate) {
    double peak = shape.start;
    for (const Stage& s : shape.stages) peak = std::max(peak, s.target);
    return report::format_load(peak, true);
  }
  const auto table = metrics::make_metric_table(summary, registry);
  const metrics::NamedMetric* vus = metrics::find_metric(table, metrics::names::kVus);
  return report::format_load(vus != nullptr && vus->data.present ? vus->data.gauge_max : 0, false);
}

}  // namespace stampede::cli
