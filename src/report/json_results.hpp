#pragma once
// The results file (`stampede run --out results.json`): a RunResult as JSON, in the
// versioned shape documented by schema/results.schema.json. Timings are milliseconds
// (`*_ms`), rates per second. Checks sit apart from the other metrics ("checks"), since
// their figures are passes and fails rather than counts and percentiles.
//
//   {"version": 1, "tool": {...}, "passed": true, "results": [ {one scenario}, ... ]}
#include <string>

#include <boost/json/object.hpp>

#include "report/run_result.hpp"

namespace stampede::report {

// The whole file, one line (no trailing newline).
std::string results_json(const RunResult& run);

// One second of a timeline, as it appears in the file's "timeline" arrays.
boost::json::object second_json(const SecondResult& second);

// One line of the per-second stream (`--out-stream`): the second's object with the
// scenario's name added, and a newline.
std::string second_json_line(std::string_view scenario, const SecondResult& second);

// One judged threshold as the file writes it (also in find-limit steps).
boost::json::object threshold_result_object(const metrics::ThresholdResult& result);

// Names used in the file for enums, shared with the reader.
const char* load_model_name(LoadModel model);              // "vus", "rate"
const char* aggregation_unit_name(metrics::AggregationUnit unit);  // "ms", "count", "per_second", "ratio"

}  // namespace stampede::report
