#include "proto/http_request_writer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <span>

#include "proto/http_text.hpp"
#include <stdexcept>

namespace stampede::proto {
namespace {

using namespace http_text;



bool has_line_break_or_nul(std::string_view s) {
  // (A plain loop: find_first_of with a set calls memchr once per byte.)
  return std::any_of(s.begin(), s.end(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
}



// Shows the offending text with its control characters visible, so "a\r\nb" reads as such.
std::string visible(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : s.substr(0, 80)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  if (s.size() > 80) out += "...";
  return out + "\"";
}

// Calls f(name, value) for the caller's headers, then for the extra ones.
template <typename F>
void for_each_header(const std::vector<std::pair<std::string, std::string>>& headers,
                     std::span<const HeaderView> extra, F&& f) {
  for (const auto& [name, value] : headers) f(std::string_view(name), std::string_view(value));
  for (const auto& [name, value] : extra) f(name, value);
}

void validate(std::string_view method, std::string_view target, std::string_view host_header,
              const std::vector<std::pair<std::string, std::string>>& headers, std::span<const HeaderView> extra) {
  if (!is_token(method)) throw std::invalid_argument("invalid HTTP method " + visible(method));
  if (target.empty()) throw std::invalid_argument("empty request target");
  if (std::any_of(target.begin(), target.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c <= ' ' || c == 0x7f;
      })) {
    throw std::invalid_argument("invalid request target " + visible(target) +
                                ": spaces and control characters must be percent-encoded");
  }
  if (has_line_break_or_nul(host_header)) {
    throw std::invalid_argument("invalid Host header value " + visible(host_header) + ": it contains CR, LF or NUL");
  }
  for_each_header(headers, extra, [](std::string_view name, std::string_view value) {
    if (!is_token(name)) {
      throw std::invalid_argument("invalid header name " + visible(name) +
                                  ": a name is letters, digits and !#$%&'*+-.^_`|~ only");
    }
    if (has_line_break_or_nul(value)) {
      throw std::invalid_argument("invalid value for header " + visible(name) + ": " + visible(value) +
                                  " contains CR, LF or NUL");
    }
  });
}

}  // namespace

void write_request_head(std::string& out, std::string_view method, std::string_view target,
                        std::string_view host_header, const std::vector<std::pair<std::string, std::string>>& headers,
                        std::size_t content_length, bool has_body, std::span<const HeaderView> extra) {
  validate(method, target, host_header, headers, extra);
  const bool with_length = has_body || method == "POST" || method == "PUT" || method == "PATCH";
  bool has_host = false;
  for_each_header(headers, extra,
                  [&](std::string_view name, std::string_view) { has_host = has_host || iequals(name, "host"); });

  char length_digits[24];
  const auto length_end = std::to_chars(std::begin(length_digits), std::end(length_digits), content_length).ptr;
  const std::string_view length(length_digits, static_cast<std::size_t>(length_end - length_digits));

  // One reservation for the whole head: the request line, headers, and their separators.
  std::size_t size = method.size() + 1 + target.size() + 11 + 2;
  if (!has_host) size += 6 + host_header.size() + 2;
  for_each_header(headers, extra,
                  [&](std::string_view name, std::string_view value) { size += name.size() + 2 + value.size() + 2; });
  if (with_length) size += 16 + length.size() + 2;
  out.reserve(out.size() + size);

  out.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  if (!has_host) out.append("Host: ").append(host_header).append("\r\n");
  for_each_header(headers, extra, [&](std::string_view name, std::string_view value) {
    if (with_length && iequals(name, "content-length")) return;
    out.append(name).append(": ").append(value).append("\r\n");
  });
  if (with_length) out.append("Content-Length: ").append(length).append("\r\n");
  out.append("\r\n");
}

}  // namespace stampede::proto
