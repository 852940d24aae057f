#pragma once
// The one URL resolver of the tree: a reference found in a page or a message (an href, a
// src, a Location header, a live_redirect's "to") resolved against the URL it came with by
// RFC 3986 §5, which is Boost.URL's resolve(); what browsers do for el.href and for
// redirects. Pure.
#include <boost/url/url.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto {

// `reference` resolved against the absolute URL `base`: absolute URLs unchanged, "//host/x",
// "/path", "?query", "#fragment" and relative paths (with "." and ".." segments) resolved.
// Like a browser, it percent-encodes what a URL cannot hold as it is (spaces, other bytes
// outside ASCII's URL characters, a "%" not followed by two hex digits) rather than refuse
// it. nullopt when `base` is not an absolute URL or `reference` is not a URL even so.
std::optional<boost::urls::url> resolve_reference(std::string_view base, std::string_view reference);

// The same as text; `reference` as given when it cannot be resolved.
std::string resolve_url(std::string_view base, std::string_view reference);

}  // namespace stampede::proto
