#include "report/run_result.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace stampede::report {

bool ScenarioResult::passed() const {
  if (!lost_ranks.empty()) return false;
  // A find-limit run passes when it found a level that held (its thresholds are those of
  // the step that decided it: find_limit_table.hpp, verdict_step).
  if (find_limit) return find_limit->limit.has_value();
  return std::all_of(thresholds.begin(), thresholds.end(), [](const auto& t) { return t.pass; });
}

std::string ScenarioResult::verdict() const {
  if (!lost_ranks.empty()) return "rank lost";
  return passed() ? "passed" : "failed";
}

std::string ScenarioResult::reason() const {
  if (!lost_ranks.empty()) {
    const LostRank& first = lost_ranks.front();
    std::string why = fmt::format("rank {} was lost {:.1f} s into the run ({})", first.rank,
                                  static_cast<double>(first.at) / kSecond, first.reason);
    if (lost_ranks.size() > 1) why += fmt::format(", and {} more", lost_ranks.size() - 1);
    return why + "; the figures hold what was measured until then, without its share of the load after it";
  }
  if (find_limit) return find_limit->verdict;
  const auto failed = std::count_if(thresholds.begin(), thresholds.end(), [](const auto& t) { return !t.pass; });
  if (thresholds.empty()) return "no thresholds";
  if (failed == 0) return fmt::format("every threshold passed ({})", thresholds.size());
  return fmt::format("{} of {} thresholds failed", failed, thresholds.size());
}

bool RunResult::passed() const {
  return complete && std::all_of(results.begin(), results.end(), [](const ScenarioResult& r) { return r.passed(); });
}

std::string RunResult::verdict() const {
  if (!complete) return "incomplete";
  for (const ScenarioResult& r : results)
    if (!r.passed()) return r.verdict();
  return "passed";
}

std::string RunResult::reason() const {
  if (!complete) return incomplete_reason;
  for (const ScenarioResult& r : results)
    if (!r.passed()) return results.size() > 1 ? fmt::format("{}: {}", r.scenario, r.reason()) : r.reason();
  return results.size() == 1 ? results.front().reason() : fmt::format("every scenario passed ({})", results.size());
}

const MetricFigures* find_figures(const std::vector<MetricFigures>& metrics, std::string_view name) {
  for (const MetricFigures& m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace stampede::report
