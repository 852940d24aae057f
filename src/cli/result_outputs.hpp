#pragma once
// Where `stampede run` writes what it measured, as the user asked (an empty path: not
// written). The files are written when the run ends, however it ends: thresholds failed,
// Ctrl-C once or twice.
#include <string>

namespace stampede::cli {

struct ResultOutputs {
  std::string json;        // --out: the results file (report/json_results.hpp)
  std::string badge;       // --badge: SVG with the verdict
  std::string junit;       // --junit: thresholds and checks as test cases
  std::string html;        // --html: the report as one page that needs nothing else (report/html_report.hpp)
  std::string stream;      // --out-stream: one JSON line per merged second, while the run goes
  std::string prometheus;  // --prometheus: address to serve live metrics on, e.g. 127.0.0.1:9464
};

}  // namespace stampede::cli
