#include "target/server_stats.hpp"

#include <algorithm>

namespace stampede::target {

std::size_t LoopLagHistogram::bucket_of(Nanos lag) {
  const double seconds = static_cast<double>(std::max<Nanos>(lag, 0)) / kSecond;
  return static_cast<std::size_t>(std::lower_bound(kBounds.begin(), kBounds.end(), seconds) - kBounds.begin());
}

Nanos next_probe_due(Nanos due, Nanos now, Nanos period) {
  const Nanos next = due + period;
  return next > now ? next : now + period;
}

void LoopLagHistogram::record(Nanos lag) {
  buckets_[bucket_of(lag)].add();
  count_.add();
  sum_ns_.add(static_cast<std::uint64_t>(std::max<Nanos>(lag, 0)));
}

}  // namespace stampede::target
