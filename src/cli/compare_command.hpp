#pragma once
// `stampede compare base.json current.json --max-regression 10 [--format text|markdown]`
#include <string>

namespace stampede::cli {

struct CompareArgs {
  std::string base;     // results file of the reference run (e.g. main)
  std::string current;  // results file of the run under test (e.g. a branch)
  double max_regression = 10;  // percent
  std::string format = "text";  // "text" or "markdown"
};

// Prints the comparison on stdout. Returns 0 when nothing got slower than allowed, 1 when
// something did, 2 when a file cannot be read or is not a results file.
int compare_command(const CompareArgs& args);

}  // namespace stampede::cli
