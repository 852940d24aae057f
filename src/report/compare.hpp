#pragma once
// `stampede compare base.json current.json`: what changed between two runs, figure by
// figure, and whether anything got slower than allowed.
//
// Judged (a regression when worse by more than `max_regression_percent`, N below):
//   - p50, p95 and p99 of every timing with samples in both runs (higher is slower),
//   - throughput: iterations per second (lower is slower),
//   - errors, in points rather than percent (a change from 0% has no relative size):
//     the iteration error rate (iterations that raised, per finished iteration) and every
//     `*.errors` counter per finished iteration (`http.request.errors`, `ws.connect.errors`,
//     ...: a request can fail without its iteration raising) are regressions when they
//     rise by more than N per 100 iterations, e.g. 0% -> 11% with N = 10. A counter absent
//     from a run counted nothing there.
// Shown, not judged: iteration.lag and generator.*, which measure the generator's own
// scheduling rather than the application.
// A metric recorded in only one of the runs is listed as such, never silently dropped.
// Scenarios pair up by name; two files with one scenario each pair up whatever the names.
#include <optional>
#include <string>
#include <vector>

#include "report/run_result.hpp"

namespace stampede::report {

// Ratio: a share (0.25 is 25%); PerIteration: errors per finished iteration.
enum class FigureUnit { Nanos, PerSecond, Ratio, PerIteration };

struct FigureChange {
  std::string metric;  // "http.request", "iterations", "iteration.errors", "http.request.errors"
  std::string figure;  // "p50", "p95", "p99", "rate/s", "error rate", "per iteration"
  FigureUnit unit = FigureUnit::Nanos;
  double base = 0;
  double current = 0;
  // (current - base) / base in percent; empty when base is 0 (no relative size).
  std::optional<double> change_percent;
  bool judged = false;      // counts toward the verdict
  bool regression = false;  // judged and worse by more than allowed (percent, or points for errors)

  bool is_error_figure() const { return unit == FigureUnit::Ratio || unit == FigureUnit::PerIteration; }
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

  std::size_t regressions() const;         // every judged figure worse than allowed: exit 1 when any
  std::size_t slower() const;              // ... of them timings and throughput
  std::size_t more_errors() const;         // ... of them error figures
};

Comparison compare_runs(const RunResult& base, const RunResult& current, double max_regression_percent,
                        std::string base_label, std::string current_label);

enum class CompareFormat { Text, Markdown };

// The comparison as a table per scenario, the lists of metrics in one run only, and the
// verdict: "no figure more than 10% slower" or "2 figures more than 10% slower", then, when
// errors rose, a line naming each error figure that rose by more than allowed.
std::string render_comparison(const Comparison& comparison, CompareFormat format);

}  // namespace stampede::report
