// The unit of a Distribution metric's values. It comes from the metric's name, the way
// Prometheus names carry their base unit ("_bytes"), so a scenario's own metrics get it too
// without a registry of units that every layer (wire format, JSON, dashboard) would carry.
#pragma once

#include <string_view>

namespace stampede::metrics {

enum class ValueUnit { Bytes, Number };

inline ValueUnit distribution_unit(std::string_view metric_name) {
  constexpr std::string_view kBytes = ".bytes";
  const bool bytes = metric_name.size() >= kBytes.size() &&
                     metric_name.substr(metric_name.size() - kBytes.size()) == kBytes;
  if (bytes) return ValueUnit::Bytes;
  // A server series (`--server-metrics`) keeps its Prometheus name: its family, before any
  // labels, ends in "_bytes" (phoenix_http_response_size_bytes{route="/"}).
  constexpr std::string_view kServer = "server.";
  constexpr std::string_view kPrometheusBytes = "_bytes";
  if (metric_name.substr(0, kServer.size()) == kServer) {
    const std::string_view family = metric_name.substr(0, metric_name.find('{'));
    if (family.size() >= kPrometheusBytes.size() &&
        family.substr(family.size() - kPrometheusBytes.size()) == kPrometheusBytes)
      return ValueUnit::Bytes;
  }
  return ValueUnit::Number;
}

inline const char* unit_name(ValueUnit unit) { return unit == ValueUnit::Bytes ? "bytes" : "number"; }

}  // namespace stampede::metrics
