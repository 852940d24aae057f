#include "cli/report_command.hpp"

#include <cstdio>

#include "cli/result_files.hpp"
#include "cli/results_file.hpp"
#include "report/html_report.hpp"

namespace stampede::cli {

int report_command(const ReportArgs& args) {
  const auto run = read_results_file(args.results);
  if (!run) return 2;
  std::string error;
  if (!write_text_file(args.html, report::html_report(*run), error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 2;
  }
  return 0;
}

}  // namespace stampede::cli
