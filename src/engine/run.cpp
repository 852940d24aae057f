#include "engine/run.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <algorithm>
#include <csignal>
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
    : plan_(plan), listener_(listener), peers_(peers), options_(options), measured_(std::move(plan), registry) {
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
  try {
    measured_.load();
  } catch (const std::exception& e) {
    if (peers_ != nullptr) {
      try {
        peers_->agree_start(false, e.what());  // the other ranks learn that nothing runs
      } catch (const std::runtime_error&) {
      }
    }
    throw;
  }
  const std::optional<Nanos> t0 = peers_ != nullptr ? peers_->agree_start(true, {})
                                                    : std::optional<Nanos>(SteadyClock::monotonic_now() + 20 * kMilli);
  if (!t0) return 0;
  {
    std::lock_guard lock(stop_mutex_);
    running_ = true;
  }

  {
    std::optional<boost::asio::signal_set> signals;
    std::function<void(const boost::system::error_code&, int)> on_signal;
    if (options_.handle_signals) {
      signals.emplace(io, SIGINT, SIGTERM, SIGUSR1);
      on_signal = [&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        interrupt(signal);
        signals->async_wait(on_signal);
      };
      signals->async_wait(on_signal);
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

    if (listener_ != nullptr) listener_->started(*t0);
    measured_.start(*t0);
    if (options_.handle_signals) {
      // A SIGUSR1 noted before the signal_set took over (during setup, say) stops the run as
      // soon as it has started: nothing was measured to lose, but the summary and files are
      // still written, as the user asked.
      for (int n = std::min(take_noted_usr1(), 2); n > 0; --n) interrupt(SIGUSR1);
    }
    measured_.run_to_end();
    {
      std::lock_guard lock(stop_mutex_);
      running_ = false;
    }
  }
  // The signal_set reset SIGUSR1 to its default (the process's end): noted again.
  if (options_.handle_signals) note_usr1_until_the_run();
  if (peers_ != nullptr) {
    if (merged_) merged_->finish(0);
    peers_->wait(io);
  }
  const Nanos ended = SteadyClock::monotonic_now();
  if (merged_) merged_->flush();
  return ended - *t0;
}

}  // namespace stampede::engine
