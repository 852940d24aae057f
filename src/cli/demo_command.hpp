#pragma once
#include "common/clock.hpp"

namespace stampede::cli {
// `stampede demo`: starts the built-in target in this process and load tests it with a
// scenario that shows every part of a run (checks, custom metrics, thresholds).
int demo_command(Nanos duration);
}  // namespace stampede::cli
