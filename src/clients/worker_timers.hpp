#pragma once
// Long-lived timers of many connections and VUs (Phoenix heartbeats, stampede.sleep) on one
// Asio timer per worker.
//
// Why: an Asio steady_timer per socket costs the timer object plus a heap-allocated wait
// operation for as long as it is armed, about 240 bytes per idle Phoenix socket, and one
// more timer for the reactor to keep sorted. A WorkerTimer is 48 bytes inside its owner; the
// worker's heap holds a pointer to each exact one, and the grid ones are linked in rings. It
// fires at its deadline exactly as a steady_timer would: the worker's Asio timer is always
// armed for the earliest deadline.
//
// TimerHeap is the pure part (no clock, no loop), tested on plain times; WorkerTimers drives
// one with the worker's loop. Single-threaded, like everything on a worker.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "common/clock.hpp"

namespace stampede::clients {

class TimerHeap;

// One timer, owned (embedded) by whoever waits on it. Destroying or re-arming it cancels
// what was pending. It must not move while armed (owners keep it in place: a member of an
// object on the heap).
class WorkerTimer {
 public:
  // Called once at the deadline with the `arg` given to schedule(). It may re-arm this timer
  // or arm and cancel others.
  using Fn = void (*)(void* arg);

  WorkerTimer() = default;
  ~WorkerTimer();
  WorkerTimer(const WorkerTimer&) = delete;
  WorkerTimer& operator=(const WorkerTimer&) = delete;

  bool armed() const { return heap_ != nullptr; }
  Nanos deadline() const { return at_; }
  void cancel();

 private:
  friend class TimerHeap;
  bool in_bucket() const { return next_ != nullptr; }

  TimerHeap* heap_ = nullptr;  // set while armed
  union {
    std::size_t index_ = 0;    // in the heap: its place in the array
    WorkerTimer* prev_;        // in a bucket: the one before it (the ring passes its sentinel)
  };
  WorkerTimer* next_ = nullptr;  // in a bucket: the one after it; null in the heap
  Nanos at_ = 0;
  Fn fn_ = nullptr;
  void* arg_ = nullptr;
};

// The armed timers by deadline: a binary min-heap for exact deadlines, with each timer
// knowing its place so that cancelling one is O(log n) and allocates nothing; and, for
// deadlines on a shared grid (schedule_shared), one bucket per grid point, a ring of the
// timers due then in the order they were armed. Arming, cancelling and firing a bucketed
// timer touch only it and its two neighbours: a held Phoenix socket re-arms its heartbeat
// twice per heartbeat, and in a heap of 40,000 timers each pop sifted through 15 levels of
// scattered timers (9% of a holding process's CPU; docs/design/048).
class TimerHeap {
 public:
  TimerHeap() = default;
  ~TimerHeap();  // timers still armed are disarmed (their owners may outlive the heap)
  TimerHeap(const TimerHeap&) = delete;
  TimerHeap& operator=(const TimerHeap&) = delete;

  // Arms `t` for `at` (monotonic ns); re-arms it if it was armed.
  void schedule(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg);
  // The same for a deadline many timers share (a grid point, coarse_deadline below): kept in
  // that deadline's bucket. Timers due at one time fire in the order they were armed.
  void schedule_shared(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg);
  void cancel(WorkerTimer& t);
  std::optional<Nanos> earliest();
  // Disarms and calls every timer due at `now`, earliest first (a timer armed by a callback
  // for a time already due runs in the same call). Returns how many ran.
  std::size_t fire_due(Nanos now);
  std::size_t size() const { return heap_.size() + in_buckets_; }

 private:
  bool before(std::size_t a, std::size_t b) const { return heap_[a]->at_ < heap_[b]->at_; }
  void place(std::size_t i, WorkerTimer* t);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void remove_at(std::size_t i);
  void unlink(WorkerTimer& t);
  // The earliest bucket that still holds a timer (emptied ones are dropped on the way).
  WorkerTimer* earliest_bucket();

  std::vector<WorkerTimer*> heap_;
  // Grid point -> the sentinel of its ring. A map node never moves, so the ring can point at
  // its sentinel; a held process has a few hundred grid points armed at a time.
  std::map<Nanos, WorkerTimer> buckets_;
  std::size_t in_buckets_ = 0;
};

// `delay` after `now`, rounded up to a grid of delay/100 (1 µs to 100 ms) counted from
// `phase` past the clock's zero, which every timer on the worker shares: deadlines that may
// be up to 1% late (a Phoenix heartbeat every 30 s) then fall on a few grid points, and the
// timers due at one point fire in one wake-up of the worker instead of one each
// (docs/design/048).
Nanos coarse_deadline(Nanos now, Nanos delay, Nanos phase = 0);

// The coarsest step of a worker's grid: its heartbeats, its loop probe (engine/loop_probe)
// and a slow ramp's VU starts (engine/closed_model) fall on multiples of it past the
// worker's phase, so that one wake-up serves them all.
constexpr Nanos kGridStep = 100 * kMilli;

// The first point of the worker's kGridStep grid (multiples of it past `phase`) at or after `t`.
constexpr Nanos grid_point_at_or_after(Nanos t, Nanos phase) {
  return (t - phase + kGridStep - 1) / kGridStep * kGridStep + phase;
}

// The grid's phase for worker `index` of the run's `count` (threads x ranks): the workers'
// grid points spread evenly over 100 ms. With one grid for all, the 56 ranks of a million
// users and the targets answering them all woke in the same instant every 100 ms, and each
// waited for the others' heartbeats to be sent and answered: loop delay p99 9.5 ms at 50,000
// users on a machine 10% busy, 0.35 ms with the phases spread (docs/design/048, session 42).
Nanos grid_phase(int index, int count);

// The heap on the worker's loop: an Asio timer armed for the earliest deadline.
class WorkerTimers {
 public:
  // `phase`: of the coarse grid (grid_phase above).
  WorkerTimers(boost::asio::io_context& io, const Clock& clock, Nanos phase = 0);

  void schedule(WorkerTimer& t, Nanos at, WorkerTimer::Fn fn, void* arg);
  void schedule_after(WorkerTimer& t, Nanos delay, WorkerTimer::Fn fn, void* arg) {
    schedule(t, clock_.now() + delay, fn, arg);
  }
  // For timers that may be a little late (coarse_deadline above).
  void schedule_coarse_after(WorkerTimer& t, Nanos delay, WorkerTimer::Fn fn, void* arg);
  std::size_t armed() const { return heap_.size(); }

 private:
  void rearm();
  void on_timer();
  void after_arming(Nanos at);

  const Clock& clock_;
  Nanos phase_;
  TimerHeap heap_;
  boost::asio::steady_timer timer_;
  std::optional<Nanos> armed_for_;  // what timer_ waits for, if anything
};

}  // namespace stampede::clients
