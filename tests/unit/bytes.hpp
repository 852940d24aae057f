#pragma once
// Bytes written as numbers, for the codec tests' frames: one definition, where each test file
// had its own and a unity build (docs/design/023) compiles several of them as one translation
// unit.
#include <initializer_list>
#include <string>

namespace stampede::testing {

inline std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (const int v : values) out += static_cast<char>(v);
  return out;
}

}  // namespace stampede::testing
