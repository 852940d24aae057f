#include "proto/liveview_page_capture.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <initializer_list>
#include <utility>

#include "proto/liveview_html_text.hpp"

namespace stampede::proto::lv::detail {
namespace {

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

std::optional<int> component_of(const HtmlAttributes& attributes, const ElementStack& stack) {
  const std::optional<int> own = parse_cid(find_attribute(attributes, "data-phx-component"));
  return own ? own : stack.component();
}

}  // namespace

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

}  // namespace stampede::proto::lv::detail
