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
  return bytes ? ValueUnit::Bytes : ValueUnit::Number;
}

inline const char* unit_name(ValueUnit unit) { return unit == ValueUnit::Bytes ? "bytes" : "number"; }

}  // namespace stampede::metrics
