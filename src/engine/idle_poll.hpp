#pragma once
// `--cpu-policy poll`: when a polling worker gives up and sleeps, and how much of its CPU
// time went to polls that found nothing.
//
// A worker under `poll` runs its event loop without blocking (io_context::poll) for as long
// as the loop finds work at least every `budget`; after `budget` of empty polls it blocks
// until its next event, as a `normal` worker always does, and polls again from there. Why:
// on the VMs we measure on, a thread that sleeps and is woken costs ~28 µs of CPU and wakes
// ~90 µs after its timer (bench/RESULTS.md, session 23), and a busy generator sleeps
// thousands of times a second, between the replies to one turn's requests and the next
// turn's arrivals. Polling spends that CPU on polls instead, answers each reply and arrival
// at once, and leaves the work per request ~25% lower (docs/design/029-cpu-policy-poll.md).
// 1 ms, four arrival quanta (design 014): at 52,000/s a budget of 200 µs (Seastar's idle-poll
// time) slept in the gap before each turn and did worse than not polling at all; from 1 ms
// up the loop of a busy worker never sleeps. A worker with nothing to do for 1 ms (the end of
// the run, a quiet stage, a server that stopped answering) sleeps instead of holding its core.
//
// Pure logic over plain times (ns, monotonic): the tests drive it on a simulated clock.
#include <cstddef>

#include "common/clock.hpp"

namespace stampede::engine {

class IdlePoll {
 public:
  static constexpr Nanos kDefaultBudget = kMilli;

  explicit IdlePoll(Nanos budget = kDefaultBudget) : budget_(budget) {}

  // A poll that began at `began` ran `handlers` handlers. Returns true when the loop should
  // now block until its next event: its polls have found nothing for `budget`.
  bool polled(Nanos began, std::size_t handlers) {
    if (handlers > 0) {
      end_streak(began);
      return false;
    }
    if (!idle_) {
      idle_ = true;
      idle_since_ = began;
      return false;
    }
    if (began - idle_since_ < budget_) return false;
    end_streak(began);
    return true;
  }

  // The loop stops polling at `at` for a while (an adaptive worker going back to sleeping,
  // PollGate): a streak of empty polls ends here, so the time it then sleeps is not counted
  // as polling when it polls again.
  void stopped(Nanos at) { end_streak(at); }

  // Time spent polling with nothing to do, in total: each streak of empty polls from the
  // start of its first poll to the start of the poll that found work (or to the sleep).
  // A streak still going is not counted yet.
  Nanos idle_polled() const { return idle_polled_; }

 private:
  void end_streak(Nanos at) {
    if (!idle_) return;
    idle_polled_ += at - idle_since_;
    idle_ = false;
  }

  Nanos budget_;
  bool idle_ = false;
  Nanos idle_since_ = 0;
  Nanos idle_polled_ = 0;
};

}  // namespace stampede::engine
