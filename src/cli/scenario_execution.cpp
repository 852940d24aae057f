#include "cli/scenario_execution.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <optional>
#include <cstdio>
#include <stdexcept>

#include "cli/summary_lock.hpp"
#include "cli/version.hpp"
#include "clients/client_context.hpp"
#include "common/address_list.hpp"
#include "engine/cpu_policy.hpp"
#include "engine/generator_monitor.hpp"
#include "metrics/generator_health.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/names.hpp"
#include "report/find_limit_table.hpp"
#include "scenario/scenario_error.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::cli {

namespace {

// SIGUSR1 is a Ctrl-C too: OpenMPI's mpirun passes SIGUSR1 on to every rank, while a
// Ctrl-C (SIGINT) to mpirun kills the whole job. Its default action ends the process, so
// from the scenario's loading on it is noted here (load_scenario() installs the handler,
// and run() re-installs it when its signal_set, which resets it to the default, is gone);
// run() counts what was noted before its signal_set took over as interrupts.
std::atomic<int> usr1_noted{0};
static_assert(std::atomic<int>::is_always_lock_free, "usr1_noted is written from a signal handler");

extern "C" void note_usr1(int) { usr1_noted.fetch_add(1, std::memory_order_relaxed); }

void note_usr1_until_the_run() {
  struct sigaction sa{};
  sa.sa_handler = note_usr1;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, nullptr);
}

constexpr const char* kInterrupted = "interrupted (Ctrl-C, SIGTERM or SIGUSR1): the rest of it did not run";

// Runs setup() or teardown() to completion on a private event loop. An `interruptible` one
// (teardown, which runs after the load and before the summary) is abandoned on Ctrl-C,
// SIGTERM or SIGUSR1: one stalled request in it must not cost the user the summary of
// everything the run measured.
std::pair<bool, std::string> run_lifecycle(const std::string& path, const char* fn, const std::string& arg,
                                           metrics::Registry& registry, bool insecure, bool interruptible = false) {
  boost::asio::io_context io;
  SteadyClock clock;
  metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", insecure});
  std::pair<bool, std::string> result{false, "did not finish"};
  bool done = false;
  rt.call_lifecycle(fn, arg, [&](bool ok, std::string value) {
    result = {ok, std::move(value)};
    done = true;
  });
  std::optional<boost::asio::signal_set> signals;
  if (interruptible && !done) {
    signals.emplace(io, SIGINT, SIGTERM, SIGUSR1);
    signals->async_wait([&](const boost::system::error_code& ec, int) {
      if (ec || done) return;
      result = {false, kInterrupted};
      done = true;
    });
  }
  // A handler that throws is an engine fault: setup() or teardown() fails with it, as the
  // workers count one under vu.crashes, rather than the exception ending the process (after
  // the load, before its summary, for teardown).
  try {
    while (!done && io.run_one() > 0) {
    }
  } catch (const std::exception& e) {
    result = {false, fmt::format("engine fault: {}", e.what())};
  }
  if (signals) {
    signals.reset();            // SIGINT and SIGTERM go back to their default actions
    note_usr1_until_the_run();  // and SIGUSR1 to being noted, not the process's end
  }
  return result;
}

}  // namespace

PreparedScenario load_scenario(const std::string& path, const RunArgs& args, metrics::Registry& registry) {
  note_usr1_until_the_run();
  PreparedScenario s;
  s.path = path;
  {
    boost::asio::io_context io;
    SteadyClock clock;
    metrics::MetricSink sink(registry);
    clients::ClientContext ctx(io, sink, clock);
    scenario::ScenarioRuntime rt(ctx, scenario::RuntimeEnv{path, clock.now(), "", false});
    s.name = rt.name();
    s.options = rt.options(path + ": options");
    s.has_teardown = rt.has_function("teardown");
    s.has_setup = rt.has_function("setup");
  }
  s.insecure = args.insecure || s.options.insecure;
  try {
    s.local_addresses = args.local_addresses.empty() ? parse_address_list(s.options.local_addresses)
                                                     : parse_address_list(args.local_addresses);
  } catch (const std::invalid_argument& e) {
    throw scenario::ScenarioError(fmt::format("local addresses: {}", e.what()));
  }
  for (const auto& t : s.options.thresholds) s.thresholds.push_back({t.metric, t.aggregation, t.limit, path});
  return s;
}

