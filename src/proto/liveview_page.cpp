#include "proto/liveview_page.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <utility>

namespace stampede::proto::lv {
namespace {

// ------------------------------------------------------------------------------------ chars

bool is_html_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool is_ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ascii_alnum(char c) { return is_ascii_alpha(c) || is_ascii_digit(c); }
char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

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

// ------------------------------------------------------------------------------------ entities

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

// ------------------------------------------------------------------------------------ tokenizer

enum class TextMode { Normal, RawText, Rcdata };

TextMode text_mode_after(std::string_view tag) {
  if (tag == "script" || tag == "style" || tag == "xmp" || tag == "iframe" || tag == "noembed" ||
      tag == "noframes" || tag == "noscript") {
    return TextMode::RawText;  // noscript: a browser runs scripts, so its content is text
  }
  if (tag == "textarea" || tag == "title") return TextMode::Rcdata;
  return TextMode::Normal;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view html, const std::function<bool(const HtmlToken&)>& visit) : in_(html), visit_(visit) {}

  void run() {
    while (pos_ < in_.size()) {
      if (mode_ != TextMode::Normal) {
        if (!raw_text_section()) return;
        continue;
      }
      const bool keep_going = in_[pos_] == '<' ? markup() : text();
      if (!keep_going) return;
    }
  }

 private:
  // Where the text that started at pos_ ends: the next '<' that opens markup.
  std::size_t text_end(std::size_t from) const {
    std::size_t i = from;
    while (true) {
      i = in_.find('<', i);
      if (i == std::string_view::npos || i + 1 >= in_.size()) return in_.size();
      const char next = in_[i + 1];
      if (is_ascii_alpha(next) || next == '!' || next == '/' || next == '?') return i;
      ++i;
    }
  }

  bool emit_text(std::string_view raw, bool raw_text) {
    if (raw.empty()) return true;
    token_.kind = HtmlToken::Kind::Text;
    token_.name.clear();
    token_.attributes.clear();
    token_.self_closing = false;
    token_.raw = raw;
    token_.raw_text = raw_text;
    return visit_(token_);
  }

  bool text() {
    // A '<' that opens nothing is text: include it, then look for the next markup.
    const std::size_t end = text_end(in_[pos_] == '<' ? pos_ + 1 : pos_);
    const std::string_view raw = in_.substr(pos_, end - pos_);
    pos_ = end;
    return emit_text(raw, false);
  }

  // Inside <script>, <style>, <textarea>, <title>...: everything up to "</tagname" is text.
  bool raw_text_section() {
    std::size_t i = pos_;
    std::size_t end = in_.size();
    while ((i = in_.find("</", i)) != std::string_view::npos) {
      const std::size_t name_at = i + 2;
      const std::size_t name_end = name_at + raw_tag_.size();
      if (name_end <= in_.size() && iequals(in_.substr(name_at, raw_tag_.size()), raw_tag_) &&
          (name_end == in_.size() || is_html_space(in_[name_end]) || in_[name_end] == '/' || in_[name_end] == '>')) {
        end = i;
        break;
      }
      i += 2;
    }
    const std::string_view raw = in_.substr(pos_, end - pos_);
    const bool literal = mode_ == TextMode::RawText;
    mode_ = TextMode::Normal;
    pos_ = end;
    return emit_text(raw, literal);
  }

  bool markup() {
    const std::string_view rest = in_.substr(pos_);
    if (rest.size() < 2) return text();
    if (rest.starts_with("<!--")) return comment();
    if (rest[1] == '!' || rest[1] == '?') return bogus(rest[1] == '!' ? HtmlToken::Kind::Doctype : HtmlToken::Kind::Comment);
    if (rest[1] == '/') {
      if (rest.size() >= 3 && is_ascii_alpha(rest[2])) return tag(true);
      if (rest.size() >= 3 && rest[2] == '>') {  // "</>" is dropped
        pos_ += 3;
        return true;
      }
      return bogus(HtmlToken::Kind::Comment);
    }
    if (is_ascii_alpha(rest[1])) return tag(false);
    return text();
  }

