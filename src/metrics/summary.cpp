#include "metrics/summary.hpp"

#include <algorithm>

namespace stampede::metrics {

void Summary::add(const Snapshot& second) {
  const bool latest = empty() || second.second >= last_second;
  if (empty()) {
    first_second = last_second = second.second;
  } else {
    first_second = std::min(first_second, second.second);
    last_second = std::max(last_second, second.second);
  }
  if (metrics.size() < second.metrics.size()) metrics.resize(second.metrics.size());
  for (std::size_t i = 0; i < second.metrics.size(); ++i) {
    MetricData& into = metrics[i];
    const bool had_gauge = into.present;
    const double kept_last = into.gauge_last;
    into.merge_sequential(second.metrics[i]);
    if (!latest && had_gauge) into.gauge_last = kept_last;
  }
  requests.merge(second.requests);
}

}  // namespace stampede::metrics
