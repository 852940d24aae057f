#include "engine/exhaustion_backoff.hpp"

namespace stampede::engine {

Nanos ExhaustionBackoff::ceiling(int streak) {
  Nanos wait = kFirst;
  for (int i = 1; i < streak && wait < kCap; ++i) wait *= 2;
  return std::min(wait, kCap);
}

Nanos ExhaustionBackoff::next_start(Nanos now, bool exhausted) {
  if (!exhausted) {
    streak_ = 0;
    return now;
  }
  if (streak_ < 64) ++streak_;  // the wait stopped growing long before; the count need not
  const Nanos top = ceiling(streak_);
  const Nanos half = top / 2;
  return now + half + static_cast<Nanos>(next_random() % static_cast<std::uint64_t>(top - half + 1));
}

// splitmix64: a few instructions, good enough to spread retries, and no state beyond 8 bytes.
std::uint64_t ExhaustionBackoff::next_random() {
  std::uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace stampede::engine
