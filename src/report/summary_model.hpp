#pragma once
// Everything the end-of-run summary says, independent of how it is written: the terminal
// table renders it, and the JSON and HTML writers can write the same model.
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"
#include "metrics/metric_table.hpp"
#include "metrics/threshold.hpp"

namespace stampede::report {

// Iterations that failed with the same error message.
struct IterationErrorGroup {
  std::string message;  // the group: what varies per connection replaced (metrics/error_group.hpp)
  std::uint64_t count = 0;
  std::string example;  // one message of the group in full; empty when it is `message` itself
};

struct SummaryModel {
  std::string scenario;
  Nanos duration = 0;  // how long the run lasted
  // The figures cover [window_start, window_end], measured from the start of the run;
  // rates are per second of this window.
  Nanos window_start = 0;
  Nanos window_end = 0;
  metrics::MetricTable metrics;  // sorted by name; names starting with '_' are internal
  metrics::RequestTally requests;
  std::vector<metrics::ThresholdResult> thresholds;  // in the order they were declared
  std::vector<IterationErrorGroup> iteration_errors;  // in any order
  // Every metric, those with nothing recorded too (`--summary all`); otherwise those are
  // left out unless a threshold names them.
  bool all_metrics = false;
};

}  // namespace stampede::report
