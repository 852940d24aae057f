#include "report/badge.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "report/xml_text.hpp"

namespace stampede::report {

namespace {

// Widths of 11px Verdana by character class. A badge only needs to look right, not
// measure exactly: these keep a short word within a pixel or two of shields.io's.
double ascii_width(char c) {
  if (c == ' ') return 3.9;
  if (std::strchr("il.,:;'|!`", c) != nullptr) return 3.1;
  if (std::strchr("fjrt()[]{}/\\\"", c) != nullptr) return 4.6;
  if (c == 'm' || c == 'w') return 9.9;
  if (c == 'M' || c == 'W') return 11.2;
  if (c >= 'A' && c <= 'Z') return 7.6;
  if (c >= '0' && c <= '9') return 7.0;
  return 6.6;
}

constexpr double kPadding = 10;  // pixels on each side of a text, 5 left + 5 right

}  // namespace

double badge_text_width(std::string_view utf8) {
  double width = 0;
  for (const char c : utf8) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      width += ascii_width(c);
    } else if ((byte & 0xC0) != 0x80) {
      width += 7.6;  // the lead byte of a non-ASCII character: count it once, as a wide letter
    }
  }
  return width;
}

Badge verdict_badge(const RunResult& run, std::string_view custom_message) {
  Badge b;
  const bool passed = run.passed();
  b.message = custom_message.empty() ? (passed ? "passed" : "failed") : std::string(custom_message);
  b.color = std::string(passed ? kPassColor : kFailColor);
  return b;
}

std::string render_badge_svg(const Badge& badge) {
  const double label_width = std::round(badge_text_width(badge.label) + kPadding);
  const double message_width = std::round(badge_text_width(badge.message) + kPadding);
  const double width = label_width + message_width;
  const std::string label = xml_escape(badge.label);
  const std::string message = xml_escape(badge.message);
  const std::string color = xml_escape(badge.color);
  const std::string title = label + ": " + message;
  // The shadow text one pixel lower is shields.io's: it keeps white text legible on any colour.
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"20\" role=\"img\" aria-label=\"{title}\">"
      "<title>{title}</title>"
      "<linearGradient id=\"s\" x2=\"0\" y2=\"100%\"><stop offset=\"0\" stop-color=\"#bbb\" stop-opacity=\".1\"/>"
      "<stop offset=\"1\" stop-opacity=\".1\"/></linearGradient>"
      "<clipPath id=\"r\"><rect width=\"{w}\" height=\"20\" rx=\"3\" fill=\"#fff\"/></clipPath>"
      "<g clip-path=\"url(#r)\"><rect width=\"{lw}\" height=\"20\" fill=\"#555\"/>"
      "<rect x=\"{lw}\" width=\"{mw}\" height=\"20\" fill=\"{color}\"/>"
      "<rect width=\"{w}\" height=\"20\" fill=\"url(#s)\"/></g>"
      "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu Sans,sans-serif\" font-size=\"11\">"
      "<text x=\"{lx}\" y=\"15\" fill=\"#010101\" fill-opacity=\".3\">{label}</text>"
      "<text x=\"{lx}\" y=\"14\">{label}</text>"
      "<text x=\"{mx}\" y=\"15\" fill=\"#010101\" fill-opacity=\".3\">{message}</text>"
      "<text x=\"{mx}\" y=\"14\">{message}</text></g></svg>\n",
      fmt::arg("w", width), fmt::arg("lw", label_width), fmt::arg("mw", message_width), fmt::arg("title", title),
      fmt::arg("color", color), fmt::arg("label", label), fmt::arg("message", message),
      fmt::arg("lx", label_width / 2), fmt::arg("mx", label_width + message_width / 2));
}

}  // namespace stampede::report
