#pragma once
// Where the tests' data lives: the source tree's tests/ folder, as the build knows it. Not
// __FILE__, which a compiler cache (ccache's base_dir) or -ffile-prefix-map makes relative to
// the compiler's working directory, not the test's.
#include <filesystem>

namespace stampede::testing {

inline std::filesystem::path tests_dir() { return STAMPEDE_TESTS_DIR; }

}  // namespace stampede::testing
