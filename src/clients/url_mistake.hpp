#pragma once
// What is wrong with a URL a client refused, in words a scenario's author acts on:
// "missing scheme: did you mean http://localhost:4000/x?" rather than the parser's
// "mismatch". Boost.URL says where parsing stopped, not what the person meant; the common
// mistakes are few (no scheme, a path alone, a misspelt or wrong-family scheme, a space or
// a character to percent-encode, a bad port) and each gets its own sentence with the fix.
#include <string>
#include <string_view>

#include "clients/url_target.hpp"

namespace stampede::clients {

// Why `text` is not an absolute URL of `schemes` (a sentence fragment that follows the URL
// in an error message). Only called for a URL that parse_url_target refused.
std::string describe_url_mistake(std::string_view text, UrlSchemes schemes);

}  // namespace stampede::clients
