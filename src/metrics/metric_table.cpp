#include "metrics/metric_table.hpp"

#include <algorithm>

namespace stampede::metrics {

MetricTable make_metric_table(const Summary& summary, const Registry& registry) {
  MetricTable table;
  const std::size_t known = registry.size();
  table.reserve(known);
  for (MetricId id = 0; id < known; ++id) {
    NamedMetric metric{registry.name(id), registry.kind(id), {}};
    if (id < summary.metrics.size()) metric.data = summary.metrics[id];
    table.push_back(std::move(metric));
  }
  std::sort(table.begin(), table.end(),
            [](const NamedMetric& a, const NamedMetric& b) { return a.name < b.name; });
  return table;
}

const NamedMetric* find_metric(const MetricTable& table, std::string_view name) {
  // A plain scan: tables hold tens of metrics, and it keeps working on a table someone
  // built by hand in another order.
  const auto it = std::find_if(table.begin(), table.end(),
                               [name](const NamedMetric& m) { return m.name == name; });
  return it != table.end() ? &*it : nullptr;
}

}  // namespace stampede::metrics
