#include "target/absinthe_document.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <charconv>

namespace stampede::target {
namespace {

constexpr Nanos kDefaultInterval = 1000 * kMilli;
constexpr Nanos kShortestInterval = 10 * kMilli;
constexpr Nanos kLongestInterval = 60 * kSecond;

bool is_name_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// GraphQL's ignored tokens: white space, line ends, commas and # comments.
void skip_ignored(std::string_view text, std::size_t& at) {
  while (at < text.size()) {
    const char c = text[at];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',') {
      ++at;
    } else if (c == '#') {
      while (at < text.size() && text[at] != '\n' && text[at] != '\r') ++at;
    } else {
      return;
    }
  }
}

std::string_view read_name(std::string_view text, std::size_t& at) {
  const auto start = at;
  if (at >= text.size() || !is_name_start(text[at])) return {};
  while (at < text.size() && is_name_char(text[at])) ++at;
  return text.substr(start, at - start);
}

// Moves `at` to the operation's selection set: the first '{' outside parentheses (variable
// defaults may hold objects) and outside strings.
bool find_selection_set(std::string_view text, std::size_t& at) {
  int parens = 0;
  while (at < text.size()) {
    const char c = text[at];
    if (c == '"') {
      for (++at; at < text.size() && text[at] != '"'; ++at) {
        if (text[at] == '\\') ++at;
      }
    } else if (c == '#') {
      skip_ignored(text, at);
      continue;
    } else if (c == '(') {
      ++parens;
    } else if (c == ')') {
      --parens;
    } else if (c == '{' && parens == 0) {
      return true;
    }
    ++at;
  }
  return false;
}

}  // namespace

std::optional<std::string> subscription_root_field(std::string_view document) {
  std::size_t at = 0;
  skip_ignored(document, at);
  if (read_name(document, at) != "subscription") return std::nullopt;
  if (!find_selection_set(document, at)) return std::nullopt;
  ++at;  // '{'
  skip_ignored(document, at);
  const auto name = read_name(document, at);  // an alias, or the field itself
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

std::string absinthe_document_id(std::string_view document, std::string_view variables_json) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  auto* context = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  EVP_DigestUpdate(context, document.data(), document.size());
  EVP_DigestUpdate(context, variables_json.data(), variables_json.size());
  EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string id;
  id.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    id += kHex[digest[i] >> 4];
    id += kHex[digest[i] & 0x0F];
  }
  return id;
}

Nanos subscription_interval(const boost::json::object& variables) {
  const auto* value = variables.if_contains("interval_ms");
  if (value == nullptr) return kDefaultInterval;
  double ms = 0;
  if (value->is_int64()) {
    ms = static_cast<double>(value->as_int64());
  } else if (value->is_uint64()) {
    ms = static_cast<double>(value->as_uint64());
  } else if (value->is_double()) {
    ms = value->as_double();
  } else if (value->is_string()) {
    const auto& text = value->as_string();
    long long parsed = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec != std::errc() || end != text.data() + text.size()) return kDefaultInterval;
    ms = static_cast<double>(parsed);
  } else {
    return kDefaultInterval;
  }
  // Compared as doubles first: a huge or NaN value must not overflow the conversion.
  if (!(ms * static_cast<double>(kMilli) >= static_cast<double>(kShortestInterval))) return kShortestInterval;
  if (ms * static_cast<double>(kMilli) >= static_cast<double>(kLongestInterval)) return kLongestInterval;
  return std::clamp(static_cast<Nanos>(ms * static_cast<double>(kMilli)), kShortestInterval, kLongestInterval);
}

}  // namespace stampede::target
