#include "metrics/builtin_metrics.hpp"

#include <algorithm>
#include <vector>

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

// The rows `http.get(url, {name = "login"})` records: always timings, whatever the name
// (http.request.errors, in the table above, is found first).
constexpr std::string_view kNamedRequestPrefix = "http.request.";

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`, stopping at
// `limit` + 1: names are short and only near misses matter.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return limit + 1;
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return std::min(d[a.size()][b.size()], limit + 1);
}

}  // namespace

std::optional<Kind> builtin_kind(std::string_view name) {
  for (const Builtin& b : kBuiltins) {
    if (b.name == name) return b.kind;
  }
  if (name.size() > kNamedRequestPrefix.size() && name.substr(0, kNamedRequestPrefix.size()) == kNamedRequestPrefix)
    return Kind::Timing;
  return std::nullopt;
}

std::string_view nearest_builtin(std::string_view name) {
  constexpr std::size_t kMostEdits = 2;
  std::string_view best;
  std::size_t best_distance = kMostEdits + 1;
  for (const Builtin& b : kBuiltins) {
    const std::size_t d = edit_distance(name, b.name, kMostEdits);
    if (d == 0) return {};
    // "http.request.ab" is the row of requests named "ab", not a typo of "http.request".
    if (name.size() > b.name.size() && name.substr(0, b.name.size()) == b.name && name[b.name.size()] == '.') continue;
    if (d < best_distance) {
      best = b.name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace stampede::metrics
