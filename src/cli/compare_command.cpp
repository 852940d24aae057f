#include "cli/compare_command.hpp"

#include <cstdio>
#include <filesystem>

#include "cli/results_file.hpp"
#include "report/compare.hpp"

namespace stampede::cli {

int compare_command(const CompareArgs& args) {
  const auto base = read_results_file(args.base);
  const auto current = read_results_file(args.current);
  if (!base || !current) return 2;
  // Files are named as the user named them on the command line, except when both have
  // the same name (main/results.json vs branch/results.json): then in full.
  std::string base_label = std::filesystem::path(args.base).filename().string();
  std::string current_label = std::filesystem::path(args.current).filename().string();
  if (base_label == current_label) {
    base_label = args.base;
    current_label = args.current;
  }
  const report::Comparison comparison =
      report::compare_runs(*base, *current, args.max_regression, base_label, current_label);
  const auto format = args.format == "markdown" ? report::CompareFormat::Markdown : report::CompareFormat::Text;
  std::fputs(report::render_comparison(comparison, format).c_str(), stdout);
  return comparison.regressions() > 0 ? 1 : 0;
}

}  // namespace stampede::cli
