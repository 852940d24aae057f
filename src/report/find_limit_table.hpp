#pragma once
// The terminal's view of a find-limit run and of the generator's health:
//
//   limit
//   Held 3,000 VUs; 4,000 VUs broke http.request p95 <= 50.00ms (87.30ms)
//   VUs     http.request p95  iteration.errors count  status
//   1,000             2.67ms                       0  pass
//   ...
//
//   generator: cpu 45% (busiest thread, peak 61%), loop delay p99 0.31ms, open files 24 / 20,000
//   inconclusive: Stampede used 98% of its CPU at 14,000 VUs; latency at this load ...
#include <string>

#include "report/find_limit_result.hpp"
#include "report/run_result.hpp"

namespace stampede::report {

// "1,000": levels are read at a glance (rates keep two decimals when they have them).
std::string format_level(double level);
// "3,000 VUs", "250 iterations/s".
std::string format_load(double level, bool by_rate);

// Every line ends with '\n'.
std::string render_find_limit(const FindLimitResult& result);
// `polling`: the workers ran under --cpu-policy poll, so the CPU figure is their work with
// their empty polls left out (their cores read busy throughout): the line says so.
std::string render_generator_line(const GeneratorFigures& figures, bool polling = false);

// What --badge says for a find-limit run: "limit 4,000 VUs" (one per scenario that searched,
// joined by " · "), "limit ≥ 4,000 VUs" when that was the most it was asked to try (the
// limit is higher, or unknown), "no level held", or "" for a run without --find-limit.
std::string limit_badge_text(const RunResult& run);

// The first broken threshold of a step, as "metric aggregation <= limit (value)".
std::string first_broken(const FindLimitStep& step);

// The step whose thresholds stand for the run's verdict (docs/design/012): when a level
// held, the step at the limit (every threshold passed there: the run passes); when none
// did, the lowest level that did not hold (what broke there, or where the generator became
// the bottleneck: the run fails). nullptr when no step was judged. A find-limit run's
// `thresholds` (results file, JUnit, HTML report) are this step's.
const FindLimitStep* verdict_step(const FindLimitResult& result);

}  // namespace stampede::report