  bool comment() {
    const std::size_t body = pos_ + 4;
    std::size_t body_end;
    std::size_t next;
    if (in_.substr(body).starts_with(">")) {  // "<!-->"
      body_end = body;
      next = body + 1;
    } else if (in_.substr(body).starts_with("->")) {  // "<!--->"
      body_end = body;
      next = body + 2;
    } else {
      const std::size_t close = in_.find("-->", body);
      body_end = close == std::string_view::npos ? in_.size() : close;
      next = close == std::string_view::npos ? in_.size() : close + 3;
    }
    token_.kind = HtmlToken::Kind::Comment;
    token_.name.clear();
    token_.attributes.clear();
    token_.raw = in_.substr(body, body_end - body);
    token_.raw_text = false;
    pos_ = next;
    return visit_(token_);
  }

  bool bogus(HtmlToken::Kind kind) {
    const std::size_t body = pos_ + 2;
    const std::size_t close = in_.find('>', body);
    const std::size_t body_end = close == std::string_view::npos ? in_.size() : close;
    token_.kind = kind;
    token_.name.clear();
    token_.attributes.clear();
    token_.raw = in_.substr(body, body_end - body);
    token_.raw_text = false;
    pos_ = close == std::string_view::npos ? in_.size() : close + 1;
    return visit_(token_);
  }

  bool tag(bool end_tag) {
    const std::size_t start = pos_;
    std::size_t i = pos_ + (end_tag ? 2 : 1);
    const std::size_t name_at = i;
    while (i < in_.size() && !is_html_space(in_[i]) && in_[i] != '/' && in_[i] != '>') ++i;
    token_.kind = end_tag ? HtmlToken::Kind::EndTag : HtmlToken::Kind::StartTag;
    token_.name.clear();
    append_lower(token_.name, in_.substr(name_at, i - name_at));
    token_.attributes.clear();
    token_.self_closing = false;
    token_.raw_text = false;

    bool closed = false;
    while (i < in_.size()) {
      const char c = in_[i];
      if (is_html_space(c)) {
        ++i;
      } else if (c == '>') {
        ++i;
        closed = true;
        break;
      } else if (c == '/') {
        ++i;
        if (i < in_.size() && in_[i] == '>') {
          token_.self_closing = true;
          ++i;
          closed = true;
          break;
        }
      } else {
        i = attribute(i);
      }
    }
    pos_ = i;
    // A tag cut off by the end of the input is dropped, as the HTML tokenizer does.
    if (!closed) return true;
    token_.raw = in_.substr(start, i - start);
    if (end_tag) token_.attributes.clear();  // end tags carry none in the DOM
    if (!end_tag) {
      mode_ = text_mode_after(token_.name);
      if (mode_ != TextMode::Normal) raw_tag_ = token_.name;
    }
    return visit_(token_);
  }

  // Reads one attribute at in_[i]; returns the position after it.
  std::size_t attribute(std::size_t i) {
    const std::size_t name_at = i;
    ++i;  // the first character may be '=' (a parse error the DOM keeps as a name)
    while (i < in_.size() && !is_html_space(in_[i]) && in_[i] != '/' && in_[i] != '>' && in_[i] != '=') ++i;
    const std::string_view name = in_.substr(name_at, i - name_at);
    std::size_t j = i;
    while (j < in_.size() && is_html_space(in_[j])) ++j;
    std::string_view raw_value;
    bool has_value = false;
    if (j < in_.size() && in_[j] == '=') {
      ++j;
      while (j < in_.size() && is_html_space(in_[j])) ++j;
      has_value = true;
      if (j < in_.size() && (in_[j] == '"' || in_[j] == '\'')) {
        const char quote = in_[j];
        const std::size_t close = in_.find(quote, j + 1);
        const std::size_t value_end = close == std::string_view::npos ? in_.size() : close;
        raw_value = in_.substr(j + 1, value_end - j - 1);
        j = close == std::string_view::npos ? in_.size() : close + 1;
      } else {
        const std::size_t value_at = j;
        while (j < in_.size() && !is_html_space(in_[j]) && in_[j] != '>') ++j;
        raw_value = in_.substr(value_at, j - value_at);
      }
      i = j;
    }
    std::string lower_name;
    append_lower(lower_name, name);
    if (find_attribute(token_.attributes, lower_name) == nullptr) {
      HtmlAttribute& attribute = token_.attributes.emplace_back();
      attribute.name = std::move(lower_name);
      if (has_value) decode_into(raw_value, true, attribute.value);
    }
    return i;
  }

