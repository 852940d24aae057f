#include "engine/measured_run.hpp"

#include <boost/asio/post.hpp>

#include "clients/server_metrics_sampler.hpp"

namespace stampede::engine {

MeasuredRun::MeasuredRun(RunPlan plan, metrics::Registry& registry,
                         std::optional<clients::ServerMetricsOptions> server_metrics)
    : threads_(plan.threads),
      registry_(registry),
      // + the generator monitor, + the sampler
      collector_(static_cast<std::size_t>(plan.threads) + 1 + (server_metrics ? 1 : 0)),
      run_(std::move(plan), registry, [this](int worker, metrics::Snapshot snap, bool last) {
        collector_.push(static_cast<std::size_t>(worker), std::move(snap));
        if (last) collector_.finish(static_cast<std::size_t>(worker));
      }) {
  run_.on_finished = [this] { boost::asio::post(io_, [this] { io_.stop(); }); };
  if (server_metrics) {
    // Its seconds are delivered on its own thread at t0 + s + 1 s, scraped or not: a slow
    // endpoint never holds the run's merged seconds (docs/design/038).
    sampler_slot_ = static_cast<std::size_t>(threads_) + 1;
    sampler_ = std::make_unique<clients::ServerMetricsSampler>(
        std::move(*server_metrics), registry_,
        [this](metrics::Snapshot snap) { collector_.push(sampler_slot_, std::move(snap)); });
  }
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
  if (sampler_) sampler_->start(t0);
}

void MeasuredRun::stop(bool graceful) { run_.stop(graceful); }

void MeasuredRun::run_to_end() {
  io_.run();
  monitor_->finish();  // before the join: the workers' CPU clocks go away with their threads
  run_.join();
  if (sampler_) {
    sampler_->stop();  // delivers the last (partial) second
    collector_.finish(sampler_slot_);
  }
  collector_.flush();
}

std::vector<std::string> MeasuredRun::server_exposed_names() const {
  return sampler_ ? sampler_->exposed_names() : std::vector<std::string>{};
}

}  // namespace stampede::engine
