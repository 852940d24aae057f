#pragma once
// `stampede compare base.json current.json`: what changed between two runs, figure by
// figure, and whether anything got slower than allowed.
//
// Judged (a regression when worse by more than `max_regression_percent`):
//   - p50, p95 and p99 of every timing with samples in both runs (higher is slower),
//   - throughput: iterations per second (lower is slower).
// Shown, not judged: the iteration error rate (errors per finished iteration), in
// percentage points, since a change from 0% has no meaningful relative size (thresholds
// within each run are the gate for errors); and iteration.lag, which measures the
// generator's own scheduling rather than the application.
// A metric recorded in only one of the runs is listed as such, never silently dropped.
// Scenarios pair up by name; two files with one scenario each pair up whatever the names.
#include <optional>
#include <string>
#include <vector>

#include "report/run_result.hpp"

namespace stampede::report {

enum class FigureUnit { Nanos, PerSecond, Ratio };

struct FigureChange {
  std::string metric;  // "http.request", "iterations", "iteration.errors"
  std::string figure;  // "p50", "p95", "p99", "rate/s", "error rate"
  FigureUnit unit = FigureUnit::Nanos;
  double base = 0;
  double current = 0;
  // (current - base) / base in percent; empty when base is 0 (no relative size).
  std::optional<double> change_percent;
  bool judged = false;      // counts toward the verdict
  bool regression = false;  // judged and worse by more than the allowed percentage
};

struct ScenarioComparison {
  std::string base_scenario;
  std::string current_scenario;  // the same name unless two single-scenario files were paired
  std::vector<FigureChange> changes;
  std::vector<std::string> only_in_base;     // timings with samples in the base run only
  std::vector<std::string> only_in_current;  // ... in the current run only
};

struct Comparison {
  std::string base_label;     // how the runs are named in the output, e.g. their file names
  std::string current_label;
  double max_regression_percent = 10;
  std::vector<ScenarioComparison> scenarios;
  std::vector<std::string> scenarios_only_in_base;
  std::vector<std::string> scenarios_only_in_current;

  std::size_t regressions() const;
};

Comparison compare_runs(const RunResult& base, const RunResult& current, double max_regression_percent,
                        std::string base_label, std::string current_label);

enum class CompareFormat { Text, Markdown };

// The comparison as a table per scenario, the lists of metrics in one run only, and a
// last line with the verdict.
std::string render_comparison(const Comparison& comparison, CompareFormat format);

}  // namespace stampede::report
