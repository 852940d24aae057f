#pragma once
// Held while a scenario's summary block goes to stdout, so the blocks of scenarios run with
// --parallel never interleave.
#include <mutex>

namespace stampede::cli {

inline std::mutex& summary_lock() {
  static std::mutex m;
  return m;
}

}  // namespace stampede::cli
