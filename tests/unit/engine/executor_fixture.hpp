#pragma once
// An ExecutorHost for the executors' tests: the simulated scheduler, VUs without Lua whose
// iterations take the time the test says and end as it says, and a record of every figure
// the executor reports. run() drives an executor as a Worker does: begin at the start, a
// graceful end at the end of the shape (or a stop the test asks for), until it finishes.
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/executor.hpp"
#include "simulated_scheduler.hpp"

namespace stampede::engine::testing {

struct IterationRecord {
  int vu = 0;
  Nanos timed_from = 0;  // what the executor timed it from (the scheduled start, open model)
  Nanos started = 0;     // when it really started
  Nanos end = 0;
  bool ok = true;
};

struct InterruptRecord {
  int vu = 0;
  Nanos at = 0;
};

class FakeHost final : public ExecutorHost {
 public:
  explicit FakeHost(LoadShape shape, int index = 0, int count = 1, Nanos start = kSecond)
      : settings_{std::move(shape), index, count, false}, start_(start), scheduler_(0) {}

  // How long the VU's next iteration takes, and how it ends: by default 10 ms, ok.
  std::function<Nanos(const scenario::Vu&)> duration = [](const scenario::Vu&) { return 10 * kMilli; };
  std::function<scenario::IterationOutcome(const scenario::Vu&)> outcome = [](const scenario::Vu&) {
    return scenario::IterationOutcome{};
  };
  // What every idle probe answers (1: the worker's thread was idle all along).
  double idle_share = 1.0;

  // Runs `executor` like a Worker: begin() at the start, end(graceful) at the shape's end,
  // until it says it finished or `limit` after the start.
  void run(Executor& executor, Nanos limit = 600 * kSecond) {
    executor_ = &executor;
    auto end_timer = scheduler_.make_timer();
    end_timer->arm(start_ + settings_.shape.total_duration(), [this] { stop(true); });
    auto begin_timer = scheduler_.make_timer();
    begin_timer->arm(start_, [this] {
      if (!stopping_) executor_->begin();
    });
    for (const auto& [at, action] : actions_) {
      timers_.push_back(scheduler_.make_timer());
      timers_.back()->arm(at, [action = action] { action(); });
    }
    scheduler_.run_until(start_ + limit);
    executor_ = nullptr;
  }

  // At `at` (since the start), the loop runs `action` (a stall: action waits on the clock).
  void at(Nanos since_start, std::function<void()> action) { actions_.emplace_back(start_ + since_start, std::move(action)); }
  // The loop is blocked from `since_start` for `how_long` (another process had the CPU).
  void stall(Nanos since_start, Nanos how_long) {
    at(since_start, [this, how_long] { scheduler_.wait_until(scheduler_.now() + how_long); });
  }
  // As the Worker does on Ctrl-C (graceful) or a second one.
  void stop(bool graceful) {
    if (finished) return;  // as the Worker: an executor that finished has nothing to end
    if (stopping_ && graceful) return;
    stopping_ = true;
    if (executor_ != nullptr) executor_->end(graceful);
  }

  // --- ExecutorHost ---
  Scheduler& scheduler() override { return scheduler_; }
  const ExecutorSettings& settings() const override { return settings_; }
  Nanos start() const override { return start_; }
  scenario::Vu& new_vu() override {
    scenario::Vu& vu = vus_.emplace_back();
    vu.id = static_cast<int>(vus_.size());
    return vu;
  }
  int vus_created() const override { return static_cast<int>(vus_.size()); }
  void start_iteration(scenario::Vu& vu, IterationDone done) override {
    auto& timer = iteration_timers_[&vu];
    if (!timer) timer = scheduler_.make_timer();
    const Nanos began = scheduler_.now();
    started_at_[&vu] = began;
    vu.running = true;
    timer->arm(began + duration(vu), [this, &vu, done = std::move(done)] {
      vu.running = false;
      ++vu.iteration;
      last_done_vu_ = vu.id;  // for record_iteration, which done() calls
      last_started_ = started_at_[&vu];
      done(vu, outcome(vu));
    });
  }
  void interrupt(scenario::Vu& vu) override {
    if (auto it = iteration_timers_.find(&vu); it != iteration_timers_.end()) it->second->cancel();
    vu.running = false;
    ++vu.iteration;
    interrupts.push_back({vu.id, scheduler_.now() - start_});
  }
  void set_live_vus(long long n) override { live.emplace_back(scheduler_.now() - start_, n); }
  void record_iteration(const scenario::IterationOutcome& o, Nanos timed_from, Nanos end) override {
    // The VU that ended: the one whose iteration started last among those not running.
    iterations.push_back({last_done_vu_, timed_from - start_, last_started_ - start_, end - start_, o.ok});
  }
  void record_dropped() override { ++dropped; }
  void record_lag(Nanos lag) override { lags.push_back(lag); }
  void executor_finished() override {
    finished = true;
    finished_at = scheduler_.now() - start_;
  }
  std::unique_ptr<IdleProbe> make_idle_probe() override { return std::make_unique<FixedIdle>(idle_share); }

  SimulatedScheduler& sim() { return scheduler_; }
  // When the VU's current or last iteration started (since the run's start).
  Nanos started_at(const scenario::Vu& vu) const { return started_at_.at(&vu) - start_; }
  const std::deque<scenario::Vu>& vus() const { return vus_; }
  // The highest number of live VUs the executor reported.
  long long max_live() const {
    long long m = 0;
    for (const auto& [t, n] : live) m = std::max(m, n);
    return m;
  }

  std::vector<IterationRecord> iterations;
  std::vector<InterruptRecord> interrupts;
  std::vector<Nanos> lags;
  std::vector<std::pair<Nanos, long long>> live;  // (since the start, VUs) as reported
  std::uint64_t dropped = 0;
  bool finished = false;
  Nanos finished_at = -1;

 private:
  class FixedIdle final : public IdleProbe {
   public:
    explicit FixedIdle(double share) : share_(share) {}
    double idle_share_since_last_ask(Nanos) override { return share_; }

   private:
    double share_;
  };

  ExecutorSettings settings_;
  Nanos start_;
  SimulatedScheduler scheduler_;
  Executor* executor_ = nullptr;
  bool stopping_ = false;
  std::deque<scenario::Vu> vus_;  // stable addresses
  std::unordered_map<const scenario::Vu*, std::unique_ptr<Timer>> iteration_timers_;
  std::unordered_map<const scenario::Vu*, Nanos> started_at_;
  std::vector<std::pair<Nanos, std::function<void()>>> actions_;
  std::vector<std::unique_ptr<Timer>> timers_;
  int last_done_vu_ = 0;
  Nanos last_started_ = 0;
};

}  // namespace stampede::engine::testing
