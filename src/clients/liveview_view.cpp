#include "clients/liveview_view.hpp"

#include <algorithm>
#include <utility>

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

std::vector<const LiveViewTopic*> joined_children(const LiveViewTopic& view, const LiveViewTopics& all) {
  std::vector<const LiveViewTopic*> out;
  for (const auto& v : all) {
    if (v->root.parent_id == view.root.id && v->rendered.joined()) out.push_back(v.get());
  }
  return out;
}

}  // namespace

std::string compose_html(const LiveViewTopic& view, const LiveViewTopics& all) {
  std::string html = view.rendered.to_html();
  const auto children = joined_children(view, all);
  if (children.empty()) return html;
  // Where each child's container start tag ends, in document order.
  std::vector<std::pair<std::size_t, const LiveViewTopic*>> inserts;
  lv::scan_html(html, [&](const lv::HtmlToken& token) {
    if (token.kind != lv::HtmlToken::Kind::StartTag) return true;
    const std::string* id = lv::find_attribute(token.attributes, "id");
    if (id == nullptr) return true;
    for (const LiveViewTopic* child : children) {
      if (child->root.id == *id) {
        inserts.emplace_back(static_cast<std::size_t>(token.raw.data() - html.data()) + token.raw.size(), child);
        break;
      }
    }
    return true;
  });
  std::string out;
  std::size_t at = 0;
  for (const auto& [position, child] : inserts) {
    out.append(html, at, position - at);
    out += compose_html(*child, all);
    at = position;
  }
  out.append(html, at, std::string::npos);
  return out;
}

bool may_have_children(const LiveViewTopic& view, const LiveViewTopics& all, std::string_view diff_text) {
  if (diff_text.find("data-phx-session") != std::string_view::npos) return true;
  return std::any_of(all.begin(), all.end(), [&](const auto& v) { return v->root.parent_id == view.root.id; });
}

}  // namespace stampede::clients
