#pragma once
// The one base64 of the tree (RFC 4648), on OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock, which
// the WebSocket handshake already needed (docs/design/043-one-of-each.md). Two alphabets:
//   standard (§4: + / and "=" padding), as Node's Buffer.toString("base64") and btoa() write
//     it: the WebSocket key and accept value, Engine.IO binary packets in polling payloads
//     ("b" + base64), phoenix.js's binary pushes over LongPoll;
//   URL-safe (§5: - _ and no padding), the alphabet of every Phoenix token, id and CSRF token
//     a LiveView page carries.
// Pure: OpenSSL's libcrypto computes, it owns no socket or clock.
#include <optional>
#include <string>
#include <string_view>

namespace stampede::proto {

// Appends the padded standard encoding of `bytes`.
void append_base64(std::string& out, std::string_view bytes);
std::string base64(std::string_view bytes);

// Appends the unpadded URL-safe encoding of `bytes`.
void append_base64url(std::string& out, std::string_view bytes);
std::string base64url(std::string_view bytes);

// Decodes standard text, padded or unpadded. nullopt for a character outside the alphabet
// (white space and the URL-safe '-' '_' included), padding anywhere but at the end, or a
// length no encoding has (4n+1). OpenSSL's decoder alone is laxer (it skips white space and
// accepts "=" mid-group) and so is Node's; a load generator reading a server's bytes is better
// told that they are wrong.
std::optional<std::string> decode_base64(std::string_view text);

// Decodes URL-safe text. nullopt for a character outside that alphabet ('+' '/' and padding
// included: Phoenix never writes them) or a length no encoding has.
std::optional<std::string> decode_base64url(std::string_view text);

}  // namespace stampede::proto
