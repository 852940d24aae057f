#include "proto/liveview_rendered_html.hpp"

#include <string>

namespace stampede::proto::lv::detail {

std::size_t root_tag_name_end(std::string_view html) {
  std::size_t i = 0;
  while (i < html.size()) {
    if (html[i] == ' ' || html[i] == '\n' || html[i] == '\t' || html[i] == '\r' || html[i] == '\f') {
      ++i;
    } else if (html.substr(i).starts_with("<!--")) {
      const std::size_t close = html.find("-->", i + 4);
      if (close == std::string_view::npos) return std::string_view::npos;
      i = close + 3;
    } else {
      break;
    }
  }
  if (i + 1 >= html.size() || html[i] != '<') return std::string_view::npos;
  const char first = html[i + 1];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z'))) return std::string_view::npos;
  std::size_t j = i + 1;
  while (j < html.size() && html[j] != ' ' && html[j] != '\n' && html[j] != '\t' && html[j] != '\r' &&
         html[j] != '\f' && html[j] != '>' && html[j] != '/') {
    ++j;
  }
  return j;
}

void HtmlSink::component(int cid) {
  const auto it = components_.find(cid);
  // Merges keep every referenced component present and the graph acyclic and shallow; the
  // checks here only make rendering safe whatever happens.
  if (it == components_.end() || !it->second.tree || depth_ > kMaxComponentDepth) return;
  const std::size_t start = out_.size();
  ++depth_;
  render_node(*it->second.tree, *this);
  --depth_;
  if (!mark_) return;
  const std::size_t name_end = root_tag_name_end(std::string_view(out_).substr(start));
  if (name_end == std::string_view::npos) return;
  out_.insert(start + name_end, " data-phx-component=\"" + std::to_string(cid) + "\"");
}

}  // namespace stampede::proto::lv::detail
