#include "cli/stopped_before_the_load.hpp"

#include <cstdio>

#include "engine/stop_signals.hpp"

namespace stampede::cli {

int say_stopped_before_the_load(const std::vector<std::string>& files, bool anything_measured) {
  if (files.empty()) return 0;
  if (!anything_measured) {
    std::fputs("interrupted before the load started: nothing was measured\n", stderr);
    return engine::kStoppedBeforeTheLoad;
  }
  for (const std::string& file : files)
    std::fprintf(stderr, "interrupted before the load of %s started: it did not run\n", file.c_str());
  return 0;
}

}  // namespace stampede::cli
