#pragma once
// Text that must be valid UTF-8 when written (JSON, XML, SVG): error messages and reasons
// can carry any bytes a server sent, and one stray byte makes a strict parser reject the
// whole file.
#include <string>
#include <string_view>

namespace stampede::report {

// `text` with every byte that is not part of a valid UTF-8 sequence (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF) replaced by U+FFFD.
std::string to_valid_utf8(std::string_view text);

}  // namespace stampede::report
