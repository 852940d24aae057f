#pragma once
// Characters and text of HTML as the page scanner reads them: ASCII classes, case folding,
// whitespace collapsing, and character references decoded as a browser decodes them.
// Internal to liveview_page*.cpp / liveview_html*.cpp.
#include <string>
#include <string_view>

namespace stampede::proto::lv::detail {

inline bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
inline bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ascii_alnum(char c) { return is_ascii_alpha(c) || is_ascii_digit(c); }
inline char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b);
void append_lower(std::string& out, std::string_view s);
// Whitespace runs become one space, ends trimmed (document.title, what a user reads).
std::string collapse_whitespace(std::string_view s);
// Entity decoding plus the input stream's newline normalisation (CR LF and CR become LF).
void decode_into(std::string_view text, bool in_attribute, std::string& out);
std::string normalize_newlines(std::string_view text);

}  // namespace stampede::proto::lv::detail
