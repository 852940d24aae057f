#pragma once
// A shields.io-style SVG badge (the "flat" style) for a README or a CI page:
//   [ stampede | passed ]  green,  [ stampede | failed ]  red.
// Pure: the caller writes the bytes where it wants.
#include <string>
#include <string_view>

#include "report/run_result.hpp"

namespace stampede::report {

struct Badge {
  std::string label = "stampede";
  std::string message;  // e.g. "passed", or a custom message such as a found limit
  std::string color;    // a CSS colour for the message side, e.g. "#4c1"
};

inline constexpr std::string_view kPassColor = "#4c1";
inline constexpr std::string_view kFailColor = "#e05d44";

// The run's verdict: "passed" in green when every threshold of every scenario passed,
// "failed" in red otherwise. A non-empty `custom_message` replaces the word but keeps the
// verdict's colour.
Badge verdict_badge(const RunResult& run, std::string_view custom_message = {});

// The SVG document, with a <title> and aria-label for screen readers.
std::string render_badge_svg(const Badge& badge);

// The width in pixels a text takes in 11px Verdana, as shields.io sizes its badges
// (approximated from a table of character widths; exact for nothing, close for all).
double badge_text_width(std::string_view utf8);

}  // namespace stampede::report
