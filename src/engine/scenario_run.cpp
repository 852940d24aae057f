#include "engine/scenario_run.hpp"

#include <algorithm>

#include <pthread.h>

namespace stampede::engine {

ScenarioRun::ScenarioRun(RunPlan plan, metrics::Registry& registry, std::function<void(int, metrics::Snapshot, bool)> publish)
    : plan_(std::move(plan)), registry_(registry), publish_(std::move(publish)), start_time_(start_promise_.get_future()) {}

ScenarioRun::~ScenarioRun() {
  if (!threads_.empty()) {
    if (!start_set_) start(0);  // threads still waiting for a start time: tell them not to run
    stop(false);
    join();
  }
}

void ScenarioRun::load() {
  const int total = plan_.total_segments > 0 ? plan_.total_segments : plan_.threads;
  std::vector<std::promise<void>> loaded(static_cast<std::size_t>(plan_.threads));
  std::vector<std::future<void>> loaded_futures;
  for (auto& p : loaded) loaded_futures.push_back(p.get_future());
  running_ = plan_.threads;
  for (int i = 0; i < plan_.threads; ++i) {
    WorkerConfig cfg;
    cfg.index = plan_.first_segment + i;
    cfg.local_index = i;
    cfg.count = total;
    cfg.shape = plan_.shape;
    cfg.env = plan_.env;
    cfg.local_addresses = plan_.local_addresses;
    cfg.cpu_policy = plan_.cpu_policy;
    cfg.registry = &registry_;
    cfg.publish = publish_;
    workers_.push_back(std::make_unique<Worker>(std::move(cfg)));
  }
  for (int i = 0; i < plan_.threads; ++i) {
    threads_.emplace_back([this, i, ready = std::move(loaded[static_cast<std::size_t>(i)])]() mutable {
      Worker& w = *workers_[static_cast<std::size_t>(i)];
      bool ok = true;
      try {
        w.load();
        ready.set_value();
      } catch (...) {
        ok = false;
        ready.set_exception(std::current_exception());
      }
      const Nanos start = start_time_.get();
      if (ok && start > 0) w.run(start);
      if (--running_ == 0 && on_finished) on_finished();
    });
  }
  std::exception_ptr error;
  for (auto& f : loaded_futures) {
    try {
      f.get();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) {
    start(0);  // 0: do not run
    join();
    std::rethrow_exception(error);
  }
}

std::vector<WorkerCpu> ScenarioRun::worker_cpus() {
  std::vector<WorkerCpu> cpus;
  for (std::size_t i = 0; i < threads_.size(); ++i) {
    clockid_t clock{};
    if (!threads_[i].joinable() || pthread_getcpuclockid(threads_[i].native_handle(), &clock) != 0) continue;
    const Worker* worker = workers_[i].get();
    cpus.push_back({clock, [worker] { return worker->idle_polled(); }, worker->tid()});
  }
  return cpus;
}

Nanos ScenarioRun::longest_polled() const {
  Nanos longest = 0;
  for (const auto& w : workers_) longest = std::max(longest, w->polled_for());
  return longest;
}

void ScenarioRun::start(Nanos start) {
  start_set_ = true;
  start_promise_.set_value(start);
}

void ScenarioRun::stop(bool graceful) {
  for (auto& w : workers_) w->stop(graceful);
}

void ScenarioRun::join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

}  // namespace stampede::engine
