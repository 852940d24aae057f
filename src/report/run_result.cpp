#include "report/run_result.hpp"

#include <algorithm>

namespace stampede::report {

bool ScenarioResult::passed() const {
  // A find-limit run passes when it found a level that held (its thresholds are those of
  // the step that decided it: find_limit_table.hpp, verdict_step).
  if (find_limit) return find_limit->limit.has_value();
  return std::all_of(thresholds.begin(), thresholds.end(), [](const auto& t) { return t.pass; });
}

bool RunResult::passed() const {
  return std::all_of(results.begin(), results.end(), [](const ScenarioResult& r) { return r.passed(); });
}

const MetricFigures* find_figures(const std::vector<MetricFigures>& metrics, std::string_view name) {
  for (const MetricFigures& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace stampede::report
