#include "proto/form.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/value.hpp>
#include <stdexcept>

#include "proto/ascii.hpp"

namespace stampede::proto {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

bool is_alnum(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

template <class Keep>
void percent_encode(std::string& out, std::string_view s, bool space_as_plus, Keep keep) {
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (keep(c)) {
      out += ch;
    } else if (c == ' ' && space_as_plus) {
      out += '+';
    } else {
      out += '%';
      out += kHexDigits[c >> 4];
      out += kHexDigits[c & 0xf];
    }
  }
}

bool url_unreserved(unsigned char c) { return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }
bool form_unreserved(unsigned char c) { return is_alnum(c) || c == '*' || c == '-' || c == '.' || c == '_'; }

void append_form(std::string& out, const FormFields& fields) {
  bool first = true;
  for (const auto& [name, value] : fields) {
    if (!first) out += '&';
    first = false;
    percent_encode(out, name, true, form_unreserved);
    out += '=';
    percent_encode(out, value, true, form_unreserved);
  }
}

using ascii::hex_value;

std::string form_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

std::string url_encode_component(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  percent_encode(out, s, false, url_unreserved);
  return out;
}

std::string form_encode_component(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  percent_encode(out, s, true, form_unreserved);
  return out;
}

std::string encode_form(const FormFields& fields) {
  std::string out;
  append_form(out, fields);
  return out;
}

std::string append_query(std::string_view url, const FormFields& fields) {
  if (fields.empty()) return std::string(url);
  const std::size_t hash = url.find('#');
  const std::string_view base = url.substr(0, hash);
  std::string out(base);
  if (base.find('?') == std::string_view::npos) {
    out += '?';
  } else if (base.back() != '?' && base.back() != '&') {
    out += '&';
  }
  append_form(out, fields);
  if (hash != std::string_view::npos) out += url.substr(hash);
  return out;
}

FormFields decode_form(std::string_view body) {
  FormFields fields;
  while (!body.empty()) {
    const std::size_t amp = body.find('&');
    const std::string_view field = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view{} : body.substr(amp + 1);
    if (field.empty()) continue;
    const std::size_t eq = field.find('=');
    fields.emplace_back(form_decode(field.substr(0, eq)),
                        eq == std::string_view::npos ? std::string{} : form_decode(field.substr(eq + 1)));
  }
  return fields;
}

namespace {

std::string scalar_text(const boost::json::value& value) {
  switch (value.kind()) {
    case boost::json::kind::string: return std::string(value.get_string());
    case boost::json::kind::bool_: return value.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(value.get_int64());
    case boost::json::kind::uint64: return std::to_string(value.get_uint64());
    case boost::json::kind::double_: return fmt::format("{:.14g}", value.get_double());
    default: return {};  // null
  }
}

// `name` is that of `value` ("" and `top` for the whole form).
void flatten(const boost::json::value& value, const std::string& name, bool top, FormFields& out) {
  if (const auto* array = value.if_array()) {
    for (const auto& item : *array) flatten(item, name + "[]", false, out);
  } else if (const auto* object = value.if_object()) {
    std::vector<const boost::json::key_value_pair*> members;
    members.reserve(object->size());
    for (const auto& member : *object) members.push_back(&member);
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->key() < b->key(); });
    for (const auto* member : members) {
      const std::string key(member->key());
      flatten(member->value(), top ? key : name + "[" + key + "]", false, out);
    }
  } else {
    out.emplace_back(name, scalar_text(value));
  }
}

}  // namespace

FormFields nested_form_fields(const boost::json::value& values) {
  if (!values.is_object()) throw std::invalid_argument("form values must be a table of names and values");
  FormFields out;
  flatten(values, "", true, out);
  return out;
}

}  // namespace stampede::proto
