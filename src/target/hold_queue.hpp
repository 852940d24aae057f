#pragma once
// The responses a target worker is holding, and when the worker must wake up to end them.
// Pure logic over plain times, so the tests drive it without a loop or a clock.
//
// A hold ends at the first moment the worker runs at or after its due time: when the worker
// reads requests (every read checks the queue) or when its one hold timer fires. Where that
// timer is set is the point of this class:
// - while requests arrive sparsely, at the earliest due time: a hold ends when it is due,
//   as precisely as the loop wakes;
// - while they arrive densely (on average at least four reads per `slack`), a backstop
//   later: the reads end nearly every hold within one gap of its due time. The backstop is
//   `slack` after the earliest due time, and doubles (up to 4 x slack) each time it fires
//   to find that the reads had ended everything due, so a steady stream of reads meets a
//   timer about once a millisecond. It comes back to `slack` as soon as it finds work.
// So a hold ends late by the gap to the next read while requests stream in, by at most
// 4 x slack (1 ms) for the holds still waiting when a busy stream stops at once, and by the
// loop's wake-up latency otherwise.
// Why: on the VMs we measure on, each timer expiry costs the machine ~27 µs. At 50,000 held
// requests/s the per-request timers fired ~8,000 times a second and doubled the target's
// CPU per request (docs/design/019-target-holds-end-on-reads-while-busy.md). Held times stay
// exact whatever the hold: the truth records when each response was written.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "common/clock.hpp"

namespace stampede::target {

template <class Payload>
class HoldQueue {
 public:
  // The generator's arrival quantum, chosen for the same reason (design 014).
  static constexpr Nanos kDefaultSlack = 250 * kMicro;

  explicit HoldQueue(Nanos slack = kDefaultSlack) : slack_(slack) {}

  bool empty() const { return holds_.empty(); }

  void push(Nanos due, Payload payload) {
    holds_.push_back(Entry{due, std::move(payload)});
    std::push_heap(holds_.begin(), holds_.end(), LaterDue{});
  }

  // A request was read at `now`. Tracks the mean gap between reads (an exponential average
  // over ~8 reads), so one pause after a busy stretch makes the queue precise again.
  void note_read(Nanos now) {
    const Nanos gap = now - last_read_;
    last_read_ = now;
    mean_gap_ += (gap - mean_gap_) / 8;
  }

  bool dense() const { return mean_gap_ <= slack_ / kDenseGapsPerSlack; }

  // Calls `release(payload)` for every hold due at `now`, earliest first; never one that is
  // not due yet. Each is off the queue before its release runs, which may push new ones.
  // Returns how many ended.
  template <class Release>
  std::size_t release_due(Nanos now, Release&& release) {
    std::size_t released = 0;
    while (!holds_.empty() && holds_.front().due <= now) {
      std::pop_heap(holds_.begin(), holds_.end(), LaterDue{});
      Payload payload = std::move(holds_.back().payload);
      holds_.pop_back();
      release(payload);
      ++released;
    }
    return released;
  }

  // The hold timer fired and ended `released` holds (none: the reads had ended them).
  void timer_fired(std::size_t released) {
    backstop_ = released == 0 && dense() ? std::min(backstop_ * 2, kMaxBackstopSlacks * slack_) : slack_;
  }

  // When the worker must run next for the holds, if any are waiting.
  std::optional<Nanos> wake_at() const {
    if (holds_.empty()) return std::nullopt;
    return holds_.front().due + (dense() ? backstop_ : 0);
  }

 private:
  // Dense: reads come at least 4 times per slack on average, so a hold waits for one
  // about a quarter of the slack, and the backstop is the exception.
  static constexpr Nanos kDenseGapsPerSlack = 4;
  static constexpr Nanos kMaxBackstopSlacks = 4;

  struct Entry {
    Nanos due;
    Payload payload;
  };
  struct LaterDue {
    bool operator()(const Entry& a, const Entry& b) const { return a.due > b.due; }
  };

  std::vector<Entry> holds_;  // a min-heap on due time
  Nanos slack_;
  Nanos backstop_ = slack_;
  Nanos last_read_ = 0;
  Nanos mean_gap_ = kSecond;  // no reads yet: sparse
};

}  // namespace stampede::target
