#pragma once
// The kinds of the metrics Stampede itself records under fixed names (the engine's, the
// generator's and the clients'; docs/reference/metrics.md). Knowing them before a run lets a
// threshold that cannot apply (`{"iteration.errors", p95 = 1}`: a counter has no p95) be a
// usage error at once, instead of a failure reported after the whole load has run.
// A scenario's own metrics get their kind when first recorded, so theirs is judged after.
#include <optional>
#include <string_view>

#include "metrics/metric_sink.hpp"

namespace stampede::metrics {

// The kind of a built-in metric; nothing for any other name (custom metrics, and the
// per-name timings such as `http.request.<name>`, whose names are the user's).
std::optional<Kind> builtin_kind(std::string_view name);

}  // namespace stampede::metrics
