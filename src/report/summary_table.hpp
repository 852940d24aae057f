#pragma once
// The end-of-run summary for the terminal:
//
//   Demo.Api ran for 10.0s
//   metric        count  rate/s     mean      p50      p90      p95      p99      max errors
//   http.request    100   10.00  16.72ms   5.49ms  18.59ms  31.91ms  97.75ms 103.81ms     12
//     refused  9
//     timeout  2
//   vus           max 500  last 0
//   ws.connect        4    0.40 850.00µs 850.00µs 850.00µs 850.00µs 850.00µs 850.00µs      0
//   (14 metrics with nothing recorded not shown: --summary all lists every one)
//   requests: 6000 sent, 5990 completed, 8 failed, 2 in flight at the end
//   window: 0.0s to 10.0s
//   checks
//     status is 200    99.00%  (99 / 100)
//   iteration errors
//     9  connection refused
//     2  unexpected status 500
//   thresholds
//   pass http.request p95 <= 250.00ms (31.91ms)
//   fail http.request.errors count <= 0 (12)
//
// Metrics are sorted by name and internal ones ('_' prefix) hidden; so are those with
// nothing recorded, unless a threshold names them or the model asks for all. A timing's
// "<name>.errors" counter is its row's last column, its reasons under it. Numeric columns
// are right-aligned; a section with nothing to show is left out.
#include <string>

#include "report/summary_model.hpp"

namespace stampede::report {

// Every line ends with '\n'.
std::string render_summary_table(const SummaryModel& model);

}  // namespace stampede::report
