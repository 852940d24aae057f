#include "proto/json_string.hpp"

#include <stdexcept>

#include "proto/websocket_frame.hpp"  // ws::is_valid_utf8, the tree's UTF-8 check

namespace stampede::proto {
namespace {

bool needs_escape(unsigned char b) { return b < 0x20 || b == '"' || b == '\\'; }

void append_escape(std::string& out, unsigned char b) {
  switch (b) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char escaped[] = {'\\', 'u', '0', '0', kHex[b >> 4], kHex[b & 0xF]};
      out.append(escaped, sizeof escaped);
    }
  }
}

}  // namespace

void append_json_string(std::string& out, std::string_view text, std::string_view what) {
  if (!ws::is_valid_utf8(text)) throw std::invalid_argument(std::string(what) + " is not valid UTF-8");
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  // Runs of bytes that need nothing are copied in one go.
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (!needs_escape(b)) continue;
    out.append(text.data() + run, i - run);
    append_escape(out, b);
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
  out.push_back('"');
}

std::string json_string(std::string_view text, std::string_view what) {
  std::string out;
  append_json_string(out, text, what);
  return out;
}

}  // namespace stampede::proto
