#pragma once
// How long a VU waits before its next iteration after one that failed because this machine
// ran out of file descriptors, source ports or socket memory (transport::is_local_exhaustion).
//
// Why: without a wait, a VU whose connect fails with EMFILE starts its next iteration at
// once and fails again within microseconds. Thousands of VUs doing that burn the cores the
// healthy VUs need and fill the error counters with millions of copies of one message. A
// well-behaved client backs off: 10 ms after the first such failure, doubling with each
// one in a row up to 1 s, each wait drawn evenly from its upper half (jitter, so that VUs
// that failed together do not retry together). The first iteration that does not fail that
// way resets it. The open model never delays an arrival for this; the VU sits out instead
// (docs/design/016-backoff-when-the-generator-runs-out.md).
//
// Pure logic over plain times (ns), so the tests drive it on a simulated clock.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "common/clock.hpp"

namespace stampede::engine {

// One VU's backoff.
class ExhaustionBackoff {
 public:
  static constexpr Nanos kFirst = 10 * kMilli;
  static constexpr Nanos kCap = kSecond;

  // `seed`: the VU's id, so VUs draw different jitter and runs are reproducible.
  explicit ExhaustionBackoff(std::uint64_t seed = 0) : rng_(seed) {}

  // An iteration of the VU ended at `now`; `exhausted`: it failed for want of a local
  // resource. Returns when the VU may start its next one: `now` when it did not fail that
  // way (which resets the backoff), otherwise later, by the next step of the backoff.
  Nanos next_start(Nanos now, bool exhausted);

  // Exhausted iterations in a row so far.
  int streak() const { return streak_; }
  // The longest wait after `streak` exhausted iterations in a row (1, 2, ...): kFirst,
  // doubling, capped at kCap. A wait is drawn from [ceiling / 2, ceiling].
  static Nanos ceiling(int streak);

 private:
  std::uint64_t next_random();

  std::uint64_t rng_;
  int streak_ = 0;
};

// VUs sitting out their backoff, the one whose wait ends first on top. `T` names a VU (a
// pointer). Stale entries (a VU that was stopped meanwhile) are the caller's to ignore.
template <typename T>
class BackoffQueue {
 public:
  void push(T vu, Nanos ready_at) {
    heap_.push_back({ready_at, vu});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }

  // When the first wait ends, if anyone waits.
  std::optional<Nanos> earliest() const {
    if (heap_.empty()) return std::nullopt;
    return heap_.front().first;
  }

  // A VU whose wait is over at `now` (with the time it was ready), or nothing.
  std::optional<std::pair<Nanos, T>> pop_ready(Nanos now) {
    if (heap_.empty() || heap_.front().first > now) return std::nullopt;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    auto top = heap_.back();
    heap_.pop_back();
    return top;
  }

  std::size_t size() const { return heap_.size(); }
  bool empty() const { return heap_.empty(); }
  void clear() { heap_.clear(); }

 private:
  static bool later(const std::pair<Nanos, T>& a, const std::pair<Nanos, T>& b) { return a.first > b.first; }

  std::vector<std::pair<Nanos, T>> heap_;
};

}  // namespace stampede::engine
