#pragma once
// Standard base64 (RFC 4648 §4: alphabet A-Z a-z 0-9 + /, "=" padding), as Node's
// Buffer.toString("base64") and the browser's btoa() write it. Engine.IO carries binary packets
// this way in polling payloads ("b" + base64) and phoenix.js posts binary pushes this way over
// LongPoll. (target/base64url.hpp is the URL-safe, unpadded alphabet of Phoenix tokens.)
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto {

// Appends the padded encoding of `bytes`.
void append_base64(std::string& out, std::string_view bytes);
std::string base64(std::string_view bytes);

// Decodes padded or unpadded text. nullopt for a character outside the alphabet, padding
// anywhere but at the end, or a length no encoding has (4n+1). Node's decoder is laxer (it
// skips unknown characters and accepts the URL-safe alphabet); a load generator reading a
// server's bytes is better told that they are wrong.
std::optional<std::string> decode_base64(std::string_view text);

}  // namespace stampede::proto
