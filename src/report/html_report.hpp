#pragma once
// `--html report.html` and `stampede report results.json --html report.html`: one file
// that needs nothing else (no network, no files beside it) with the summary, thresholds,
// checks, errors and the charts over time of every scenario of a run.
#include <string>

#include "report/run_result.hpp"

namespace stampede::report {

// The page embeds the run's results file (json_results.hpp) and draws it: a report made
// later from a saved file is the same as the one made at the end of the run.
std::string html_report(const RunResult& run);

}  // namespace stampede::report
