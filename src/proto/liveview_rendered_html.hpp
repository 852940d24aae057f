#pragma once
// Rendering the merged tree (liveview_rendered_tree.hpp) into HTML: statics interleaved with
// dynamics, components expanded in place (marked like the browser marks them, if asked), or kept
// as references in stream item pieces. Internal to liveview_rendered*.cpp.
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv::detail {

// Where rendered HTML goes: the page string (components expanded) or stream item pieces
// (components kept as references).
class HtmlSink {
 public:
  HtmlSink(std::string& out, const Components& components, bool mark) : out_(out), components_(components), mark_(mark) {}
  void text(std::string_view s) { out_ += s; }
  void component(int cid);

 private:
  std::string& out_;
  const Components& components_;
  bool mark_;
  std::size_t depth_ = 0;
};

class PieceSink {
 public:
  explicit PieceSink(std::vector<Piece>& pieces) : pieces_(pieces) {}
  void text(std::string_view s) {
    if (s.empty()) return;
    if (pieces_.empty() || !std::holds_alternative<std::string>(pieces_.back())) pieces_.emplace_back(std::string());
    std::get<std::string>(pieces_.back()) += s;
  }
  void component(int cid) { pieces_.emplace_back(cid); }

 private:
  std::vector<Piece>& pieces_;
};

template <class Sink>
void render_node(const Node& node, Sink& sink);

template <class Sink>
void render_dynamic(const Dynamic& d, Sink& sink) {
  if (const auto* text = std::get_if<std::string>(&d)) {
    sink.text(*text);
  } else if (const int* cid = std::get_if<int>(&d)) {
    sink.component(*cid);
  } else if (const auto* node = std::get_if<NodePtr>(&d); node && *node) {
    render_node(**node, sink);
  }
}

template <class Sink>
void render_interleaved(const std::vector<std::string>& statics, const Dynamics& dynamics, Sink& sink) {
  sink.text(statics[0]);
  for (std::size_t i = 1; i < statics.size(); ++i) {
    if (i - 1 < dynamics.size()) render_dynamic(dynamics[i - 1], sink);
    sink.text(statics[i]);
  }
}

template <class Sink>
void render_node(const Node& node, Sink& sink) {
  const std::vector<std::string>& statics = *node.statics;
  if (!node.comprehension) {
    render_interleaved(statics, node.dynamics, sink);
    return;
  }
  for (const Dynamics& entry : node.entries) render_interleaved(statics, entry, sink);
  for (const StreamItem& item : node.stream_items) {
    for (const Piece& piece : item.pieces) {
      if (const auto* text = std::get_if<std::string>(&piece)) {
        sink.text(*text);
      } else {
        sink.component(std::get<int>(piece));
      }
    }
  }
}

// Where the root element of a component's HTML starts its attributes: after leading whitespace
// and comments, "<tag" (modifyRoot in rendered.js). npos when there is no such tag.
std::size_t root_tag_name_end(std::string_view html);

}  // namespace stampede::proto::lv::detail