  std::string_view in_;
  const std::function<bool(const HtmlToken&)>& visit_;
  std::size_t pos_ = 0;
  TextMode mode_ = TextMode::Normal;
  std::string raw_tag_;
  HtmlToken token_;
};

// ------------------------------------------------------------------------------------ selectors

struct AttributeTest {
  std::string name;
  std::optional<std::string> value;
};

struct Compound {
  std::string tag;  // "" or "*": any
  std::vector<std::string> ids;
  std::vector<std::string> classes;
  std::vector<AttributeTest> attributes;
};

bool is_name_char(char c) {
  return is_ascii_alnum(c) || c == '-' || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

// Parses the selector grammar documented in the header; "" or the error sentence.
std::string parse_selector(std::string_view s, std::vector<Compound>& out) {
  out.clear();
  std::size_t i = 0;
  const auto skip_spaces = [&] {
    while (i < s.size() && is_html_space(s[i])) ++i;
  };
  const auto read_name = [&] {
    const std::size_t at = i;
    while (i < s.size() && is_name_char(s[i])) ++i;
    return std::string(s.substr(at, i - at));
  };
  skip_spaces();
  if (i == s.size()) return "the selector is empty";
  while (i < s.size()) {
    Compound& compound = out.emplace_back();
    bool any = false;
    if (s[i] == '*') {
      ++i;
      any = true;
    } else if (is_name_char(s[i])) {
      compound.tag = read_name();
      for (char& c : compound.tag) c = to_lower(c);
      any = true;
    }
    while (i < s.size() && !is_html_space(s[i])) {
      const char c = s[i];
      if (c == '#' || c == '.') {
        ++i;
        std::string name = read_name();
        if (name.empty()) return std::string("'") + c + "' must be followed by a name in selector \"" + std::string(s) + "\"";
        (c == '#' ? compound.ids : compound.classes).push_back(std::move(name));
      } else if (c == '[') {
        ++i;
        skip_spaces();
        AttributeTest test;
        const std::size_t at = i;
        while (i < s.size() && !is_html_space(s[i]) && s[i] != '=' && s[i] != ']') ++i;
        test.name.assign(s.substr(at, i - at));
        for (char& ch : test.name) ch = to_lower(ch);
        if (test.name.empty()) return "an attribute test needs a name in selector \"" + std::string(s) + "\"";
        skip_spaces();
        if (i < s.size() && s[i] == '=') {
          ++i;
          skip_spaces();
          if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
            const char quote = s[i];
            const std::size_t close = s.find(quote, i + 1);
            if (close == std::string_view::npos) return "unterminated quote in selector \"" + std::string(s) + "\"";
            test.value = std::string(s.substr(i + 1, close - i - 1));
            i = close + 1;
          } else {
            const std::size_t value_at = i;
            while (i < s.size() && s[i] != ']' && !is_html_space(s[i])) ++i;
            test.value = std::string(s.substr(value_at, i - value_at));
          }
          skip_spaces();
        }
        if (i >= s.size() || s[i] != ']') return "missing ']' in selector \"" + std::string(s) + "\"";
        ++i;
        compound.attributes.push_back(std::move(test));
      } else {
        return std::string("unsupported '") + c + "' in selector \"" + std::string(s) +
               "\" (supported: tag, #id, .class, [attr], [attr=value], and descendants separated by spaces)";
      }
      any = true;
    }
    if (!any) return "empty part in selector \"" + std::string(s) + "\"";
    skip_spaces();
  }
  return {};
}

bool has_class(const std::string& class_attribute, std::string_view wanted) {
  std::size_t i = 0;
  while (i < class_attribute.size()) {
    while (i < class_attribute.size() && is_html_space(class_attribute[i])) ++i;
    const std::size_t at = i;
    while (i < class_attribute.size() && !is_html_space(class_attribute[i])) ++i;
    if (i > at && std::string_view(class_attribute).substr(at, i - at) == wanted) return true;
  }
  return false;
}

bool matches(const Compound& compound, std::string_view tag, const HtmlAttributes& attributes) {
  if (!compound.tag.empty() && compound.tag != tag) return false;
  for (const std::string& id : compound.ids) {
    const std::string* value = find_attribute(attributes, "id");
    if (value == nullptr || *value != id) return false;
  }
  for (const std::string& cls : compound.classes) {
    const std::string* value = find_attribute(attributes, "class");
    if (value == nullptr || !has_class(*value, cls)) return false;
  }
  for (const AttributeTest& test : compound.attributes) {
    const std::string* value = find_attribute(attributes, test.name);
    if (value == nullptr || (test.value && *value != *test.value)) return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------ open elements

std::optional<int> parse_cid(const std::string* text) {
  if (text == nullptr) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

struct OpenElement {
  std::string tag;
  HtmlAttributes attributes;
  std::optional<int> component;
  std::size_t offset = 0;  // where its start tag begins in the source
};

bool is_paragraph_closer(std::string_view tag) {
  static constexpr std::array<std::string_view, 30> kClosers{
      "address", "article", "aside", "blockquote", "details", "div", "dl", "fieldset", "figcaption", "figure",
      "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "main", "menu", "nav", "ol", "p",
      "pre", "section", "table", "ul", "li"};
  return std::find(kClosers.begin(), kClosers.end(), tag) != kClosers.end();
}

// The open-element stack, with the few implied end tags that matter for reading text
// (p, li, option, dt/dd, tr, td/th). Phoenix templates are well formed; this is for the rest.
class ElementStack {
 public:
  const std::vector<OpenElement>& elements() const { return open_; }

  // Applies implied end tags for a start tag `tag` before it is pushed.
  void before_start(std::string_view tag) {
    if (tag == "li") close_up_to("li", {"ul", "ol", "menu"});
    if (tag == "dt" || tag == "dd") {
      close_up_to("dt", {"dl"});
      close_up_to("dd", {"dl"});
    }
    if (tag == "option" || tag == "optgroup") close_top("option");
    if (tag == "optgroup") close_top("optgroup");
    if (tag == "tr") close_up_to("tr", {"table", "tbody", "thead", "tfoot"});
    if (tag == "td" || tag == "th") {
      close_up_to("td", {"tr", "table"});
      close_up_to("th", {"tr", "table"});
    }
    if (is_paragraph_closer(tag)) close_up_to("p", {"button", "table", "div", "section", "article", "main"});
  }

  void push(OpenElement element) { open_.push_back(std::move(element)); }

  // An end tag closes the nearest open element with that name and everything inside it; an end
  // tag nothing matches is ignored.
  void end(std::string_view tag) {
    for (std::size_t i = open_.size(); i-- > 0;) {
      if (open_[i].tag == tag) {
        open_.resize(i);
        return;
      }
    }
  }

  std::optional<int> component() const { return open_.empty() ? std::nullopt : open_.back().component; }

 private:
  void close_top(std::string_view tag) {
    if (!open_.empty() && open_.back().tag == tag) open_.pop_back();
  }

  void close_up_to(std::string_view tag, std::initializer_list<std::string_view> scope) {
    for (std::size_t i = open_.size(); i-- > 0;) {
      if (open_[i].tag == tag) {
        open_.resize(i);
        return;
      }
      if (std::find(scope.begin(), scope.end(), open_[i].tag) != scope.end()) return;
    }
  }

  std::vector<OpenElement> open_;
};

// Does the element about to be pushed (tag/attributes, with `stack` its ancestors) match the
// descendant chain? The last compound must match it; the others match ancestors, right to left
// (greedy nearest-first is exact for descendant combinators).
bool matches_chain(const std::vector<Compound>& chain, std::string_view tag, const HtmlAttributes& attributes,
                   const std::vector<OpenElement>& ancestors) {
  if (chain.empty() || !matches(chain.back(), tag, attributes)) return false;
  std::size_t want = chain.size() - 1;
  for (std::size_t i = ancestors.size(); want > 0 && i-- > 0;) {
    if (matches(chain[want - 1], ancestors[i].tag, ancestors[i].attributes)) --want;
  }
  return want == 0;
}

// ------------------------------------------------------------------------------------ subtrees

// A matched element and everything inside it, flattened.
struct CapturedNode {
  enum class Kind { Start, End, Text };
  Kind kind;
  std::string tag;
  HtmlAttributes attributes;
  std::string text;  // decoded
};

struct Capture {
  std::string tag;
  HtmlAttributes attributes;
  std::optional<int> component;
  std::vector<CapturedNode> nodes;  // inside the element (not its own start/end)
};

std::optional<int> component_of(const HtmlAttributes& attributes, const ElementStack& stack) {
  const std::optional<int> own = parse_cid(find_attribute(attributes, "data-phx-component"));
  return own ? own : stack.component();
}

// Finds the first element matching `chain` and captures its subtree. With `enclosing_form`, the
// capture is instead the nearest <form> that is the match or contains it.
std::optional<Capture> capture_first(std::string_view html, const std::vector<Compound>& chain, bool enclosing_form) {
  std::optional<Capture> capture;
  std::optional<std::size_t> form_offset;
  ElementStack stack;
  std::size_t capture_depth = 0;  // stack size while inside the captured element
  bool capturing = false;

  const std::function<bool(const HtmlToken&)> visit = [&](const HtmlToken& token) {
    switch (token.kind) {
      case HtmlToken::Kind::StartTag: {
        stack.before_start(token.name);
        if (capturing && stack.elements().size() < capture_depth) return false;  // implied close
        const bool is_void = is_void_element(token.name);
        if (capturing) {
          capture->nodes.push_back({CapturedNode::Kind::Start, token.name, token.attributes, {}});
          if (is_void) capture->nodes.push_back({CapturedNode::Kind::End, token.name, {}, {}});
        } else if (matches_chain(chain, token.name, token.attributes, stack.elements())) {
          if (enclosing_form) {
            if (token.name == "form") {
              form_offset = static_cast<std::size_t>(token.raw.data() - html.data());
              return false;
            }
            for (std::size_t i = stack.elements().size(); i-- > 0;) {
              if (stack.elements()[i].tag == "form") {
                form_offset = stack.elements()[i].offset;
                break;
              }
            }
            return false;
          }
          capture.emplace();
          capture->tag = token.name;
          capture->attributes = token.attributes;
          capture->component = component_of(token.attributes, stack);
          if (is_void) return false;
          capturing = true;
          capture_depth = stack.elements().size() + 1;
        }
        if (!is_void) {
          OpenElement element;
          element.tag = token.name;
          element.attributes = token.attributes;
          element.component = component_of(token.attributes, stack);
          element.offset = static_cast<std::size_t>(token.raw.data() - html.data());
          stack.push(std::move(element));
        }
        return true;
      }
      case HtmlToken::Kind::EndTag:
        stack.end(token.name);
        if (capturing) {
          if (stack.elements().size() < capture_depth) return false;
          capture->nodes.push_back({CapturedNode::Kind::End, token.name, {}, {}});
        }
        return true;
      case HtmlToken::Kind::Text:
        if (capturing) {
          CapturedNode& node = capture->nodes.emplace_back(CapturedNode{CapturedNode::Kind::Text, {}, {}, {}});
          if (token.raw_text) {
            node.text = normalize_newlines(token.raw);
          } else {
            decode_into(token.raw, false, node.text);
          }
        }
        return true;
      default:
        return true;
    }
  };

  scan_html(html, visit);
  if (!enclosing_form) return capture;
  if (!form_offset) return std::nullopt;
  // Second pass from the form's start tag: capture the form itself. The component context of
  // the form is what encloses it, so it is looked up in a scan of the prefix.
  static const std::vector<Compound> kAnyForm{Compound{"form", {}, {}, {}}};
  std::optional<Capture> form = capture_first(html.substr(*form_offset), kAnyForm, false);
  if (form && !form->component) {
    ElementStack prefix_stack;
    const std::function<bool(const HtmlToken&)> walk = [&](const HtmlToken& token) {
      if (token.kind == HtmlToken::Kind::StartTag && !is_void_element(token.name)) {
        prefix_stack.before_start(token.name);
        prefix_stack.push(OpenElement{token.name, {}, component_of(token.attributes, prefix_stack), 0});
      } else if (token.kind == HtmlToken::Kind::EndTag) {
        prefix_stack.end(token.name);
      }
      return true;
    };
    scan_html(html.substr(0, *form_offset), walk);
    form->component = prefix_stack.component();
  }
  return form;
}

std::string subtree_text(const std::vector<CapturedNode>& nodes) {
  std::string all;
  for (const CapturedNode& node : nodes) {
    if (node.kind == CapturedNode::Kind::Text) all += node.text;
  }
  return all;
}

// The text of a <textarea>: the parser drops one newline right after the start tag.
std::string textarea_value(std::string text) {
  if (!text.empty() && text.front() == '\n') text.erase(0, 1);
  return text;
}

struct OptionInfo {
  std::string value;
  bool selected = false;
  bool disabled = false;
};

// The options of a <select> whose subtree starts at nodes[begin] (just inside it).
std::vector<OptionInfo> select_options(const std::vector<CapturedNode>& nodes, std::size_t begin, std::size_t end) {
  std::vector<OptionInfo> options;
  bool in_option = false;
  bool option_has_value = false;
  std::string option_text;
  bool optgroup_disabled = false;
  const auto finish = [&] {
    if (in_option && !option_has_value) options.back().value = collapse_whitespace(option_text);
    in_option = false;
  };
  for (std::size_t i = begin; i < end; ++i) {
    const CapturedNode& node = nodes[i];
    if (node.kind == CapturedNode::Kind::Start && node.tag == "option") {
      finish();
      OptionInfo& option = options.emplace_back();
      const std::string* value = find_attribute(node.attributes, "value");
      option_has_value = value != nullptr;
      if (value) option.value = *value;
      option.selected = find_attribute(node.attributes, "selected") != nullptr;
      option.disabled = optgroup_disabled || find_attribute(node.attributes, "disabled") != nullptr;
      option_text.clear();
      in_option = true;
    } else if (node.kind == CapturedNode::Kind::Start && node.tag == "optgroup") {
      finish();
      optgroup_disabled = find_attribute(node.attributes, "disabled") != nullptr;
    } else if (node.kind == CapturedNode::Kind::End && node.tag == "optgroup") {
      finish();
      optgroup_disabled = false;
    } else if (node.kind == CapturedNode::Kind::End && node.tag == "option") {
      finish();
    } else if (node.kind == CapturedNode::Kind::Text && in_option) {
      option_text += node.text;
    }
  }
  finish();
  return options;
}

// Selectedness as the HTML spec settles it for a select: a single select keeps the last option
// marked selected, or else its first enabled option.
void settle_selectedness(std::vector<OptionInfo>& options, bool multiple) {
  if (multiple) return;
  std::size_t last_selected = options.size();
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (options[i].selected) last_selected = i;
  }
  for (std::size_t i = 0; i < options.size(); ++i) options[i].selected = i == last_selected;
  if (last_selected == options.size()) {
    for (OptionInfo& option : options) {
      if (!option.disabled) {
        option.selected = true;
        break;
      }
    }
  }
}

// Index just past the End matching the Start at nodes[start] (nodes.size() when unclosed).
std::size_t subtree_end(const std::vector<CapturedNode>& nodes, std::size_t start) {
  int depth = 0;
  for (std::size_t i = start; i < nodes.size(); ++i) {
    if (nodes[i].kind == CapturedNode::Kind::Start) ++depth;
    if (nodes[i].kind == CapturedNode::Kind::End && --depth == 0) return i + 1;
  }
  return nodes.size();
}

std::string input_type(const HtmlAttributes& attributes) {
  static constexpr std::array<std::string_view, 22> kTypes{
      "hidden", "text",     "search", "tel",   "url",   "email", "password", "date",  "month", "week",  "time",
      "datetime-local", "number", "range", "color", "checkbox", "radio", "file",  "submit", "image", "reset", "button"};
  const std::string* type = find_attribute(attributes, "type");
  if (type == nullptr) return "text";
  std::string lower;
  append_lower(lower, *type);
  return std::find(kTypes.begin(), kTypes.end(), lower) != kTypes.end() ? lower : "text";
}

bool is_checkable(std::string_view type) { return type == "checkbox" || type == "radio"; }

void fill_value(Element& element, const std::vector<CapturedNode>& nodes) {
  const std::string* value = find_attribute(element.attributes, "value");
  const std::string& tag = element.tag;
  if (tag == "input") {
    element.value = value ? *value : (is_checkable(input_type(element.attributes)) ? "on" : "");
  } else if (tag == "button" || tag == "param" || tag == "data") {
    element.value = value ? *value : "";
  } else if (tag == "option") {
    element.value = value ? *value : collapse_whitespace(subtree_text(nodes));
  } else if (tag == "textarea") {
    element.value = textarea_value(subtree_text(nodes));
  } else if (tag == "output") {
    element.value = subtree_text(nodes);
  } else if (tag == "select") {
    std::vector<OptionInfo> options = select_options(nodes, 0, nodes.size());
    settle_selectedness(options, find_attribute(element.attributes, "multiple") != nullptr);
    element.value = "";
    for (const OptionInfo& option : options) {
      if (option.selected) {
        element.value = option.value;
        break;
      }
    }
  } else if (tag == "li" || tag == "meter" || tag == "progress") {
    // The DOM property is a number: li parses the attribute as an integer (0 when absent or
    // invalid); meter and progress as a float (0 when absent).
    element.value_is_number = true;
    std::string number = "0";
    if (value != nullptr) {
      const std::string trimmed = collapse_whitespace(*value);
      if (tag == "li") {
        long parsed = 0;
        const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), parsed);
        if (ec == std::errc() && end != trimmed.data()) number = std::to_string(parsed);
      } else {
        double parsed = 0;
        const auto [end, ec] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), parsed);
        if (ec == std::errc() && end == trimmed.data() + trimmed.size()) number = trimmed;
      }
    }
    element.value = number;
  }
}

