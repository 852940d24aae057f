#include "report/progress_line.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "metrics/names.hpp"
#include "report/text_columns.hpp"
#include "report/units.hpp"

namespace stampede::report {

namespace {

// The metric's data in this second, or nullptr when it recorded nothing.
const metrics::MetricData* in_second(const metrics::Snapshot& second, const metrics::Registry& registry,
                                     std::string_view name) {
  metrics::MetricId id = 0;
  if (!registry.find(name, id) || id >= second.metrics.size()) return nullptr;
  const metrics::MetricData& data = second.metrics[id];
  return data.present ? &data : nullptr;
}

std::uint64_t count_in(const metrics::Snapshot& second, const metrics::Registry& registry,
                       std::string_view name) {
  const metrics::MetricData* data = in_second(second, registry, name);
  return data != nullptr ? data->count : 0;
}

// What `--server-metrics` scraped (and its failed scrapes): the server's figures, not the
// scenario's traffic, which is all the progress line speaks of.
bool is_server_series(std::string_view name) { return name.starts_with("server."); }

// The clients' error counters (http.request.errors, ws.connect.errors, channel.*.errors,
// live.*.errors): every `*.errors` counter but iteration.errors, as `stampede compare` reads them.
bool is_request_errors(const metrics::Registry& registry, metrics::MetricId id) {
  if (registry.kind(id) != metrics::Kind::Counter) return false;
  const std::string name = registry.name(id);
  return name.ends_with(".errors") && name != metrics::names::kIterationErrors && !is_server_series(name);
}

}  // namespace

void ProgressTotals::add(const metrics::Snapshot& second, const metrics::Registry& registry) {
  errors += count_in(second, registry, metrics::names::kIterationErrors);
  dropped += count_in(second, registry, metrics::names::kDroppedIterations);
  for (metrics::MetricId id = 0; id < second.metrics.size(); ++id) {
    const metrics::MetricData& data = second.metrics[id];
    if (data.present && data.count > 0 && is_request_errors(registry, id)) request_errors += data.count;
  }
}

ProgressFigures progress_figures(const metrics::Snapshot& second, const metrics::Registry& registry,
                                 const ProgressTotals& totals, Nanos total) {
  ProgressFigures f;
  f.elapsed = (second.second + 1) * kSecond;
  f.total = total;
  if (const auto* vus = in_second(second, registry, metrics::names::kVus)) f.vus = vus->gauge_last;
  f.iterations_per_second = static_cast<double>(count_in(second, registry, metrics::names::kIterations));
  f.errors = totals.errors;
  f.request_errors = totals.request_errors;
  f.dropped = totals.dropped;

  std::uint64_t busiest = 0;
  for (metrics::MetricId id = 0; id < second.metrics.size(); ++id) {
    const metrics::Histogram& h = second.metrics[id].histogram;
    if (h.count() == 0 || registry.kind(id) != metrics::Kind::Timing) continue;
    std::string name = registry.name(id);
    // The generator's own timings (its loop probe) and the server's are not the scenario's traffic.
    if (name.starts_with('_') || name.starts_with("generator.") || is_server_series(name)) continue;
    if (h.count() > busiest || (h.count() == busiest && name < f.busiest_timing)) {
      busiest = h.count();
      f.busiest_timing = std::move(name);
      f.busiest_p95 = h.percentile(95);
    }
  }
  return f;
}

std::string format_progress(const ProgressFigures& f) {
  std::string clock;
  if (f.total > 0) {
    const std::string total = format_clock(f.total);
    clock = fmt::format("{} / {}", align_right(format_clock(f.elapsed), display_width(total)), total);
  } else {
    clock = format_clock(f.elapsed);
  }
  std::string line = fmt::format("[{}] vus {}  it/s {:.1f}  errors {}  req errors {}  dropped {}", clock,
                                 format_number(f.vus), f.iterations_per_second, f.errors, f.request_errors,
                                 f.dropped);
  if (!f.busiest_timing.empty()) {
    line += fmt::format("  {} p95 {}", f.busiest_timing, format_nanos(f.busiest_p95));
  }
  return line;
}

ProgressStyle progress_style_for(int fd) {
  const char* term = std::getenv("TERM");
  const bool dumb = term != nullptr && std::strcmp(term, "dumb") == 0;
  return ::isatty(fd) == 1 && !dumb ? ProgressStyle::RedrawInPlace : ProgressStyle::LinePerUpdate;
}

std::string progress_frame(std::string_view line, ProgressStyle style) {
  if (style == ProgressStyle::RedrawInPlace) return fmt::format("\r\x1b[K{}", line);
  return fmt::format("{}\n", line);
}

std::string progress_end(ProgressStyle style) {
  return style == ProgressStyle::RedrawInPlace ? "\n" : "";
}

}  // namespace stampede::report
