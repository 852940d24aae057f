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

// The kind of a built-in metric, and of the per-name request rows `http.request.<name>`
// (timings: the HTTP client records nothing else under that prefix); nothing for any other
// name (a scenario's own metrics).
std::optional<Kind> builtin_kind(std::string_view name);

// The built-in metric within two edits of `name` (a typo: "http.requests", "ws.jion"), for
// a "did you mean" when a threshold's metric was never recorded; empty when there is none
// or `name` is one.
std::string_view nearest_builtin(std::string_view name);

}  // namespace stampede::metrics