FormControl make_control(const CapturedNode& node, const std::vector<CapturedNode>& nodes, std::size_t index,
                         bool in_disabled_fieldset) {
  FormControl control;
  control.tag = node.tag;
  control.attributes = node.attributes;
  if (const std::string* name = find_attribute(node.attributes, "name")) control.name = *name;
  control.disabled = in_disabled_fieldset || find_attribute(node.attributes, "disabled") != nullptr;
  control.no_unused_field = find_attribute(node.attributes, "phx-no-unused-field") != nullptr;
  const std::string* value = find_attribute(node.attributes, "value");
  if (node.tag == "input") {
    control.type = input_type(node.attributes);
    control.checked = find_attribute(node.attributes, "checked") != nullptr;
    control.value = value ? *value : (is_checkable(control.type) ? "on" : "");
  } else if (node.tag == "button") {
    const std::string* type = find_attribute(node.attributes, "type");
    std::string lower;
    if (type) append_lower(lower, *type);
    control.type = (lower == "button" || lower == "reset") ? lower : "submit";
    control.value = value ? *value : "";
  } else if (node.tag == "textarea") {
    control.type = "textarea";
    const std::size_t end = subtree_end(nodes, index);
    control.value = textarea_value(subtree_text({nodes.begin() + static_cast<std::ptrdiff_t>(index) + 1,
                                                 nodes.begin() + static_cast<std::ptrdiff_t>(end)}));
  } else {  // select
    const bool multiple = find_attribute(node.attributes, "multiple") != nullptr;
    control.type = multiple ? "select-multiple" : "select-one";
    std::vector<OptionInfo> options = select_options(nodes, index + 1, subtree_end(nodes, index));
    settle_selectedness(options, multiple);
    for (const OptionInfo& option : options) {
      if (option.selected && !option.disabled) control.selected.push_back(option.value);
    }
  }
  return control;
}

}  // namespace

