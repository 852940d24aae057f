#pragma once
// The small selector language of liveview_page.hpp (tags, #id, .class, [attr], [attr=value],
// descendant chains): parsed into compounds and matched against one element.
// Internal to liveview_page*.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_page.hpp"

namespace stampede::proto::lv::detail {

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

// Parses the selector grammar documented in the header; "" or the error sentence.
std::string parse_selector(std::string_view s, std::vector<Compound>& out);

bool matches(const Compound& compound, std::string_view tag, const HtmlAttributes& attributes);

}  // namespace stampede::proto::lv::detail