namespace {

// "api.lua: setup() failed: <why>", unless the message already starts with the file (a Lua
// error raised in it carries its file:line): a failure that is not the user's code's, such
// as setup data JSON cannot hold, must still name the scenario.
std::string lifecycle_failure(const std::string& path, const char* fn, const std::string& why) {
  if (why.rfind(path + ":", 0) == 0) return fmt::format("{}() failed: {}", fn, why);
  return fmt::format("{}: {}() failed: {}", path, fn, why);
}

}  // namespace

void run_setup(PreparedScenario& s, metrics::Registry& registry) {
  if (!s.has_setup) return;
  auto [ok, value] = run_lifecycle(s.path, "setup", "", registry, s.insecure);
  if (!ok) throw scenario::ScenarioError(lifecycle_failure(s.path, "setup", value));
  s.setup_data = value;
}

std::string run_teardown(const PreparedScenario& s, metrics::Registry& registry) {
  if (!s.has_teardown) return {};
  auto [ok, value] = run_lifecycle(s.path, "teardown", s.setup_data, registry, s.insecure, true);
  if (!ok && value == kInterrupted) return fmt::format("{}: teardown() {}", s.path, kInterrupted);
  return ok ? std::string() : lifecycle_failure(s.path, "teardown", value);
}

std::string local_host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

int worker_threads_for(const RunArgs& args, const LoadShape& shape) {
  int threads = engine::worker_threads(args.threads, args.cpu_policy);
  long long most = shape.model == LoadModel::Rate ? shape.max_vus : static_cast<long long>(shape.start);
  for (const Stage& st : shape.stages)
    if (shape.model == LoadModel::Vus) most = std::max(most, static_cast<long long>(st.target));
  return static_cast<int>(std::max<long long>(1, std::min<long long>(threads, most)));
}

namespace {

engine::RunPlan plan_for(const PreparedScenario& scenario, const RunArgs& args, const LoadShape& shape,
                         const RankShare* share) {
  engine::RunPlan plan;
  plan.shape = shape;
  plan.threads = share != nullptr ? share->threads : worker_threads_for(args, shape);
  if (share != nullptr) {
    plan.first_segment = share->first_segment;
    plan.total_segments = share->total_segments;
  }
  plan.env = scenario::RuntimeEnv{scenario.path, 0, scenario.setup_data, scenario.insecure};
  plan.local_addresses = scenario.local_addresses;
  plan.cpu_policy = args.cpu_policy;
  return plan;
}

}  // namespace

ScenarioExecution::ScenarioExecution(const PreparedScenario& scenario, const RunArgs& args, LoadShape shape,
                                     metrics::Registry& registry, LiveExports* live, bool quiet, const RankShare* share)
    : scenario_(scenario),
      shape_(std::move(shape)),
      registry_(registry),
      live_(live),
      others_(share != nullptr ? share->others : nullptr),
      measured_(plan_for(scenario, args, shape_, share), registry) {
  report::ScenarioResult header;
  header.scenario = scenario.name;
  header.file = scenario.path;
  header.options = {shape_, scenario.thresholds};
  header.host = local_host_name();
  header.threads = share != nullptr ? share->total_segments : measured_.threads();
  header.cpu_policy = engine::cpu_policy_name(args.cpu_policy);
  header.ranks = others_ != nullptr ? others_->ranks() : 1;
  if (others_ != nullptr) {
    // This process's seconds are rank 0's slot of the run's; the other ranks fill the rest.
    merged_ = std::make_unique<metrics::Collector>(static_cast<std::size_t>(others_->ranks()));
    measured_.collector().subscribe([this](const metrics::Snapshot& second) { merged_->push(0, second); });
  }
  output_ = std::make_unique<RunOutput>(std::move(header), quiet, registry_, collector(), live_);
  collector().subscribe([this](const metrics::Snapshot& second) {
    output_->on_second(second);
    for (const auto& observer : observers_) observer(second);
  });
}

ScenarioExecution::~ScenarioExecution() = default;

void ScenarioExecution::observe(std::function<void(const metrics::Snapshot&)> observer) {
  observers_.push_back(std::move(observer));
}

void ScenarioExecution::stop() {
  std::lock_guard lock(stop_mutex_);
  if (!running_) return;
  measured_.stop(false);
  // MPI calls belong to the main thread (MPI_THREAD_FUNNELED): the other ranks hear it from there.
  if (others_ != nullptr) boost::asio::post(measured_.io(), [this] { others_->stop(false); });
}

