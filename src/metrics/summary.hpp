#pragma once
// Metrics merged over a span of seconds: the whole run (the Collector's running summary)
// or a window of it (a find-limit step). Indexed by MetricId, like a Snapshot.
#include <cstdint>
#include <vector>

#include "metrics/metric_sink.hpp"

namespace stampede::metrics {

struct Summary {
  // The earliest and latest second merged in; the summary is empty while last < first.
  std::int64_t first_second = 0;
  std::int64_t last_second = -1;
  std::vector<MetricData> metrics;
  RequestTally requests;

  bool empty() const { return last_second < first_second; }
  // Merges one (already worker-merged) second in. Timings merge histograms, counters and
  // checks add, gauges keep their highest value and the value of the latest second: a
  // second older than one already added (late data) raises the maximum only.
  void add(const Snapshot& second);
};

}  // namespace stampede::metrics