// ------------------------------------------------------------------------------------ public

std::optional<Version> parse_version(std::string_view text) {
  Version version;
  int* parts[] = {&version.major, &version.minor, &version.patch};
  std::size_t i = 0;
  int count = 0;
  for (; count < 3; ++count) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    *parts[count] = value;
    i = static_cast<std::size_t>(end - text.data());
    if (i == text.size() || text[i] != '.') break;
    ++i;
  }
  if (count == 0) return std::nullopt;  // one number is not a version
  if (count == 1) version.patch = 0;
  if (i < text.size() && text[i] != '-' && text[i] != '+') return std::nullopt;
  return version;
}

std::string to_string(const Version& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor) + "." + std::to_string(version.patch);
}

const std::string* find_attribute(const HtmlAttributes& attributes, std::string_view name) {
  for (const HtmlAttribute& attribute : attributes) {
    if (attribute.name == name) return &attribute.value;
  }
  return nullptr;
}

void scan_html(std::string_view html, const std::function<bool(const HtmlToken&)>& visit) {
  Tokenizer(html, visit).run();
}

std::string decode_html_entities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  decode_into(text, false, out);
  return out;
}

bool is_void_element(std::string_view tag) {
  static constexpr std::array<std::string_view, 16> kVoid{"area", "base",  "br",   "col",  "command", "embed",
                                                          "hr",   "img",   "input", "keygen", "link", "meta",
                                                          "param", "source", "track", "wbr"};
  return std::find(kVoid.begin(), kVoid.end(), tag) != kVoid.end();
}

