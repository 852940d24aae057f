#pragma once
#include <stdexcept>

namespace stampede::scenario {

// A scenario that cannot run as written (syntax error, missing `run`, bad option). The
// message names the file, the line where known, and what was expected. Exit status 2.
struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace stampede::scenario
