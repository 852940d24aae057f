#pragma once
// +Inf, the top bucket bound of a Prometheus histogram, for the tests that write bounds: one
// definition, where each test file had its own and a unity build (docs/design/023) compiles
// several of them as one translation unit.
#include <limits>

namespace stampede::testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace stampede::testing
