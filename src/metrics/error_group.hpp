#pragma once
// Error messages grouped by what failed, not by the connection it failed on.
//
// A message often carries what differs per connection or per request: a WebSocket key, a
// CSRF token, a LiveView id, a source port, a byte count. Counted as they are, 14,000
// failures of one kind became 14,000 reasons (64 kept, the rest under "(other reasons)").
// error_group() replaces those parts with placeholders, so the same failure is one reason
// with a count; the caller keeps one message in full as its example.
//
// What is replaced (and why these and no more: a status code, a close code, a file's line
// number or a timeout's seconds say which failure it is, and must stay):
//   - IPv4 and bracketed IPv6 addresses, with a port if any           -> <address>
//   - tokens: a run of base64/base64url/hex characters of 16 or more that has a digit or a
//     '+', '/' or '=', or at least 3 lower-to-upper case changes; or 8-15 characters with
//     3 digits or more and 2 letters or more (ids like phx-F7xA92k1b, UUIDs, keys)  -> <id>
//   - numbers of 5 digits or more, any number followed by " bytes" or " B", and any
//     number after "ref ", "id " or "#" (one per request)                              -> <n>
//   - a decimal fraction (12.5) not inside a word or a version ("HTTP/1.1")          -> <n>
// Shorter numbers stay: a status, a WebSocket close code (1000-4999), a line number. A Lua
// error's "path/to/file.lua:12:" prefix is kept whole.
#include <string>
#include <string_view>

namespace stampede::metrics {

// The message with its per-connection parts replaced; the message itself when it has none.
std::string error_group(std::string_view message);

}  // namespace stampede::metrics
