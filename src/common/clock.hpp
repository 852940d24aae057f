#pragma once
// One monotonic clock for every timing in Stampede, in nanoseconds.
// Scheduling code takes a Clock& (or plain Nanos arguments) so tests can drive it
// on a simulated clock instead of sleeping.
#include <chrono>
#include <cstdint>

namespace stampede {

using Nanos = std::int64_t;  // nanoseconds on the monotonic clock

constexpr Nanos kMicro = 1'000;
constexpr Nanos kMilli = 1'000'000;
constexpr Nanos kSecond = 1'000'000'000;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now() const = 0;
};

// std::chrono::steady_clock is CLOCK_MONOTONIC on Linux: nanosecond resolution, never jumps.
class SteadyClock final : public Clock {
 public:
  Nanos now() const override { return monotonic_now(); }
  static Nanos monotonic_now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// A clock the test advances by hand.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Nanos start = 0) : now_(start) {}
  Nanos now() const override { return now_; }
  void set(Nanos t) { now_ = t; }
  void advance(Nanos d) { now_ += d; }

 private:
  Nanos now_;
};

}  // namespace stampede