PageScan scan_page(std::string_view html) {
  PageScan page;
  bool have_csrf = false;
  bool in_title = false;
  bool have_title = false;
  std::string title;
  const std::function<bool(const HtmlToken&)> visit = [&](const HtmlToken& token) {
    if (token.kind == HtmlToken::Kind::Text) {
      if (in_title) decode_into(token.raw, false, title);
      return true;
    }
    if (token.kind == HtmlToken::Kind::EndTag) {
      if (token.name == "title") in_title = false;
      return true;
    }
    if (token.kind != HtmlToken::Kind::StartTag) return true;
    const HtmlAttributes& attributes = token.attributes;
    if (token.name == "title" && !have_title) {
      in_title = true;
      have_title = true;
    }
    if (!have_csrf && token.name == "meta") {
      const std::string* name = find_attribute(attributes, "name");
      const std::string* content = find_attribute(attributes, "content");
      if (name && content && *name == "csrf-token") {
        page.csrf_token = *content;
        have_csrf = true;
      }
    }
    if (const std::string* session = find_attribute(attributes, "data-phx-session")) {
      const std::string* id = find_attribute(attributes, "id");
      if (id != nullptr && !id->empty()) {
        LiveViewRoot& view = page.views.emplace_back();
        view.id = *id;
        view.session = *session;
        if (const std::string* token_static = find_attribute(attributes, "data-phx-static")) view.static_token = *token_static;
        if (const std::string* parent = find_attribute(attributes, "data-phx-parent-id")) view.parent_id = *parent;
        view.main = find_attribute(attributes, "data-phx-main") != nullptr;
        view.sticky = find_attribute(attributes, "data-phx-sticky") != nullptr;
      }
    }
    if (find_attribute(attributes, "phx-track-static") != nullptr) {
      const std::string* url = find_attribute(attributes, "src");
      if (url == nullptr) url = find_attribute(attributes, "href");
      if (url != nullptr && !url->empty()) page.track_static.push_back(*url);
    }
    return true;
  };
  scan_html(html, visit);
  page.title = collapse_whitespace(title);
  return page;
}

