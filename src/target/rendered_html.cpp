#include "target/rendered_html.hpp"

#include <stdexcept>

namespace stampede::target {

void append_escaped_html(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_escaped_html(out, text);
  return out;
}

void RenderedHtml::push(const Template* statics) {
  if (statics == nullptr) throw std::logic_error("a dead render is always full: every node needs its statics");
  if (depth_ == kMaxDepth) throw std::logic_error("rendered tree nested too deep");
  frames_[depth_++] = Frame{statics, 0};
}

void RenderedHtml::reach(int slot) {
  auto& frame = frames_[depth_ - 1];
  const auto& parts = frame.statics->parts;
  // Full renders give every dynamic, in order: the statics before `slot` are all due now.
  while (frame.next <= static_cast<std::size_t>(slot) && frame.next < parts.size()) out_ += parts[frame.next++];
}

void RenderedHtml::pop() {
  auto& frame = frames_[depth_ - 1];
  const auto& parts = frame.statics->parts;
  while (frame.next < parts.size()) out_ += parts[frame.next++];
  --depth_;
}

void RenderedHtml::begin_root(const Template* statics) { push(statics); }

void RenderedHtml::end_root() { pop(); }

void RenderedHtml::text(int slot, std::string_view html) {
  reach(slot);
  out_ += html;
}

void RenderedHtml::begin(int slot, const Template* statics) {
  reach(slot);
  push(statics);
}

void RenderedHtml::end() { pop(); }

void RenderedHtml::begin_list(int slot, const Template* statics) {
  reach(slot);
  push(statics);
}

void RenderedHtml::begin_item(int) { frames_[depth_ - 1].next = 0; }

void RenderedHtml::item_text(int slot, std::string_view html, bool) { text(slot, html); }

void RenderedHtml::end_item() {
  auto& frame = frames_[depth_ - 1];
  const auto& parts = frame.statics->parts;
  while (frame.next < parts.size()) out_ += parts[frame.next++];
}

void RenderedHtml::end_list(int) { --depth_; }

void RenderedHtml::component(int slot, int, const LiveComponent& component, Changed) {
  reach(slot);
  push(&component.statics());
  component.render(*this, Changed::everything());
  pop();
}

void RenderedHtml::component_update(int, const LiveComponent&, Changed) {}

}  // namespace stampede::target
