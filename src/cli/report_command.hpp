#pragma once
// `stampede report results.json --html report.html`: the HTML report of a run, made
// later from its saved results file (the same page `stampede run --html` writes).
#include <string>

namespace stampede::cli {

struct ReportArgs {
  std::string results;  // a results file written by `stampede run --out`
  std::string html;     // where to write the report
};

// Returns 0 when the report was written, 2 when the results file cannot be read or the
// report cannot be written (the reason is on stderr).
int report_command(const ReportArgs& args);

}  // namespace stampede::cli