std::vector<const LiveViewRoot*> roots_to_join(const PageScan& page) {
  std::vector<const LiveViewRoot*> roots;
  for (const LiveViewRoot& view : page.views) {
    if (!view.session.empty() && view.parent_id.empty()) roots.push_back(&view);
  }
  return roots;
}

std::string selector_error(std::string_view selector) {
  std::vector<Compound> chain;
  return parse_selector(selector, chain);
}

std::optional<Element> find_element(std::string_view html, std::string_view selector) {
  std::vector<Compound> chain;
  if (!parse_selector(selector, chain).empty()) return std::nullopt;
  std::optional<Capture> capture = capture_first(html, chain, false);
  if (!capture) return std::nullopt;
  Element element;
  element.tag = std::move(capture->tag);
  element.attributes = std::move(capture->attributes);
  element.component = capture->component;
  element.text = collapse_whitespace(subtree_text(capture->nodes));
  element.checked = element.tag == "input" && find_attribute(element.attributes, "checked") != nullptr;
  fill_value(element, capture->nodes);
  return element;
}

std::optional<std::string> element_text(std::string_view html, std::string_view selector) {
  std::optional<Element> element = find_element(html, selector);
  if (!element) return std::nullopt;
  return std::move(element->text);
}

std::optional<Form> find_form(std::string_view html, std::string_view selector) {
  std::vector<Compound> chain;
  if (!parse_selector(selector, chain).empty()) return std::nullopt;
  std::optional<Capture> capture = capture_first(html, chain, true);
  if (!capture) return std::nullopt;
  Form form;
  form.attributes = std::move(capture->attributes);
  form.component = capture->component;
  const std::vector<CapturedNode>& nodes = capture->nodes;
  // Disabled fieldsets disable what they contain (their first <legend> aside, ignored here).
  std::vector<std::pair<std::string, bool>> open;  // tag, disabled fieldset
  int disabled_depth = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const CapturedNode& node = nodes[i];
    if (node.kind == CapturedNode::Kind::Start) {
      if (node.tag == "input" || node.tag == "select" || node.tag == "textarea" || node.tag == "button") {
        form.controls.push_back(make_control(node, nodes, i, disabled_depth > 0));
      }
      const bool disables = node.tag == "fieldset" && find_attribute(node.attributes, "disabled") != nullptr;
      if (disables) ++disabled_depth;
      open.emplace_back(node.tag, disables);
    } else if (node.kind == CapturedNode::Kind::End) {
      for (std::size_t j = open.size(); j-- > 0;) {
        if (open[j].first == node.tag) {
          for (std::size_t k = j; k < open.size(); ++k) {
            if (open[k].second) --disabled_depth;
          }
          open.resize(j);
          break;
        }
      }
    }
  }
  return form;
}

}  // namespace stampede::proto::lv
