#pragma once
// Small text rules of HTTP/1.1 (RFC 9110) shared by the request writer and both parsers.
// Inline and table-driven: they run for every byte of every header.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

#include "proto/ascii.hpp"

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

using ascii::ascii_lower;
using ascii::iequals;

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

// The end of a head (just past the empty line: "\n\n" or "\n\r\n"), or npos while it has not
// fully arrived. Bare LF line ends are accepted as RFC 9112 2.2 allows. Scanning starts at
// `from`, which must be at or before any '\n' that could begin the terminator.
inline std::size_t find_head_end(std::string_view data, std::size_t from) {
  while (from < data.size()) {
    const void* hit = std::memchr(data.data() + from, '\n', data.size() - from);
    if (hit == nullptr) return std::string_view::npos;
    const auto lf = static_cast<std::size_t>(static_cast<const char*>(hit) - data.data());
    if (lf + 1 < data.size() && data[lf + 1] == '\n') return lf + 2;
    if (lf + 2 < data.size() && data[lf + 1] == '\r' && data[lf + 2] == '\n') return lf + 3;
    from = lf + 1;
  }
  return std::string_view::npos;
}

}  // namespace stampede::proto::http_text
