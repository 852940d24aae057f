#pragma once
// Padding for terminal tables. Widths count characters, not bytes: "µs" is two columns
// wide on screen but three bytes long, and metric names may be UTF-8 too.
#include <cstddef>
#include <string>
#include <string_view>

namespace stampede::report {

std::size_t display_width(std::string_view utf8);
std::string align_left(std::string_view text, std::size_t width);   // pads on the right
std::string align_right(std::string_view text, std::size_t width);  // pads on the left
// One line of at most `max_width` characters: control characters (a Lua traceback's
// newlines) become spaces, and a longer text is cut with "…".
std::string one_line(std::string_view text, std::size_t max_width);

}  // namespace stampede::report
