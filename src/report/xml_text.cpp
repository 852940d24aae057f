#include "report/xml_text.hpp"

#include "report/utf8_text.hpp"

namespace stampede::report {

std::string xml_escape(std::string_view text) {
  const std::string valid = to_valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  for (const char c : valid) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\t':
      case '\n':
      case '\r': out += c; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += "\xEF\xBF\xBD";  // not allowed in XML 1.0, even as a character reference
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace stampede::report