Nanos ScenarioExecution::run() {
  boost::asio::io_context& io = measured_.io();
  try {
    measured_.load();
  } catch (...) {
    if (others_ != nullptr) {
      try {
        others_->agree_start(false);  // the other ranks learn that nothing runs
      } catch (const std::runtime_error&) {
      }
    }
    throw;
  }
  const Nanos t0 = others_ != nullptr ? others_->agree_start(true) : SteadyClock::monotonic_now() + 20 * kMilli;
  {
    std::lock_guard lock(stop_mutex_);
    running_ = true;
  }

  {
    // Ctrl-C: the first stops starting iterations (graceful_stop honoured), the second stops
    // at once. SIGUSR1 counts as one: it is how mpirun, and `--nodes` on a Ctrl-C, tell every
    // rank (rank 0 stops the others the same way; they ignore it). A Ctrl-C to rank 0 alone
    // works too.
    const auto interrupt = [&](int signal) {
      ++interrupts_;
      // mpirun ends a job whose rank died with SIGTERM, then SIGKILL within milliseconds
      // to a second: the results files are written now, in case that is long enough.
      if (signal == SIGTERM && live_ != nullptr)
        live_->checkpoint().write_now(fmt::format(
            "the process was sent SIGTERM {:.1f} s into the run and did not finish writing its results (under "
            "mpirun without --mca orte_abort_on_non_zero_status 0, that is how OpenMPI ends the whole job when a "
            "rank dies)",
            static_cast<double>(SteadyClock::monotonic_now() - t0) / kSecond));
      output_->interrupted(interrupts_, shape_.graceful_stop);
      const bool graceful = interrupts_ == 1 && shape_.graceful_stop > 0;
      measured_.stop(graceful);
      if (others_ != nullptr) others_->stop(graceful);
    };
    boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGUSR1);
    std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                               int signal) {
      if (ec) return;
      interrupt(signal);
      signals.async_wait(on_signal);
    };
    signals.async_wait(on_signal);
    if (others_ != nullptr) {
      others_->watch(io, *merged_, t0, [this](const std::string& warning) {
        output_->warn(warning);
        // Under plain mpirun a dead rank ends the job a moment later (or its death was
        // what a stalled rank's silence hid): what was measured goes to disk first.
        if (live_ != nullptr) live_->checkpoint().write_now(warning);
        measured_.stop(false);
        others_->stop(false);
      });
    }

    output_->started(t0);
    if (live_ != nullptr && live_->dashboard() != nullptr)
      live_->dashboard()->scenario_started({"stampede", version_number(), version_commit()}, output_->result());
    measured_.start(t0);
    // A SIGUSR1 noted before the signal_set took over (during setup, say) stops the run as
    // soon as it has started: nothing was measured to lose, but the summary and files are
    // still written, as the user asked.
    for (int n = std::min(usr1_noted.exchange(0), 2); n > 0; --n) interrupt(SIGUSR1);
    measured_.run_to_end();
    {
      std::lock_guard lock(stop_mutex_);
      running_ = false;
    }
  }
  note_usr1_until_the_run();  // the signal_set reset it to the default (the process's end)
  if (others_ != nullptr) {
    merged_->finish(0);
    others_->wait(io);
  }
  const Nanos ended = SteadyClock::monotonic_now();
  if (merged_) merged_->flush();
  return ended - t0;
}

int ScenarioExecution::summarise(Nanos lasted, report::ScenarioResult& result) {
  // A second Ctrl-C asked to stop at once: teardown() is skipped, as it would be if the
  // user pressed Ctrl-C a third time while it ran.
  if (interrupts_ >= 2 && scenario_.has_teardown)
    output_->warn(fmt::format("{}: teardown() skipped: the run was stopped at once (second Ctrl-C)", scenario_.path));
  else if (std::string failed = run_teardown(scenario_, registry_); !failed.empty())
    output_->warn(failed);
  std::lock_guard summary(summary_lock());
  const int status = output_->finish(lasted, scenario_.thresholds);
  result = output_->result();
  // The merged figures: under mpirun every rank's loop delay, lag and drops count (the
  // generator gauges merge as the busiest rank's), not rank 0's alone.
  result.generator = generator_figures(collector(), registry_, 0, -1,
                                       std::max(1e-9, static_cast<double>(lasted) / kSecond),
                                       peak_load(shape_, collector().summary(), registry_));
  const bool polling = result.cpu_policy == engine::cpu_policy_name(engine::CpuPolicy::poll);
  std::fputs(report::render_generator_line(*result.generator, polling).c_str(), stdout);
  std::fflush(stdout);
  return status;
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
