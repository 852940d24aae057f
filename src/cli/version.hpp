#pragma once
#include <string>

namespace stampede::cli {
std::string version_line();     // "stampede 0.1.0 (abc1234)"
std::string version_details();  // version, commit, build type, compiler, library versions
std::string version_number();   // "0.1.0"
std::string version_commit();   // "abc1234", or "unknown"
}  // namespace stampede::cli
