#pragma once
// Names of the metrics the engine records for every run, shared by the engine (which
// records them) and the reports (which single them out, e.g. on the progress line).
// Names starting with '_' are internal: recorded, but hidden from the summary.
#include <string_view>

namespace stampede::metrics::names {

inline constexpr std::string_view kVus = "vus";                             // Gauge: live VUs
inline constexpr std::string_view kIterations = "iterations";               // Counter: finished, ok or not
inline constexpr std::string_view kIterationErrors = "iteration.errors";    // Counter: failed, by reason
inline constexpr std::string_view kDroppedIterations = "iterations.dropped";  // Counter: due but not started
inline constexpr std::string_view kIterationLag = "iteration.lag";          // Timing: open model, late starts
inline constexpr std::string_view kVuCrashes = "vu.crashes";                // Counter: engine faults, by reason

}  // namespace stampede::metrics::names
