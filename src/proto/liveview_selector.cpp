#include "proto/liveview_selector.hpp"

#include <utility>

#include "proto/liveview_html_text.hpp"

namespace stampede::proto::lv::detail {
namespace {

bool is_name_char(char c) {
  return is_ascii_alnum(c) || c == '-' || c == '_' || static_cast<unsigned char>(c) >= 0x80;
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

}  // namespace

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

}  // namespace stampede::proto::lv::detail

namespace stampede::proto::lv {

std::string selector_error(std::string_view selector) {
  std::vector<detail::Compound> chain;
  return detail::parse_selector(selector, chain);
}

}  // namespace stampede::proto::lv
