#pragma once
// A Scheduler on a clock the test moves: what the executors' tests run on instead of Asio.
// Time only moves when the test runs the scheduler (run_until) or a handler waits on the clock
// (wait_until, the open model's early wake): the clock jumps to each timer's time in order
// (ties in the order they were armed); what is posted runs at the current time, in order,
// before the next timer. Nothing sleeps; every time is exact to the nanosecond.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "engine/scheduler.hpp"

namespace stampede::engine::testing {

class SimulatedScheduler final : public Scheduler {
 public:
  explicit SimulatedScheduler(Nanos start = 0) : now_(start) {}

  Nanos now() const override { return now_; }

  std::unique_ptr<Timer> make_timer() override { return std::make_unique<SimTimer>(*this, next_timer_++); }

  void post(std::function<void()> fn) override { posted_.push_back(std::move(fn)); }

  // The open model's early wake: the spin a real loop does is, here, the clock moving.
  void wait_until(Nanos t) override {
    if (t > now_) {
      waited_ += t - now_;
      now_ = t;
    }
  }

  // Runs what is posted and every timer due up to `t`, then leaves the clock at `t` (or
  // later, if a handler waited past it). Throws after `max_steps` handlers: a loop that
  // never ends is a failed test, not a hung one.
  void run_until(Nanos t, std::uint64_t max_steps = 50'000'000) {
    for (;;) {
      if (++steps_ > max_steps) throw std::runtime_error("the simulated loop ran more than max_steps handlers");
      if (!posted_.empty()) {
        auto fn = std::move(posted_.front());
        posted_.pop_front();
        fn();
        continue;
      }
      auto first = timers_.begin();
      while (first != timers_.end() && !live(first->second)) first = timers_.erase(first);
      if (first == timers_.end() || first->first.first > t) break;
      Entry entry = std::move(first->second);
      timers_.erase(first);
      now_ = std::max(now_, entry.at);
      entry.fn();
    }
    now_ = std::max(now_, t);
  }

  // Runs until nothing is posted and no timer is armed (`limit`: the latest time it may reach).
  void run_all(Nanos limit) { run_until(limit); }

  bool idle() const {
    if (!posted_.empty()) return false;
    for (const auto& [key, entry] : timers_)
      if (live(entry)) return false;
    return true;
  }
  // How long handlers waited on the clock (the open model's early wake), in all.
  Nanos waited() const { return waited_; }
  // Timers armed so far (re-arms included): what a real loop pays a timerfd_settime for.
  std::uint64_t arms() const { return arms_; }

 private:
  struct Entry {
    Nanos at;
    std::uint64_t timer;
    std::uint64_t generation;
    std::function<void()> fn;
  };

  class SimTimer final : public Timer {
   public:
    SimTimer(SimulatedScheduler& s, std::uint64_t id) : s_(s), id_(id) { s_.generations_[id_] = 0; }
    ~SimTimer() override { s_.generations_.erase(id_); }
    void arm(Nanos at, std::function<void()> fn) override {
      const std::uint64_t generation = ++s_.generations_[id_];
      ++s_.arms_;
      s_.timers_.emplace(std::make_pair(at, s_.next_seq_++), Entry{at, id_, generation, std::move(fn)});
    }
    void cancel() override { ++s_.generations_[id_]; }

   private:
    SimulatedScheduler& s_;
    std::uint64_t id_;
  };

  // Not cancelled, re-armed or destroyed since it was armed.
  bool live(const Entry& e) const {
    const auto it = generations_.find(e.timer);
    return it != generations_.end() && it->second == e.generation;
  }

  Nanos now_;
  std::deque<std::function<void()>> posted_;
  std::multimap<std::pair<Nanos, std::uint64_t>, Entry> timers_;  // by (time, arming order)
  std::unordered_map<std::uint64_t, std::uint64_t> generations_;   // timer id -> current generation
  std::uint64_t next_timer_ = 1;
  std::uint64_t next_seq_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t arms_ = 0;
  Nanos waited_ = 0;
};

}  // namespace stampede::engine::testing
