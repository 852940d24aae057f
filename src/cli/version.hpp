#pragma once
#include <string>

namespace stampede::cli {
std::string version_line();     // "stampede 0.1.0 (abc1234)"
std::string version_details();  // version, commit, build type, compiler, library versions
}  // namespace stampede::cli
