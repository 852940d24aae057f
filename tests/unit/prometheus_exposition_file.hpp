#pragma once
// Reads one body of tests/vectors/prometheus-expositions/ (real /metrics responses, see the
// README there). Shared by the parser's tests (proto/) and the server series' (clients/).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "test_paths.hpp"

namespace stampede::testing {

inline std::string read_exposition_vector(std::string_view file_name) {
  const auto path =
      stampede::testing::tests_dir() / "vectors/prometheus-expositions" / std::string(file_name);
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("missing exposition vector " + path.string());
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace stampede::testing
