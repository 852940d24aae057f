#pragma once
// Percent-encoding for URLs and HTML forms (application/x-www-form-urlencoded). Pure.
#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::proto {

using FormFields = std::vector<std::pair<std::string, std::string>>;

// RFC 3986: keeps the unreserved characters (A-Z a-z 0-9 - . _ ~), percent-encodes every other
// byte as %XX (upper-case hex). For a path segment or a query value built by hand.
std::string url_encode_component(std::string_view s);

// What browsers send for a form (WHATWG URL, urlencoded serializer): space becomes '+',
// A-Z a-z 0-9 * - . _ are kept, every other byte is %XX.
std::string form_encode_component(std::string_view s);

// "a=1&b=2", each name and value form-encoded, in the given order.
std::string encode_form(const FormFields& fields);

// Adds the fields to the URL's query with '?' or '&' as needed, keeping a "#fragment" last.
// No fields: the URL unchanged.
std::string append_query(std::string_view url, const FormFields& fields);

// Parses "a=1&b=2" (a query or a form body): '+' is a space, %XX a byte, a malformed escape
// is kept literally, a field without '=' has an empty value, empty fields are skipped.
FormFields decode_form(std::string_view body);

// Plug's nested parameter names (Plug.Conn.Query), as a browser's form with names such as
// "post[title]" and "tags[]" sends them: {"post": {"title": "Hi"}, "tags": ["a", "b"]} gives
// post[title]=Hi, tags[]=a, tags[]=b. Members in name order (bytewise), so that a run sends
// the same form every time; array items in order. Strings as they are, booleans "true" and
// "false", integers in decimal, other numbers as Lua's tostring writes them (%.14g), null as
// "". Throws std::invalid_argument when `values` is not an object (a form needs names).
FormFields nested_form_fields(const boost::json::value& values);

}  // namespace stampede::proto
