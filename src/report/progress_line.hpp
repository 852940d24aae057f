#pragma once
// The once-a-second progress line on stderr:
//   [  12s / 1m30s] vus 500  it/s 812.0  errors 3  req errors 1204  dropped 0  http.request p95 31.90ms
// Figures come from the second just merged, except the errors and dropped iterations, which
// are totals since the start. `errors` are failed iterations (iteration.errors); `req errors`
// failed requests of every client (the *.errors counters: http.request.errors with its
// statuses >= 400, ws/channel/live errors), two figures of their own because a refused
// request need not fail its iteration, and one that does would otherwise count twice. With
// iteration errors alone, a run against a target that refuses everything read "errors 0"
// until the summary. On a terminal the line is redrawn in place; otherwise (CI logs, a pipe)
// each update is a line of its own.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::report {

// Run totals the line shows, accumulated from each merged second.
struct ProgressTotals {
  std::uint64_t errors = 0;   // metrics::names::kIterationErrors
  std::uint64_t dropped = 0;  // metrics::names::kDroppedIterations
  std::uint64_t request_errors = 0;  // every other `*.errors` counter: the clients'
  void add(const metrics::Snapshot& second, const metrics::Registry& registry);
};

struct ProgressFigures {
  Nanos elapsed = 0;
  Nanos total = 0;  // 0 or less: the run has no planned end
  double vus = 0;
  double iterations_per_second = 0;
  std::uint64_t errors = 0;
  std::uint64_t request_errors = 0;
  std::uint64_t dropped = 0;
  std::string busiest_timing;  // the timing with the most samples this second; empty if none
  Nanos busiest_p95 = 0;
};

// `totals` should already include `second`.
ProgressFigures progress_figures(const metrics::Snapshot& second, const metrics::Registry& registry,
                                 const ProgressTotals& totals, Nanos total);
std::string format_progress(const ProgressFigures& figures);

enum class ProgressStyle {
  RedrawInPlace,  // a terminal: "\r\x1b[K" then the line, no newline
  LinePerUpdate,  // anything else: the line and a newline
};
// RedrawInPlace when `fd` is a terminal that understands escape codes (TERM is not "dumb").
ProgressStyle progress_style_for(int fd);
// The bytes to write for one update.
std::string progress_frame(std::string_view line, ProgressStyle style);
// The bytes to write after the last update (a terminal's cursor is still on the line).
std::string progress_end(ProgressStyle style);

}  // namespace stampede::report
