#pragma once
// Reads a results file (report/json_results.hpp) back into a RunResult, for `stampede
// compare` and for reports made after the run. Whatever the writer writes reads back to
// the same figures (timings to the nanosecond).
#include <stdexcept>
#include <string_view>

#include "report/run_result.hpp"

namespace stampede::report {

// What is wrong with a file that is not a results file we can read, e.g.
// "results[0].metrics[\"http.request\"].p95_ms: expected a number or null".
class ResultsFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ResultsFormatError for text that is not JSON, a file of another schema version,
// or a field missing or of the wrong type.
RunResult read_results_json(std::string_view text);

}  // namespace stampede::report
