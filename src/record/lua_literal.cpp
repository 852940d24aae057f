#include "record/lua_literal.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <vector>

#include "proto/websocket_frame.hpp"

namespace stampede::record {
namespace {

bool is_ref(std::string_view s) { return s.substr(0, kRefPrefix.size()) == kRefPrefix; }

std::string ref_expression(std::string_view s) {
  auto expression = s.substr(kRefPrefix.size());
  if (!expression.empty() && expression.back() == kRefEnd) expression.remove_suffix(1);
  return std::string(expression);
}

std::string number_text(double d) {
  if (std::isfinite(d) == 0) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", d);
  // The shortest form that reads back the same.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, d);
    if (std::strtod(shorter, nullptr) == d) return shorter;
  }
  return buffer;
}

struct Node {
  std::vector<std::string> order;
  std::map<std::string, std::unique_ptr<Node>> children;
  std::vector<std::string> list;  // "name[]" values
  std::string value;
  bool is_value = false;
  bool is_list = false;
};

// "post[title]" -> {"post", "title"}; "tags[]" -> {"tags", ""}; nullopt when not nestable.
bool split_name(std::string_view name, std::vector<std::string>& out) {
  const auto open = name.find('[');
  out.emplace_back(name.substr(0, open));
  if (out.back().empty()) return false;
  if (open == std::string_view::npos) return true;
  auto rest = name.substr(open);
  while (!rest.empty()) {
    if (rest.front() != '[') return false;
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    out.emplace_back(rest.substr(1, close - 1));
    rest.remove_prefix(close + 1);
  }
  // only the last segment may be the list marker ""
  for (std::size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].empty() || std::all_of(out[i].begin(), out[i].end(), ::isdigit)) return false;
  if (out.size() > 1 && std::all_of(out.back().begin(), out.back().end(), ::isdigit) && !out.back().empty()) return false;
  return true;
}

bool insert(Node& root, const std::vector<std::string>& path, const std::string& value) {
  Node* node = &root;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto& segment = path[i];
    const bool last = i + 1 == path.size();
    if (segment.empty()) {  // "name[]": a list at `node`
      if (node->is_value || !node->children.empty()) return false;
      node->is_list = true;
      node->list.push_back(value);
      return true;
    }
    if (node->is_value || node->is_list) return false;
    auto& child = node->children[segment];
    if (!child) {
      child = std::make_unique<Node>();
      node->order.push_back(segment);
    }
    node = child.get();
    if (last) {
      if (node->is_value || node->is_list || !node->children.empty()) return false;
      node->is_value = true;
      node->value = value;
    }
  }
  return true;
}

std::string field_value(const std::string& value) { return lua_text(value); }

std::string write_node(const Node& node) {
  if (node.is_value) return field_value(node.value);
  std::string out = "{ ";
  if (node.is_list) {
    for (std::size_t i = 0; i < node.list.size(); ++i) out += (i ? ", " : "") + field_value(node.list[i]);
    return out + " }";
  }
  bool first = true;
  for (const auto& key : node.order) {
    out += (first ? "" : ", ") + lua_key(key) + " = " + write_node(*node.children.at(key));
    first = false;
  }
  return out + " }";
}

}  // namespace

bool is_lua_identifier(std::string_view text) {
  static constexpr std::array<std::string_view, 22> kKeywords{
      "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
      "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while"};
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  if (!std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; })) return false;
  return std::find(kKeywords.begin(), kKeywords.end(), text) == kKeywords.end();
}

std::string lua_string(std::string_view text) {
  const bool utf8 = proto::ws::is_valid_utf8(text);
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f || (c >= 0x80 && !utf8)) {
          // \ddd: three digits always, so a digit after it cannot join the escape.
          char escape[6];
          std::snprintf(escape, sizeof escape, "\\%03u", c);
          out += escape;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string lua_text(std::string_view text) { return is_ref(text) ? ref_expression(text) : lua_string(text); }

std::string lua_key(std::string_view key) {
  return is_lua_identifier(key) ? std::string(key) : "[" + lua_string(key) + "]";
}

std::string lua_value(const boost::json::value& value, bool& uses_json_null) {
  switch (value.kind()) {
    case boost::json::kind::null:
      uses_json_null = true;
      return "json.null";
    case boost::json::kind::bool_: return value.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(value.get_int64());
    case boost::json::kind::uint64: return std::to_string(value.get_uint64());
    case boost::json::kind::double_: return number_text(value.get_double());
    case boost::json::kind::string: {
      const std::string_view s = value.get_string();
      return is_ref(s) ? ref_expression(s) : lua_string(s);
    }
    case boost::json::kind::array: {
      const auto& array = value.get_array();
      if (array.empty()) return "{}";
      std::string out = "{ ";
      for (std::size_t i = 0; i < array.size(); ++i) out += (i ? ", " : "") + lua_value(array[i], uses_json_null);
      return out + " }";
    }
    case boost::json::kind::object: {
      const auto& object = value.get_object();
      if (object.empty()) return "{}";
      std::string out = "{ ";
      bool first = true;
      for (const auto& [key, item] : object) {
        out += (first ? "" : ", ") + lua_key(key) + " = " + lua_value(item, uses_json_null);
        first = false;
      }
      return out + " }";
    }
  }
  return "nil";
}

std::string lua_fields(const Fields& fields) {
  if (fields.empty()) return "{}";
  Node root;
  std::vector<std::pair<std::string, std::string>> flat;
  for (const auto& [name, value] : fields) {
    std::vector<std::string> path;
    if (!split_name(name, path) || !insert(root, path, value)) flat.emplace_back(name, value);
  }
  std::string out = write_node(root);
  if (flat.empty()) return out;
  out.resize(out.size() - 2);  // reopen "{ ... }"
  bool first = root.order.empty();
  for (const auto& [name, value] : flat) {
    out += (first ? "" : ", ") + lua_key(name) + " = " + field_value(value);
    first = false;
  }
  return out + " }";
}

std::string lua_url(std::string_view url) {
  if (url.find("://") != std::string_view::npos) return lua_string(url);
  std::string out = "BASE";
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) out += " .. " + lua_string(literal);
    literal.clear();
  };
  while (!url.empty()) {
    const auto at = url.find(kRefPrefix);
    literal += url.substr(0, at);
    if (at == std::string_view::npos) break;
    url.remove_prefix(at + kRefPrefix.size());
    const auto end = url.find(kRefEnd);
    flush();
    out += " .. " + std::string(url.substr(0, end));
    url.remove_prefix(end == std::string_view::npos ? url.size() : end + 1);
  }
  flush();
  return out;
}

}  // namespace stampede::record
