#pragma once
// Small text rules of HTTP/1.1 (RFC 9110) shared by the request writer and both parsers.
// Inline and table-driven: they run for every byte of every header.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string_view>

namespace stampede::proto::http_text {

// tchar of RFC 9110 5.6.2.
inline constexpr std::array<bool, 256> kTokenChars = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (const char c : std::string_view("!#$%&'*+-.^_`|~")) t[static_cast<unsigned char>(c)] = true;
  return t;
}();

inline bool is_token_char(unsigned char c) { return kTokenChars[c]; }

inline bool is_token(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return is_token_char(static_cast<unsigned char>(c)); });
}

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c; }

inline bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return ascii_lower(x) == ascii_lower(y); });
}

// Optional white space (spaces and tabs) trimmed from both ends.
inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Calls `each` with every element of a comma-separated list, trimmed, empty ones skipped.
template <typename Fn>
void for_each_list_element(std::string_view list, Fn&& each) {
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto element = trim_ows(list.substr(0, comma));
    if (!element.empty()) each(element);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace stampede::proto::http_text
