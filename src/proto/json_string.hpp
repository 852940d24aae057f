#pragma once
// The one JSON string-literal writer of the tree (docs/design/043-one-of-each.md), for every
// place that splices text into JSON it writes itself: Phoenix messages, Absinthe, Engine.IO,
// graphql-ws, LongPoll bodies, and the target's replies and rendered diffs. Pure.
//
// Text must be UTF-8: a JSON text that is not is not JSON (RFC 8259 §8.1), and Jason, Phoenix's
// encoder, refuses it too. Escapes " \ and the C0 controls (\b \f \n \r \t short, the rest as
// \u00XX); everything else, "/" and U+2028 included, is copied as it is.
#include <string>
#include <string_view>

namespace stampede::proto {

// Appends `text` as a JSON string literal, quotes included. Throws std::invalid_argument
// ("<what> is not valid UTF-8") when it is not UTF-8; nothing is appended then.
void append_json_string(std::string& out, std::string_view text, std::string_view what);
std::string json_string(std::string_view text, std::string_view what);

}  // namespace stampede::proto
