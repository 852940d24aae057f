#include "proto/http_beast_layer.hpp"

#include <algorithm>
#include <boost/beast/http/error.hpp>

#include "proto/http_text.hpp"

namespace stampede::proto::beast_layer {

namespace http = boost::beast::http;

std::string quoted_excerpt(std::string_view s) {
  constexpr std::size_t kMax = 60;
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > kMax) out += "...";
  out += '"';
  return out;
}

std::string_view first_line(std::string_view at) {
  std::string_view line = at.substr(0, at.find('\n'));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view field_value(std::string_view line) {
  const auto colon = line.find(':');
  return colon == std::string_view::npos ? line : http_text::trim_ows(line.substr(colon + 1));
}

std::string describe_chunk_error(const boost::beast::error_code& ec, std::string_view at, bool after_chunk_data) {
  if (after_chunk_data) {
    if (at.substr(0, 2) != "\r\n") return "chunk data not followed by CRLF";
    at.remove_prefix(2);
  }
  if (ec == http::error::bad_line_ending) return "chunk size line not ended by CRLF";
  const auto is_hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  if (ec == http::error::bad_chunk) {
    if (at.empty() || !is_hex(at.front()))
      return "invalid chunk size: expected a hex digit, got " + quoted_excerpt(at.substr(0, 1));
    return "chunk size is too large";  // Beast's other reason: more hex digits than 64 bits hold
  }
  if (ec == http::error::bad_chunk_extension) {
    std::size_t digits = 0;
    while (digits < at.size() && is_hex(at[digits])) ++digits;
    return "invalid character after chunk size: " + quoted_excerpt(at.substr(digits, 1));
  }
  return "malformed chunked body (" + ec.message() + ") at " + quoted_excerpt(first_line(at));
}

bool has_bare_lf(std::string_view s, bool after_cr) {
  for (std::size_t i = s.find('\n'); i != std::string_view::npos; i = s.find('\n', i + 1)) {
    if (i == 0 ? !after_cr : s[i - 1] != '\r') return true;
  }
  return false;
}

std::optional<std::string_view> broken_chunk_line_end(std::string_view at, bool after_chunk_data) {
  if (after_chunk_data) {
    if (at.empty()) return std::nullopt;
    if (at[0] != '\r' || (at.size() > 1 && at[1] != '\n')) return "chunk data not followed by CRLF";
    at.remove_prefix(std::min<std::size_t>(at.size(), 2));
  }
  // The size line ends at its first CR (Beast's end of line); a LF before it, or a CR not
  // followed by LF, is a broken line end.
  const auto cr = at.find('\r');
  if (at.substr(0, cr).find('\n') != std::string_view::npos) return "chunk size line not ended by CRLF";
  if (cr == std::string_view::npos || cr + 1 >= at.size()) return std::nullopt;
  if (at[cr + 1] != '\n') return "chunk size line not ended by CRLF";
  // What follows the size line, until Beast's end of message (CRLF CRLF), is a trailer
  // section when the size is 0; otherwise it is chunk data, which may hold any bytes.
  std::size_t digits = 0;
  while (digits < cr && at[digits] == '0') ++digits;
  const bool last_chunk = digits > 0 && (digits == cr || at[digits] == ';' || at[digits] == ' ' || at[digits] == '\t');
  if (!last_chunk) return std::nullopt;
  std::string_view trailers = at.substr(cr);  // from the size line's CRLF
  const auto end = trailers.find("\r\n\r\n");
  if (end != std::string_view::npos) trailers = trailers.substr(0, end + 4);
  for (std::size_t i = 0; i < trailers.size(); ++i) {
    if (trailers[i] == '\r' && i + 1 < trailers.size() && trailers[i + 1] != '\n') return "trailer section not ended by CRLF";
    if (trailers[i] == '\n' && (i == 0 || trailers[i - 1] != '\r')) return "trailer section not ended by CRLF";
  }
  return std::nullopt;
}

}  // namespace stampede::proto::beast_layer
