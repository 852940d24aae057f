#include "proto/liveview_html_text.hpp"

#include <array>
#include <cstdint>

namespace stampede::proto::lv::detail {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (to_lower(a[i]) != to_lower(b[i])) return false;
  }
  return true;
}

void append_lower(std::string& out, std::string_view s) {
  for (const char c : s) out += to_lower(c);
}

// Whitespace runs become one space, ends trimmed (document.title, what a user reads).
std::string collapse_whitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (const char c : s) {
    if (is_html_space(c)) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out += ' ';
      pending_space = false;
      out += c;
    }
  }
  return out;
}

namespace {

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

struct NamedEntity {
  std::string_view name;
  std::uint32_t code_point;
  bool legacy;  // also recognised without ';' in text (the HTML spec's legacy list)
};

// The references Phoenix (Phoenix.HTML escapes & < > " ') and common templates produce.
constexpr std::array<NamedEntity, 54> kNamedEntities{{
    {"amp", '&', true},       {"lt", '<', true},         {"gt", '>', true},        {"quot", '"', true},
    {"apos", '\'', false},    {"nbsp", 0xA0, true},      {"copy", 0xA9, true},     {"reg", 0xAE, true},
    {"trade", 0x2122, false}, {"hellip", 0x2026, false}, {"mdash", 0x2014, false}, {"ndash", 0x2013, false},
    {"lsquo", 0x2018, false}, {"rsquo", 0x2019, false},  {"ldquo", 0x201C, false}, {"rdquo", 0x201D, false},
    {"laquo", 0xAB, true},    {"raquo", 0xBB, true},     {"middot", 0xB7, true},   {"bull", 0x2022, false},
    {"times", 0xD7, true},    {"divide", 0xF7, true},    {"deg", 0xB0, true},      {"plusmn", 0xB1, true},
    {"para", 0xB6, true},     {"sect", 0xA7, true},      {"cent", 0xA2, true},     {"pound", 0xA3, true},
    {"euro", 0x20AC, false},  {"yen", 0xA5, true},       {"iexcl", 0xA1, true},    {"iquest", 0xBF, true},
    {"ensp", 0x2002, false},  {"emsp", 0x2003, false},   {"thinsp", 0x2009, false}, {"zwnj", 0x200C, false},
    {"zwj", 0x200D, false},   {"lrm", 0x200E, false},    {"rlm", 0x200F, false},   {"shy", 0xAD, true},
    {"larr", 0x2190, false},  {"rarr", 0x2192, false},   {"uarr", 0x2191, false},  {"darr", 0x2193, false},
    {"harr", 0x2194, false},  {"check", 0x2713, false},  {"hearts", 0x2665, false}, {"star", 0x2606, false},
    {"sup2", 0xB2, true},     {"frac12", 0xBD, true},    {"micro", 0xB5, true},    {"acute", 0xB4, true},
    {"uml", 0xA8, true},      {"ordm", 0xBA, true},
}};

// Numeric references 0x80-0x9F mean windows-1252 characters (HTML spec table).
constexpr std::array<std::uint32_t, 32> kWindows1252{
    0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x8D,   0x017D, 0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178};

// Decodes the reference starting at text[i] == '&'. Returns the characters consumed (0 when it
// is not a reference, and then the '&' is literal).
std::size_t decode_reference(std::string_view text, std::size_t i, bool in_attribute, std::string& out) {
  const std::size_t start = i + 1;
  if (start >= text.size()) return 0;
  if (text[start] == '#') {
    std::size_t j = start + 1;
    const bool hex = j < text.size() && (text[j] == 'x' || text[j] == 'X');
    if (hex) ++j;
    const std::size_t digits_at = j;
    std::uint32_t cp = 0;
    bool overflow = false;
    while (j < text.size()) {
      const char c = text[j];
      int digit;
      if (is_ascii_digit(c)) {
        digit = c - '0';
      } else if (hex && c >= 'a' && c <= 'f') {
        digit = c - 'a' + 10;
      } else if (hex && c >= 'A' && c <= 'F') {
        digit = c - 'A' + 10;
      } else {
        break;
      }
      if (cp > 0x10FFFF) {
        overflow = true;
      } else {
        cp = cp * (hex ? 16u : 10u) + static_cast<std::uint32_t>(digit);
      }
      ++j;
    }
    if (j == digits_at) return 0;
    if (j < text.size() && text[j] == ';') ++j;
    if (overflow || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      cp = 0xFFFD;
    } else if (cp >= 0x80 && cp <= 0x9F) {
      cp = kWindows1252[cp - 0x80];
    }
    append_utf8(out, cp);
    return j - i;
  }
  std::size_t j = start;
  while (j < text.size() && is_ascii_alnum(text[j]) && j - start < 32) ++j;
  if (j == start) return 0;
  const std::string_view name = text.substr(start, j - start);
  const bool semicolon = j < text.size() && text[j] == ';';
  for (const NamedEntity& entity : kNamedEntities) {
    if (semicolon && entity.name == name) {
      append_utf8(out, entity.code_point);
      return j + 1 - i;
    }
  }
  // Legacy references without ';' ("&amp" in old markup), the longest prefix of the name. In an
  // attribute one followed by an alphanumeric or '=' stays literal (URL query strings).
  for (const NamedEntity& entity : kNamedEntities) {
    if (!entity.legacy || name.substr(0, entity.name.size()) != entity.name) continue;
    const std::size_t after = start + entity.name.size();
    if (in_attribute && after < text.size() && (is_ascii_alnum(text[after]) || text[after] == '=')) return 0;
    append_utf8(out, entity.code_point);
    return after - i;
  }
  return 0;
}

}  // namespace

// Entity decoding plus the input stream's newline normalisation (CR LF and CR become LF).
void decode_into(std::string_view text, bool in_attribute, std::string& out) {
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '&') {
      const std::size_t used = decode_reference(text, i, in_attribute, out);
      if (used > 0) {
        i += used;
        continue;
      }
      out += '&';
      ++i;
    } else if (c == '\r') {
      out += '\n';
      i += (i + 1 < text.size() && text[i + 1] == '\n') ? 2 : 1;
    } else {
      out += c;
      ++i;
    }
  }
}

std::string normalize_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace stampede::proto::lv::detail
