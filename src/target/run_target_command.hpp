#pragma once
// `stampede target`: serves until SIGINT or SIGTERM, then stops gracefully and writes the
// truth to --truth-out. Returns the process exit status (0 ok, 1 the truth file could not
// be written, 2 the server could not start).
#include "target/target_options.hpp"

namespace stampede::target {

int run_target_command(const TargetOptions& options);

}  // namespace stampede::target
