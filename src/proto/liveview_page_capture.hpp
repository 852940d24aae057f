#pragma once
// Finding the first element a selector matches in HTML and capturing it with everything inside
// it, while tracking open elements (implied end tags, the enclosing LiveComponent).
// Internal to liveview_page*.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_page.hpp"
#include "proto/liveview_selector.hpp"

namespace stampede::proto::lv::detail {

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

// Finds the first element matching `chain` and captures its subtree. With `enclosing_form`, the
// capture is instead the nearest <form> that is the match or contains it.
std::optional<Capture> capture_first(std::string_view html, const std::vector<Compound>& chain, bool enclosing_form);

}  // namespace stampede::proto::lv::detail
