#pragma once
// What the HTTP/1.1 parsers' layer over Boost.Beast's `http::basic_parser` shares: turning
// the bytes Beast stopped at into a reason a user can read. Beast says what went wrong (an
// error code); these say where, quoting the peer's bytes (design 044).
#include <boost/beast/core/error.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto::beast_layer {

// Quotes a piece of the peer's bytes for an error message: short, printable, one line.
std::string quoted_excerpt(std::string_view s);

// The line `at` starts with, without its CRLF (or LF).
std::string_view first_line(std::string_view at);

// The value of a "name: value" line, trimmed.
std::string_view field_value(std::string_view line);

// A chunk-size line Beast refused: `at` is where it stopped (the CRLF ending the previous
// chunk's data when `after_chunk_data`, then the size line).
std::string describe_chunk_error(const boost::beast::error_code& ec, std::string_view at, bool after_chunk_data);

// Whether `s` has an LF not preceded by a CR (`after_cr`: the byte before `s` was one).
bool has_bare_lf(std::string_view s, bool after_cr = false);

// Chunk-size lines and trailer lines end with CRLF; Beast looks for the CR and waits for a
// whole trailer section. `at` starts where Beast waits (after a chunk's data: its CRLF).
// Returns the reason when these bytes can never become valid: a chunk's data not followed by
// CRLF, a bare CR or LF in the size line, or in the trailer section.
std::optional<std::string_view> broken_chunk_line_end(std::string_view at, bool after_chunk_data);

}  // namespace stampede::proto::beast_layer
