#include "metrics/builtin_metrics.hpp"

#include "metrics/generator_health.hpp"
#include "metrics/names.hpp"

namespace stampede::metrics {

namespace {

struct Builtin {
  std::string_view name;
  Kind kind;
};

// tests/integration/test_thresholds_and_errors.py checks these against the kinds a run that
// uses every client records, so the table cannot drift from the code that records them.
constexpr Builtin kBuiltins[] = {
    {names::kVus, Kind::Gauge},
    {names::kIterations, Kind::Counter},
    {"iteration", Kind::Timing},
    {names::kIterationErrors, Kind::Counter},
    {names::kDroppedIterations, Kind::Counter},
    {names::kIterationLag, Kind::Timing},
    {"vu.crashes", Kind::Counter},
    {names::kGeneratorCpu, Kind::Gauge},
    {names::kGeneratorLoopDelay, Kind::Timing},
    {names::kGeneratorFds, Kind::Gauge},
    {"http.request", Kind::Timing},
    {"http.request.errors", Kind::Counter},
    {"ws.connect", Kind::Timing},
    {"ws.connect.errors", Kind::Counter},
    {"ws.disconnects", Kind::Counter},
    {"ws.messages", Kind::Counter},
    {"ws.messages.sent", Kind::Counter},
    {"channel.join", Kind::Timing},
    {"channel.join.errors", Kind::Counter},
    {"channel.push", Kind::Timing},
    {"channel.push.errors", Kind::Counter},
    {"channel.leave", Kind::Timing},
    {"channel.leave.errors", Kind::Counter},
    {"channel.messages", Kind::Counter},
    {"channel.messages.dropped", Kind::Counter},
    {"channel.heartbeat", Kind::Timing},
    {"channel.heartbeat.timeouts", Kind::Counter},
    {"live.page", Kind::Timing},
    {"live.page.errors", Kind::Counter},
    {"live.join", Kind::Timing},
    {"live.join.errors", Kind::Counter},
    {"live.event", Kind::Timing},
    {"live.event.errors", Kind::Counter},
    {"live.patch", Kind::Timing},
    {"live.patch.errors", Kind::Counter},
    {"live.navigate", Kind::Timing},
    {"live.navigate.errors", Kind::Counter},
    {"live.upload", Kind::Timing},
    {"live.upload.errors", Kind::Counter},
    {"live.diff.bytes", Kind::Distribution},
    {"live.diff.bytes.total", Kind::Counter},
};

}  // namespace

std::optional<Kind> builtin_kind(std::string_view name) {
  for (const Builtin& b : kBuiltins) {
    if (b.name == name) return b.kind;
  }
  return std::nullopt;
}

}  // namespace stampede::metrics
