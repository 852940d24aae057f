#include "target/rendered_json.hpp"

#include <charconv>
#include <stdexcept>

#include "proto/json_string.hpp"

namespace stampede::target {
namespace {

void append_int(std::string& out, long long value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

}  // namespace

RenderedJson::RenderedJson(LiveViewDialect dialect, std::string& out) : dialect_(dialect), out_(out) {
  out_.clear();
  out_.push_back('{');
  frames_[0] = Frame{Kind::Root, 0, nullptr, true, false, dialect_ == LiveViewDialect::V0_20};
  depth_ = 1;
}

void RenderedJson::push(Frame frame) {
  if (depth_ == kMaxDepth) throw std::logic_error("rendered tree nested too deep");
  frame.inline_statics = frame.inline_statics || top().inline_statics;
  frames_[depth_++] = frame;
}

void RenderedJson::member_separator(Frame& frame) {
  if (frame.has_members) out_.push_back(',');
  frame.has_members = true;
}

void RenderedJson::key(int k) {
  out_.push_back('"');
  append_int(out_, k);
  out_ += "\":";
}

void RenderedJson::open(std::size_t index) {
  auto& frame = frames_[index];
  auto& parent = frames_[index - 1];
  const bool keyed = dialect_ == LiveViewDialect::V1;
  member_separator(parent);
  switch (frame.kind) {
    case Kind::Node:
      // 0.20 would number such templates in the comprehension's own "p": no page needs it.
      if (parent.kind == Kind::Item && !keyed) throw std::logic_error("nodes inside 0.20 comprehension items");
      key(frame.key);
      out_.push_back('{');
      break;
    case Kind::List:
      key(frame.key);
      out_ += keyed ? "{\"k\":{" : "{\"d\":[";
      break;
    case Kind::Item:
      if (keyed) {
        key(frame.key);
        out_.push_back('{');
      } else {
        out_.push_back('[');
      }
      break;
    case Kind::Components: out_ += "\"c\":{"; break;
    case Kind::Root: break;
  }
  frame.opened = true;
}

void RenderedJson::open_all() {
  for (std::size_t i = 1; i < depth_; ++i) {
    if (!frames_[i].opened) open(i);
  }
}

std::size_t RenderedJson::table_index(const Template& statics) {
  for (std::size_t i = 0; i < table_size_; ++i) {
    if (table_[i] == &statics) return i;
  }
  if (table_size_ == kMaxTemplates) throw std::logic_error("too many templates in one message");
  table_[table_size_] = &statics;
  return table_size_++;
}

void RenderedJson::write_statics(const Frame& frame) {
  if (!frame.inline_statics) {
    append_int(out_, static_cast<long long>(table_index(*frame.statics)));
    return;
  }
  out_.push_back('[');
  bool first = true;
  for (const auto part : frame.statics->parts) {
    if (!first) out_.push_back(',');
    first = false;
    proto::append_json_string(out_, part, "a rendered static");
  }
  out_.push_back(']');
}

void RenderedJson::close_node(Frame& frame) {
  if (frame.statics != nullptr) {
    member_separator(frame);
    out_ += "\"s\":";
    write_statics(frame);
    if (frame.statics->single_root) out_ += ",\"r\":1";
  }
}

void RenderedJson::begin_root(const Template* statics) { frames_[0].statics = statics; }

void RenderedJson::end_root() { close_node(frames_[0]); }

void RenderedJson::text(int slot, std::string_view html) {
  open_all();
  member_separator(top());
  key(slot);
  proto::append_json_string(out_, html, "rendered HTML");
}

void RenderedJson::begin(int slot, const Template* statics) { push(Frame{Kind::Node, slot, statics}); }

void RenderedJson::end() {
  auto& frame = top();
  // A diff node nothing was written into is left out; a full one is written even when it
  // has no dynamics ({"s":["Next"]}).
  if (!frame.opened && frame.statics != nullptr) open_all();
  if (frame.opened) {
    close_node(frame);
    out_.push_back('}');
  }
  --depth_;
}

void RenderedJson::begin_list(int slot, const Template* statics) {
  push(Frame{Kind::List, slot, statics});
  open_all();
}

void RenderedJson::begin_item(int index) {
  push(Frame{Kind::Item, index, nullptr});
  if (dialect_ == LiveViewDialect::V0_20) open_all();  // "d" entries are positional: always written
}

void RenderedJson::item_text(int slot, std::string_view html, bool changed) {
  if (dialect_ == LiveViewDialect::V0_20) {
    open_all();
    member_separator(top());
    proto::append_json_string(out_, html, "rendered HTML");
    return;
  }
  if (changed) text(slot, html);
}

void RenderedJson::end_item() {
  if (top().opened) out_.push_back(dialect_ == LiveViewDialect::V0_20 ? ']' : '}');
  --depth_;
}

void RenderedJson::end_list(int count) {
  auto& frame = top();
  if (dialect_ == LiveViewDialect::V1) {
    member_separator(frame);
    out_ += "\"kc\":";
    append_int(out_, count);
  }
  out_.push_back(dialect_ == LiveViewDialect::V1 ? '}' : ']');
  if (frame.statics != nullptr) {
    out_ += ",\"s\":";
    write_statics(frame);
  }
  out_.push_back('}');
  --depth_;
}

void RenderedJson::component(int slot, int cid, const LiveComponent& component, Changed changed) {
  open_all();
  member_separator(top());
  key(slot);
  append_int(out_, cid);
  component_update(cid, component, changed);
}

void RenderedJson::component_update(int cid, const LiveComponent& component, Changed changed) {
  if (pending_size_ == kMaxComponents) throw std::logic_error("too many components in one message");
  pending_[pending_size_++] = Pending{cid, &component, changed};
}

void RenderedJson::title(std::string_view text) {
  member_separator(frames_[0]);
  out_ += "\"t\":";
  proto::append_json_string(out_, text, "rendered text");
}

void RenderedJson::reply(std::string_view map_json) {
  member_separator(frames_[0]);
  out_ += "\"r\":";
  out_ += map_json;
}

void RenderedJson::no_events() {
  member_separator(frames_[0]);
  out_ += "\"e\":[]";
}

void RenderedJson::finish() {
  if (pending_size_ > 0) {
    // Component trees are rendered without a statics table (§5.11): their statics are inline.
    push(Frame{Kind::Components, 0, nullptr, false, false, true});
    for (std::size_t i = 0; i < pending_size_; ++i) {
      const auto& pending = pending_[i];
      push(Frame{Kind::Node, pending.cid, pending.changed.full ? &pending.component->statics() : nullptr});
      pending.component->render(*this, pending.changed);
      end();
    }
    if (top().opened) out_.push_back('}');
    --depth_;
    pending_size_ = 0;
  }
  if (table_size_ > 0) {
    member_separator(frames_[0]);
    out_ += "\"p\":{";
    for (std::size_t i = 0; i < table_size_; ++i) {
      if (i > 0) out_.push_back(',');
      key(static_cast<int>(i));
      out_.push_back('[');
      bool first = true;
      for (const auto part : table_[i]->parts) {
        if (!first) out_.push_back(',');
        first = false;
        proto::append_json_string(out_, part, "a rendered static");
      }
      out_.push_back(']');
    }
    out_.push_back('}');
  }
  out_.push_back('}');
}

}  // namespace stampede::target
