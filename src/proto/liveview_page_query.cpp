// Reading elements and forms as a user would (liveview_page.hpp find_element, element_text,
// find_form): text, the value a control holds, selected options, and a form's controls.
#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "proto/liveview_html_text.hpp"
#include "proto/liveview_page.hpp"
#include "proto/liveview_page_capture.hpp"

namespace stampede::proto::lv {

using detail::append_lower;
using detail::capture_first;
using detail::Capture;
using detail::CapturedNode;
using detail::collapse_whitespace;
using detail::Compound;
using detail::parse_selector;

namespace {

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
