#pragma once
// ASCII character rules shared by the codecs (HTTP text, cookies, forms, durations, the
// Prometheus text format, Socket.IO): locale-free, unlike <cctype>. One definition each, where
// several files had their own copy and a unity build (docs/design/023) compiles them as one
// translation unit. http_text.hpp re-exports ascii_lower and iequals.
#include <algorithm>
#include <string>
#include <string_view>

namespace stampede::proto::ascii {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

inline std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

// 0-15 for a hex digit of either case, -1 for anything else.
inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace stampede::proto::ascii
