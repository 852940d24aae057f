#pragma once
// A run's metrics by name, sorted by name: the form that thresholds, reports and other
// processes work with. MetricIds mean something only inside one Registry (two MPI ranks
// intern names in different orders); names are stable everywhere.
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_sink.hpp"
#include "metrics/summary.hpp"

namespace stampede::metrics {

struct NamedMetric {
  std::string name;
  Kind kind = Kind::Counter;
  MetricData data;  // data.present is false for a metric registered but never recorded
};

using MetricTable = std::vector<NamedMetric>;

// Every metric the registry knows, recorded or not (a counter that never fired is a
// zero, not an unknown name), sorted by name.
MetricTable make_metric_table(const Summary& summary, const Registry& registry);

// nullptr when the table has no metric of that name (the table need not be sorted).
const NamedMetric* find_metric(const MetricTable& table, std::string_view name);

}  // namespace stampede::metrics
