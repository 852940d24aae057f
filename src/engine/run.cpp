#include "engine/run.hpp"

#include <boost/asio/post.hpp>

#include <optional>
#include <stdexcept>

#include "engine/stop_signals.hpp"

namespace stampede::engine {

RunPlan run_plan_for(const PreparedScenario& scenario, LoadShape shape, int threads, CpuPolicy cpu_policy,
                     int first_segment, int total_segments) {
  RunPlan plan;
  plan.shape = std::move(shape);
  plan.threads = threads;
  plan.first_segment = first_segment;
  plan.total_segments = total_segments;
  plan.env = scenario::RuntimeEnv{scenario.path, 0, scenario.setup_data, scenario.insecure};
  plan.local_addresses = scenario.local_addresses;
  plan.cpu_policy = cpu_policy;
  return plan;
}

Run::Run(RunPlan plan, metrics::Registry& registry, RunListener* listener, RunPeers* peers, Options options)
    : plan_(plan),
      listener_(listener),
      peers_(peers),
      options_(options),
      measured_(std::move(plan), registry, options_.server_metrics) {
  if (peers_ != nullptr && peers_->merges()) {
    // This process's seconds are rank 0's slot of the run's; the other ranks fill the rest.
    merged_ = std::make_unique<metrics::Collector>(static_cast<std::size_t>(peers_->ranks()));
    measured_.collector().subscribe([this](const metrics::Snapshot& second) { merged_->push(0, second); });
  }
  if (peers_ != nullptr) peers_->attach(measured_.collector());
  collector().subscribe([this](const metrics::Snapshot& second) {
    if (listener_ != nullptr) listener_->second(second);
    for (const auto& observer : observers_) observer(second);
  });
}

Run::~Run() = default;

void Run::observe(std::function<void(const metrics::Snapshot&)> observer) { observers_.push_back(std::move(observer)); }

void Run::stop() {
  std::lock_guard lock(stop_mutex_);
  if (!running_) return;
  measured_.stop(false);
  // MPI calls belong to the main thread (MPI_THREAD_FUNNELED): the other ranks hear it from there.
  if (peers_ != nullptr) boost::asio::post(measured_.io(), [this] { peers_->stop(false); });
}

// Ctrl-C: the first stops starting iterations (graceful_stop honoured), the second stops at
// once. SIGUSR1 counts as one: it is how mpirun, and `--nodes` on a Ctrl-C, tell every rank
// (rank 0 stops the others the same way; they ignore it). A Ctrl-C to rank 0 alone works too.
void Run::interrupt(int signal) {
  ++interrupts_;
  if (listener_ != nullptr) listener_->interrupted(interrupts_, plan_.shape.graceful_stop, signal);
  const bool graceful = interrupts_ == 1 && plan_.shape.graceful_stop > 0;
  measured_.stop(graceful);
  if (peers_ != nullptr) peers_->stop(graceful);
}

Nanos Run::run() {
  boost::asio::io_context& io = measured_.io();
  // While the load runs a stop signal is heard on its loop (interrupt()). Until the watch is
  // in place one is only noted, and a load is not started once one was: nothing was
  // measured, and there is nothing to summarise (engine/stop_signals.hpp).
  std::optional<StopSignalWatch> signals;
  try {
    if (options_.handle_signals) stop_if_noted();  // before the workers load the scenario
    measured_.load();
    if (options_.handle_signals) {
      signals.emplace(io, [this](int signal) { interrupt(signal); });
      stop_if_noted();  // while they loaded, or before the watch took over
    }
  } catch (const std::exception& e) {
    signals.reset();
    if (peers_ != nullptr) {
      try {
        peers_->agree_start(false, e.what());  // the other ranks learn that nothing runs
      } catch (const std::runtime_error&) {
      }
    }
    throw;
  }
  // One that comes while the ranks agree the start is heard once the load runs: it stops it
  // then, as during the load.
  const std::optional<Nanos> t0 = peers_ != nullptr ? peers_->agree_start(true, {})
                                                    : std::optional<Nanos>(SteadyClock::monotonic_now() + 20 * kMilli);
  if (!t0) return 0;
  {
    std::lock_guard lock(stop_mutex_);
    running_ = true;
  }

  if (peers_ != nullptr) {
    peers_->watch(
        io, merged_.get(), *t0,
        [this](const std::string& warning) {
          if (listener_ != nullptr) {
            listener_->warn(warning);
            // Under plain mpirun a dead rank ends the job a moment later (or its death was
            // what a stalled rank's silence hid): what was measured goes to disk first.
            listener_->urgent(warning);
          }
          measured_.stop(false);
          peers_->stop(false);
        },
        [this](bool graceful) { measured_.stop(graceful); });
  }

  load_started();
  if (listener_ != nullptr) listener_->started(*t0);
  measured_.start(*t0);
  measured_.run_to_end();
  {
    std::lock_guard lock(stop_mutex_);
    running_ = false;
  }
  signals.reset();  // noted again from here: teardown(), the summary, the files
  if (peers_ != nullptr) {
    if (merged_) merged_->finish(0);
    peers_->wait(io);
  }
  const Nanos ended = SteadyClock::monotonic_now();
  if (merged_) merged_->flush();
  return ended - *t0;
}

}  // namespace stampede::engine
