#include "engine/measured_run.hpp"

#include <boost/asio/post.hpp>

namespace stampede::engine {

MeasuredRun::MeasuredRun(RunPlan plan, metrics::Registry& registry)
    : threads_(plan.threads),
      registry_(registry),
      collector_(static_cast<std::size_t>(plan.threads) + 1),  // + the generator monitor
      run_(std::move(plan), registry, [this](int worker, metrics::Snapshot snap, bool last) {
        collector_.push(static_cast<std::size_t>(worker), std::move(snap));
        if (last) collector_.finish(static_cast<std::size_t>(worker));
      }) {
  run_.on_finished = [this] { boost::asio::post(io_, [this] { io_.stop(); }); };
}

MeasuredRun::~MeasuredRun() = default;

void MeasuredRun::load() {
  run_.load();
  const auto monitor_slot = static_cast<std::size_t>(threads_);
  monitor_.emplace(io_, registry_, run_.worker_cpus(), [this, monitor_slot](metrics::Snapshot snap, bool last) {
    collector_.push(monitor_slot, std::move(snap));
    if (last) collector_.finish(monitor_slot);
  });
}

void MeasuredRun::start(Nanos t0) {
  run_.start(t0);
  monitor_->start(t0);
}

void MeasuredRun::stop(bool graceful) { run_.stop(graceful); }

void MeasuredRun::run_to_end() {
  io_.run();
  monitor_->finish();  // before the join: the workers' CPU clocks go away with their threads
  run_.join();
  collector_.flush();
}

}  // namespace stampede::engine
