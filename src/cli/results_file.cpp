#include "cli/results_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "report/json_results_reader.hpp"

namespace stampede::cli {

std::optional<report::RunResult> read_results_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read %s: %s\n", path.c_str(), std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return report::read_results_json(text.str());
  } catch (const report::ResultsFormatError& e) {
    std::fprintf(stderr, "error: %s is not a Stampede results file: %s\n", path.c_str(), e.what());
    return std::nullopt;
  }
}

}  // namespace stampede::cli
