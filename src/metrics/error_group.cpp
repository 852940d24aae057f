#include "metrics/error_group.hpp"

#include <algorithm>
#include <cstddef>

namespace stampede::metrics {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_alpha(char c) { return is_lower(c) || is_upper(c); }
bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// Characters of base64, base64url and hex tokens ('=' only as padding, at the end).
bool is_token_char(char c) { return is_alnum(c) || c == '+' || c == '/' || c == '_' || c == '-'; }

std::size_t digits_from(std::string_view s, std::size_t at) {
  std::size_t n = 0;
  while (at + n < s.size() && is_digit(s[at + n])) ++n;
  return n;
}

// An IPv4 address at `at` (four groups of 1-3 digits), with ":port" if one follows; its
// length, or 0.
std::size_t ipv4_at(std::string_view s, std::size_t at) {
  std::size_t i = at;
  for (int group = 0; group < 4; ++group) {
    if (group > 0) {
      if (i >= s.size() || s[i] != '.') return 0;
      ++i;
    }
    const std::size_t n = digits_from(s, i);
    if (n == 0 || n > 3) return 0;
    i += n;
  }
  if (i < s.size() && (is_alnum(s[i]) || (s[i] == '.' && i + 1 < s.size() && is_digit(s[i + 1])))) return 0;
  if (i + 1 < s.size() && s[i] == ':' && is_digit(s[i + 1])) i += 1 + digits_from(s, i + 1);
  return i - at;
}

// A bracketed IPv6 address at `at` ("[::1]", "[fe80::1]:4000"); its length, or 0.
std::size_t ipv6_at(std::string_view s, std::size_t at) {
  std::size_t i = at + 1;
  std::size_t colons = 0;
  while (i < s.size() && (is_hex(s[i]) || s[i] == ':' || s[i] == '.')) colons += s[i++] == ':';
  if (i >= s.size() || s[i] != ']' || colons < 2) return 0;
  ++i;
  if (i + 1 < s.size() && s[i] == ':' && is_digit(s[i + 1])) i += 1 + digits_from(s, i + 1);
  return i - at;
}

bool followed_by_bytes(std::string_view s, std::size_t end) {
  const std::string_view rest = s.substr(end);
  for (std::string_view unit : {std::string_view(" bytes"), std::string_view(" B")}) {
    if (rest.substr(0, unit.size()) == unit && (rest.size() == unit.size() || !is_alnum(rest[unit.size()])))
      return true;
  }
  return false;
}

// A number that names a request, a message or an object ("ref 12", "id=7", "#3"): one per
// request, so it varies however short it is.
bool names_a_request(std::string_view s, std::size_t at) {
  const std::string_view before = s.substr(0, at);
  for (std::string_view word : {"ref ", "ref=", "ref: ", "id ", "id=", "id: ", "#"})
    if (before.ends_with(word)) return true;
  return false;
}

bool looks_like_token(std::string_view run) {
  std::size_t digits = 0, letters = 0, case_changes = 0;
  bool base64_marks = false;
  for (std::size_t i = 0; i < run.size(); ++i) {
    const char c = run[i];
    digits += is_digit(c);
    letters += is_alpha(c);
    base64_marks = base64_marks || c == '+' || c == '/' || c == '=';
    if (i > 0 && is_lower(run[i - 1]) && is_upper(c)) ++case_changes;
  }
  if (run.size() >= 16) return digits > 0 || base64_marks || case_changes >= 3;
  return run.size() >= 8 && digits >= 3 && letters >= 2;
}

// A run of token characters (padding included): a token, a number, or a word.
void append_run(std::string_view s, std::size_t from, std::size_t to, std::string& out) {
  const std::string_view run = s.substr(from, to - from);
  const std::size_t sign = run.front() == '-' ? 1 : 0;
  if (run.size() > sign && digits_from(run, sign) == run.size() - sign) {
    // Short numbers say which failure it is (a status, a close code, a file's line, a
    // timeout's seconds); five digits and more vary per connection (a source port, a
    // count), as does any number of bytes or one that names a request.
    const bool varies = run.size() - sign >= 5 || followed_by_bytes(s, to) || names_a_request(s, from);
    if (varies) {
      out.append(run.substr(0, sign));
      out += "<n>";
    } else {
      out.append(run);
    }
    return;
  }
  if (looks_like_token(run)) {
    out += "<id>";
    return;
  }
  out.append(run);
}

// The length of a Lua error's "path/to/file.lua:12:" prefix at the start of `s`, or 0: the
// scenario's path says where the error is, not which connection (a temporary directory's
// random name is not a token to replace).
std::size_t lua_position(std::string_view s) {
  const std::size_t lua = s.find(".lua:");
  if (lua == std::string_view::npos || s.substr(0, lua).find_first_of(" \t\n\"'") != std::string_view::npos) return 0;
  const std::size_t line = lua + 5;
  const std::size_t n = digits_from(s, line);
  if (n == 0 || line + n >= s.size() || s[line + n] != ':') return 0;
  return line + n + 1;
}

}  // namespace

std::string error_group(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = lua_position(s);
  out.append(s.substr(0, i));
  while (i < s.size()) {
    const char c = s[i];
    const bool word_start = i == 0 || !(is_alnum(s[i - 1]) || s[i - 1] == '.');
    if (c == '[') {
      if (const std::size_t n = ipv6_at(s, i)) {
        out += "<address>";
        i += n;
        continue;
      }
    }
    if (is_digit(c) && word_start) {
      if (const std::size_t n = ipv4_at(s, i)) {
        out += "<address>";
        i += n;
        continue;
      }
      // A decimal fraction ("12.5 ms"), unless part of a version ("1.2.3", "HTTP/1.1").
      const std::size_t whole = digits_from(s, i);
      if (i + whole + 1 < s.size() && s[i + whole] == '.' && is_digit(s[i + whole + 1]) &&
          (i == 0 || s[i - 1] != '/')) {
        const std::size_t end = i + whole + 1 + digits_from(s, i + whole + 1);
        if (end >= s.size() || !(is_alnum(s[end]) || s[end] == '.')) {
          out += "<n>";
          i = end;
          continue;
        }
        out.append(s.substr(i, end - i));  // a version: kept, with whatever follows it
        i = end;
        continue;
      }
    }
    if (is_token_char(c)) {
      std::size_t end = i;
      while (end < s.size() && is_token_char(s[end])) ++end;
      while (end < s.size() && s[end] == '=') ++end;  // base64 padding
      // A '/' belongs to a base64 token ("/k7+aQ==") but separates a path's segments
      // ("/posts/123"): without a '+' or padding, a run ends at its first '/'.
      const std::string_view run = s.substr(i, end - i);
      if (run.find('+') == std::string_view::npos && run.back() != '=') {
        if (c == '/') {
          out += c;
          ++i;
          continue;
        }
        end = i + std::min(run.size(), run.find('/'));
      }
      append_run(s, i, end, out);
      i = end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

}  // namespace stampede::metrics
