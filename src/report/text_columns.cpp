#include "report/text_columns.hpp"

namespace stampede::report {

namespace {
bool continues_character(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

std::size_t display_width(std::string_view utf8) {
  std::size_t width = 0;
  for (const char c : utf8) width += continues_character(c) ? 0 : 1;
  return width;
}

std::string align_left(std::string_view text, std::size_t width) {
  std::string out(text);
  const std::size_t w = display_width(text);
  if (w < width) out.append(width - w, ' ');
  return out;
}

std::string align_right(std::string_view text, std::size_t width) {
  const std::size_t w = display_width(text);
  std::string out(w < width ? width - w : 0, ' ');
  out += text;
  return out;
}

std::string one_line(std::string_view text, std::size_t max_width) {
  if (max_width == 0) return {};
  std::string out;
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (!continues_character(c)) {
      if (width == max_width) {
        // Cut at a character boundary, leaving room for the ellipsis.
        std::size_t cut = out.size();
        do {
          --cut;
        } while (cut > 0 && continues_character(out[cut]));
        out.resize(cut);
        out += "…";
        return out;
      }
      ++width;
    }
    const auto byte = static_cast<unsigned char>(c);
    out.push_back(byte < 0x20 || byte == 0x7f ? ' ' : c);
  }
  return out;
}

}  // namespace stampede::report
