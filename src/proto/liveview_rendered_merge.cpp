#include "proto/liveview_rendered_merge.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "proto/liveview_rendered_apply.hpp"
#include "proto/liveview_rendered_check.hpp"

namespace stampede::proto::lv::detail {

namespace json = boost::json;

json::value parse_json(std::string_view text, std::string& error) {
  json::parse_options options;
  options.max_depth = kMaxDepth + 8;
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec) error = "LiveView diff is not valid JSON: " + ec.message();
  return value;
}

namespace {

std::string refused(const Checker& checker) {
  const std::string where = checker.path();
  return "LiveView diff refused" + (where.empty() ? std::string() : " at " + where) + ": " + checker.error +
         std::string(kSupported);
}

}  // namespace

// "e": [[name, payload], [name, payload, true], ...]
std::string read_events(const json::value& value, std::vector<PushedEvent>& out) {
  const json::array* events = value.if_array();
  if (events == nullptr) return "LiveView diff refused: \"e\" must be a list of [event, payload]" + std::string(kSupported);
  for (const json::value& event : *events) {
    const json::array* fields = event.if_array();
    if (fields == nullptr || fields->size() < 2 || fields->size() > 3 || !(*fields)[0].is_string()) {
      return "LiveView diff refused: an event in \"e\" must be [name, payload] or [name, payload, true]" + std::string(kSupported);
    }
    PushedEvent& pushed = out.emplace_back();
    pushed.name = std::string(sv((*fields)[0].get_string()));
    pushed.payload_json = json::serialize((*fields)[1]);
    pushed.before_patch = fields->size() == 3 && (*fields)[2].is_bool() && (*fields)[2].get_bool();
  }
  return {};
}

namespace {

// The component graph after a merge: every referenced component present, no reference loops, a
// bounded depth and rendered size. Fills `rendered` with the cids reachable from the root.
std::string check_graph(const State& state, std::vector<int>& rendered) {
  enum class Mark : std::uint8_t { Visiting, Done };
  struct Seen {
    Mark mark;
    std::size_t bytes;
    std::size_t height;
  };
  std::map<int, Seen> seen;
  std::string problem;
  const auto saturate = [](std::size_t a, std::size_t b) { return a > kMaxHtmlBytes - std::min(b, kMaxHtmlBytes) ? kMaxHtmlBytes + 1 : a + b; };
  std::function<bool(int, std::size_t, std::size_t&, std::size_t&)> visit = [&](int cid, std::size_t depth, std::size_t& bytes,
                                                                                 std::size_t& height) {
    if (depth > kMaxComponentDepth) {
      problem = "components are nested more than " + std::to_string(kMaxComponentDepth) + " deep";
      return false;
    }
    const auto known = seen.find(cid);
    if (known != seen.end()) {
      if (known->second.mark == Mark::Visiting) {
        problem = "component " + std::to_string(cid) + " contains itself";
        return false;
      }
      if (depth + known->second.height - 1 > kMaxComponentDepth) {
        problem = "components are nested more than " + std::to_string(kMaxComponentDepth) + " deep";
        return false;
      }
      bytes = known->second.bytes;
      height = known->second.height;
      return true;
    }
    const auto it = state.components.find(cid);
    if (it == state.components.end() || !it->second.tree) {
      problem = "component " + std::to_string(cid) + " is referenced but was never sent";
      return false;
    }
    seen[cid] = {Mark::Visiting, 0, 0};
    std::size_t total = it->second.tree->bytes;
    std::size_t deepest = 0;
    for (const int ref : it->second.refs) {
      std::size_t child_bytes = 0;
      std::size_t child_height = 0;
      if (!visit(ref, depth + 1, child_bytes, child_height)) return false;
      total = saturate(total, child_bytes);
      deepest = std::max(deepest, child_height);
    }
    seen[cid] = {Mark::Done, total, deepest + 1};
    bytes = total;
    height = deepest + 1;
    return true;
  };
  std::vector<int> root_refs;
  if (state.root) collect_refs(*state.root, root_refs);
  std::size_t total = state.root ? state.root->bytes : 0;
  for (const int cid : root_refs) {
    std::size_t bytes = 0;
    std::size_t height = 0;
    if (!visit(cid, 1, bytes, height)) return problem;
    total = saturate(total, bytes);
  }
  if (total > kMaxHtmlBytes) return "the page would render more than " + std::to_string(kMaxHtmlBytes >> 20) + " MiB";
  rendered.clear();
  for (const auto& [cid, mark] : seen) rendered.push_back(cid);
  return {};
}

Stats held(const State& state) {
  Stats stats;
  if (state.root) {
    stats.nodes += state.root->nodes;
    stats.bytes += state.root->bytes;
  }
  for (const auto& [cid, component] : state.components) {
    if (component.tree) {
      stats.nodes += component.tree->nodes;
      stats.bytes += component.tree->bytes;
    }
  }
  return stats;
}

}  // namespace

