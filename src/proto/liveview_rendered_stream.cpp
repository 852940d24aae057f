#include "proto/liveview_rendered_stream.hpp"

#include <boost/json.hpp>

#include <algorithm>

#include "proto/liveview_rendered_html.hpp"

namespace stampede::proto::lv::detail {

namespace json = boost::json;

namespace {

std::optional<std::int64_t> optional_integer(const json::value& v, bool& ok) {
  if (v.is_null()) return std::nullopt;
  const std::optional<std::int64_t> n = as_integer(v);
  if (!n) ok = false;
  return n;
}

// The id of an item's root element, when the item starts with literal HTML.
std::string item_root_id(const std::vector<Piece>& pieces) {
  if (pieces.empty() || !std::holds_alternative<std::string>(pieces.front())) return {};
  std::string id;
  scan_html(std::get<std::string>(pieces.front()), [&](const HtmlToken& token) {
    if (token.kind == HtmlToken::Kind::StartTag) {
      if (const std::string* value = find_attribute(token.attributes, "id")) id = *value;
      return false;
    }
    return token.kind != HtmlToken::Kind::Text || token.raw.find_first_not_of(" \t\n\r\f") == std::string_view::npos;
  });
  return id;
}

}  // namespace

// [ref, inserts, delete_ids, reset?]; inserts [[dom_id, at, limit, update_only?], ...] (0.20.4+)
// or {dom_id: [at, limit]} (0.20.0-0.20.3). "" or the error.
std::string parse_stream(const json::value& value, StreamOps& ops) {
  const json::array* parts = value.if_array();
  if (parts == nullptr || parts->size() < 3 || parts->size() > 4) {
    return "\"stream\" must be [ref, inserts, deletes] or [ref, inserts, deletes, reset] (the 0.18 form is not supported)";
  }
  const json::value& ref = (*parts)[0];
  if (ref.is_string()) {
    ops.ref = std::string(sv(ref.get_string()));
  } else if (const std::optional<std::int64_t> n = as_integer(ref)) {
    ops.ref = std::to_string(*n);
  } else {
    return "a stream ref must be a string";
  }
  bool ok = true;
  if (const json::array* inserts = (*parts)[1].if_array()) {
    for (const json::value& insert : *inserts) {
      const json::array* fields = insert.if_array();
      if (fields == nullptr || fields->size() < 2 || fields->size() > 4 || !(*fields)[0].is_string()) {
        return "a stream insert must be [dom_id, at, limit, update_only]";
      }
      StreamInsert& out = ops.inserts.emplace_back();
      out.id = std::string(sv((*fields)[0].get_string()));
      const std::optional<std::int64_t> at = as_integer((*fields)[1]);
      if (!at) return "a stream insert position must be an integer";
      out.at = *at;
      if (fields->size() > 2) out.limit = optional_integer((*fields)[2], ok);
      if (fields->size() > 3) {
        if (!(*fields)[3].is_bool()) return "a stream insert's update_only must be a boolean";
        out.update_only = (*fields)[3].get_bool();
      }
    }
  } else if (const json::object* insert_map = (*parts)[1].if_object()) {
    for (const json::key_value_pair& kv : *insert_map) {
      const json::array* fields = kv.value().if_array();
      if (fields == nullptr || fields->empty() || fields->size() > 2) return "a stream insert must be [at, limit]";
      StreamInsert& out = ops.inserts.emplace_back();
      out.id = std::string(sv(kv.key()));
      const std::optional<std::int64_t> at = as_integer((*fields)[0]);
      if (!at) return "a stream insert position must be an integer";
      out.at = *at;
      if (fields->size() > 1) out.limit = optional_integer((*fields)[1], ok);
    }
  } else {
    return "stream inserts must be a list";
  }
  if (!ok) return "a stream limit must be an integer or null";
  const json::array* deletes = (*parts)[2].if_array();
  if (deletes == nullptr) return "stream deletes must be a list of dom ids";
  for (const json::value& id : *deletes) {
    if (!id.is_string()) return "stream deletes must be a list of dom ids";
    ops.deletes.emplace_back(sv(id.get_string()));
  }
  if (parts->size() == 4) {
    if (!(*parts)[3].is_bool()) return "a stream reset flag must be a boolean";
    ops.reset = (*parts)[3].get_bool();
  }
  return {};
}

// What the DOM does with a stream container's children for one diff (dom_patch.js): reset
// drops the old items, deletes drop theirs, then each rendered item is updated in place if its
// id is there, else inserted at its position (0 first, -1 last, n before the nth) unless it is
// update-only, and a limit trims from the end (positive) or the start (negative).
void apply_stream(Node& node, const StreamOps& ops, std::vector<StreamUpdate>& updates) {
  StreamUpdate& update = updates.emplace_back();
  update.ref = ops.ref;
  for (const StreamInsert& insert : ops.inserts) update.inserted_ids.push_back(insert.id);
  update.deleted_ids = ops.deletes;
  update.reset = ops.reset;
  if (node.entries.empty() && ops.deletes.empty() && !ops.reset) return;
  if (ops.reset) node.stream_items.clear();
  for (const std::string& id : ops.deletes) {
    std::erase_if(node.stream_items, [&](const StreamItem& item) { return item.id == id; });
  }
  const std::vector<std::string>& statics = *node.statics;
  for (std::size_t k = 0; k < node.entries.size(); ++k) {
    StreamItem item;
    PieceSink sink(item.pieces);
    render_interleaved(statics, node.entries[k], sink);
    item.id = item_root_id(item.pieces);
    if (item.id.empty() && k < ops.inserts.size()) item.id = ops.inserts[k].id;
    const StreamInsert* insert = nullptr;
    for (const StreamInsert& candidate : ops.inserts) {
      if (candidate.id == item.id) insert = &candidate;
    }
    auto existing = std::find_if(node.stream_items.begin(), node.stream_items.end(),
                                 [&](const StreamItem& kept) { return !item.id.empty() && kept.id == item.id; });
    if (existing != node.stream_items.end()) {
      existing->pieces = std::move(item.pieces);
      continue;
    }
    if (insert != nullptr && insert->update_only) continue;
    const std::int64_t at = insert ? insert->at : -1;
    auto& items = node.stream_items;
    if (at == 0) {
      items.insert(items.begin(), std::move(item));
    } else if (at > 0 && static_cast<std::uint64_t>(at) < items.size()) {
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), std::move(item));
    } else {
      items.push_back(std::move(item));
    }
    if (insert != nullptr && insert->limit && *insert->limit != 0) {
      const std::int64_t limit = *insert->limit;
      if (limit < 0 && items.size() > static_cast<std::uint64_t>(-limit)) {
        items.erase(items.begin(), items.end() - static_cast<std::ptrdiff_t>(-limit));
      } else if (limit > 0 && items.size() > static_cast<std::uint64_t>(limit)) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(limit), items.end());
      }
    }
  }
  // The JS drops a stream's entries once rendered; the DOM keeps the items (above).
  node.entries.clear();
}

}  // namespace stampede::proto::lv::detail
