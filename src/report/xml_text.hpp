#pragma once
// Text and attribute values for XML documents we write (SVG badge, JUnit XML). A scenario
// name or an error message is user and server data: it may hold markup, quotes, control
// characters or bytes that are not UTF-8, and none of it may break the document.
#include <string>
#include <string_view>

namespace stampede::report {

// Escapes & < > " ' as entities. Characters XML 1.0 does not allow at all (C0 controls
// other than tab, newline and carriage return) become U+FFFD, as do invalid UTF-8 bytes.
std::string xml_escape(std::string_view text);

}  // namespace stampede::report