MergeOutcome merge_into(State& state, const json::object& diff) {
  Checker checker;
  Applier applier;

  // The root part.
  const bool replaces_root = diff.contains("s");
  if (replaces_root) {
    if (!checker.full_node(diff, nullptr, 0)) return {refused(checker)};
  } else if (!state.root) {
    return {"LiveView join refused: \"rendered\" has no statics \"s\"" + std::string(kSupported)};
  } else if (!checker.partial_node(diff, *state.root, nullptr, 0)) {
    return {refused(checker)};
  }

  // Components: each entry of "c" resolved against the state before this diff, then stored.
  std::map<int, const json::object*> component_diffs;
  std::map<int, NodePtr> built;      // new trees for these cids
  std::set<int> merged_in_place;     // partial diffs applied to the stored tree
  if (const json::value* c = diff.if_contains("c")) {
    const json::object* entries = c->if_object();
    if (entries == nullptr) return {"LiveView diff refused: \"c\" must be an object" + std::string(kSupported)};
    std::set<int> shared_bases;  // cids whose new version another component copies ("s": n > 0)
    for (const json::key_value_pair& kv : *entries) {
      const std::optional<std::size_t> index = parse_index(sv(kv.key()));
      const std::optional<int> cid = index ? as_cid(static_cast<std::int64_t>(*index)) : std::nullopt;
      if (!cid) return {"LiveView diff refused: component id \"" + std::string(sv(kv.key())) + "\" in \"c\" is not a positive integer" + std::string(kSupported)};
      if (!kv.value().is_object()) return {"LiveView diff refused: component " + std::to_string(*cid) + " must be an object" + std::string(kSupported)};
      component_diffs[*cid] = &kv.value().get_object();
      if (const json::value* s = kv.value().get_object().if_contains("s")) {
        if (const std::optional<std::int64_t> n = as_integer(*s); n && *n > 0) shared_bases.insert(static_cast<int>(std::min<std::int64_t>(*n, std::numeric_limits<int>::max())));
      }
    }
    std::map<int, bool> resolving;  // cid -> finished
    std::string problem;
    int failed = 0;  // the component whose diff the checker refused
    std::function<bool(int)> resolve = [&](int cid) -> bool {
      failed = cid;
      const auto mark = resolving.find(cid);
      if (mark != resolving.end()) {
        if (!mark->second) problem = "components share statics in a loop through component " + std::to_string(cid);
        return mark->second;
      }
      resolving[cid] = false;
      const json::object& cdiff = *component_diffs.at(cid);
      const json::value* s = cdiff.if_contains("s");
      const std::optional<std::int64_t> base_ref = s ? as_integer(*s) : std::nullopt;
      const auto stored = state.components.find(cid);
      const Node* existing = stored != state.components.end() ? stored->second.tree.get() : nullptr;
      if (base_ref) {
        // Statics and shape from another component: n > 0 as this diff leaves it, n < 0 as the
        // state had it.
        const Node* base = nullptr;
        if (*base_ref > 0) {
          const std::optional<int> base_cid = as_cid(*base_ref);
          if (!base_cid || !component_diffs.contains(*base_cid)) {
            problem = "component " + std::to_string(cid) + " shares the statics of component " + std::to_string(*base_ref) + ", which this diff does not contain";
            return false;
          }
          if (!resolve(*base_cid)) return false;
          failed = cid;
          base = built.at(*base_cid).get();
        } else {
          const std::optional<int> base_cid = *base_ref < 0 ? as_cid(-*base_ref) : std::nullopt;
          const auto old = base_cid ? state.components.find(*base_cid) : state.components.end();
          if (old == state.components.end() || !old->second.tree) {
            problem = "component " + std::to_string(cid) + " shares the statics of component " + std::to_string(-*base_ref) + ", which is not held";
            return false;
          }
          base = old->second.tree.get();
        }
        if (!checker.partial_node(cdiff, *base, nullptr, 0)) return false;
        checker.added.nodes += base->nodes;
        checker.added.bytes += base->bytes;
        NodePtr tree = copy_node(*base);
        applier.merge_node(cdiff, *tree, nullptr);
        built[cid] = std::move(tree);
      } else if (s != nullptr) {
        if (!checker.full_node(cdiff, nullptr, 0)) return false;
        built[cid] = applier.build_node(cdiff, nullptr);
      } else {
        if (existing == nullptr) {
          problem = "component " + std::to_string(cid) + " is new but has no statics \"s\"";
          return false;
        }
        if (!checker.partial_node(cdiff, *existing, nullptr, 0)) return false;
        if (shared_bases.contains(cid)) {
          checker.added.nodes += existing->nodes;
          checker.added.bytes += existing->bytes;
          NodePtr tree = copy_node(*existing);
          applier.merge_node(cdiff, *tree, nullptr);
          built[cid] = std::move(tree);
        } else {
          merged_in_place.insert(cid);
        }
      }
      resolving[cid] = true;
      return true;
    };
    for (const auto& [cid, cdiff] : component_diffs) {
      if (!resolve(cid)) {
        if (checker.error.empty()) return {"LiveView diff refused: " + problem + std::string(kSupported)};
        const std::string where = checker.path();
        return {"LiveView diff refused in component " + std::to_string(failed) + (where.empty() ? std::string() : " at " + where) +
                ": " + checker.error + std::string(kSupported)};
      }
    }
  }

  for (const int cid : checker.referenced) {
    if (!state.components.contains(cid) && !component_diffs.contains(cid)) {
      return {"LiveView diff refused: it references component " + std::to_string(cid) + ", which was never sent" + std::string(kSupported)};
    }
  }
  const Stats before = held(state);
  if (before.nodes + checker.added.nodes > kMaxNodes) {
    return {"LiveView diff refused: the page would hold more than " + std::to_string(kMaxNodes) + " templates and items"};
  }
  if (before.bytes + checker.added.bytes > kMaxHtmlBytes) {
    return {"LiveView diff refused: the page would render more than " + std::to_string(kMaxHtmlBytes >> 20) + " MiB"};
  }

  // Everything checked: apply.
  if (replaces_root) {
    state.root = applier.build_node(diff, nullptr);
  } else {
    applier.merge_node(diff, *state.root, nullptr);
  }
  for (auto& [cid, tree] : built) {
    Component& component = state.components[cid];
    component.tree = std::move(tree);
    component.refs.clear();
    collect_refs(*component.tree, component.refs);
  }
  for (const int cid : merged_in_place) {
    Component& component = state.components.at(cid);
    applier.merge_node(*component_diffs.at(cid), *component.tree, nullptr);
    component.refs.clear();
    collect_refs(*component.tree, component.refs);
  }
  if (checker.keyed_seen && !state.version_reported && state.version < Version{1, 1, 0}) state.version = Version{1, 1, 0};

  std::vector<int> rendered;
  const std::string graph_problem = check_graph(state, rendered);
  if (!graph_problem.empty()) return {"LiveView diff refused: " + graph_problem + std::string(kSupported), true};
  state.rendered = std::move(rendered);
  return {{}, false, std::move(applier.streams)};
}

}  // namespace stampede::proto::lv::detail
