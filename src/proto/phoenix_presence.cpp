#include "proto/phoenix_presence.hpp"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <utility>

namespace stampede::proto::phx {
namespace {

namespace json = boost::json;

// Checked once on arrival, so the sync code below can index without checking again:
// {key: {"metas": [{"phx_ref": "<string>", ...}, ...], ...}, ...}. Every meta Phoenix sends
// has a phx_ref (phoenix_pubsub adds it); matching needs it.
bool valid_presence_map(const json::object& presences) {
  for (const auto& entry : presences) {
    const json::object* presence = entry.value().if_object();
    if (!presence) return false;
    const json::value* metas = presence->if_contains("metas");
    if (!metas || !metas->is_array()) return false;
    for (const json::value& meta : metas->get_array()) {
      const json::object* fields = meta.if_object();
      if (!fields) return false;
      const json::value* ref = fields->if_contains("phx_ref");
      if (!ref || !ref->is_string()) return false;
    }
  }
  return true;
}

const json::string& phx_ref(const json::value& meta) { return meta.get_object().at("phx_ref").get_string(); }

json::array& metas_of(json::value& presence) { return presence.get_object()["metas"].get_array(); }
const json::array& metas_of(const json::value& presence) { return presence.get_object().at("metas").get_array(); }

bool has_ref(const json::array& metas, const json::string& ref) {
  for (const json::value& meta : metas) {
    if (phx_ref(meta) == ref) return true;
  }
  return false;
}

// The metas of `from` whose phx_ref is not in `other`, in their order.
json::array metas_not_in(const json::array& from, const json::array& other) {
  json::array kept;
  for (const json::value& meta : from) {
    if (!has_ref(other, phx_ref(meta))) kept.push_back(meta);
  }
  return kept;
}

// A diff side ("joins" or "leaves"): absent counts as empty; present must be a presence map.
const json::object* diff_side(const json::object& diff, std::string_view name) {
  static const json::object kEmpty;
  const json::value* side = diff.if_contains(name);
  if (!side) return &kEmpty;
  const json::object* presences = side->if_object();
  return presences && valid_presence_map(*presences) ? presences : nullptr;
}

}  // namespace

void Presence::set_join_ref(std::string join_ref) { current_join_ref_ = std::move(join_ref); }

bool Presence::in_pending_sync_state() const noexcept {
  return !synced_join_ref_ || synced_join_ref_ != current_join_ref_;
}

Presence::Outcome Presence::apply_state(const json::object& state, std::string_view join_ref) {
  if (!valid_presence_map(state)) return Outcome::Malformed;
  if (!current_join_ref_) {
    current_join_ref_.emplace(join_ref);
  } else if (*current_join_ref_ != join_ref) {
    return Outcome::Stale;
  }
  synced_join_ref_ = current_join_ref_;
  sync_state(state);
  for (const Diff& diff : held_) sync_diff(diff.joins, diff.leaves);
  held_.clear();
  return Outcome::Applied;
}

Presence::Outcome Presence::apply_diff(const json::object& diff) {
  const json::object* joins = diff_side(diff, "joins");
  const json::object* leaves = diff_side(diff, "leaves");
  if (!joins || !leaves) return Outcome::Malformed;
  if (in_pending_sync_state()) {
    held_.push_back(Diff{*joins, *leaves});
    return Outcome::Held;
  }
  sync_diff(*joins, *leaves);
  return Outcome::Applied;
}

// presence.js syncState: the difference between the current and the new full state, as a
// diff, so that metas present in both are kept (with their place) rather than replaced.
void Presence::sync_state(const json::object& new_state) {
  json::object joins;
  json::object leaves;
  for (const auto& entry : state_) {
    if (!new_state.contains(entry.key())) leaves.emplace(entry.key(), entry.value());
  }
  for (const auto& entry : new_state) {
    const auto current = state_.find(entry.key());
    if (current == state_.end()) {
      joins.emplace(entry.key(), entry.value());
      continue;
    }
    const json::array& new_metas = metas_of(entry.value());
    const json::array& current_metas = metas_of(current->value());
    json::array joined = metas_not_in(new_metas, current_metas);
    json::array left = metas_not_in(current_metas, new_metas);
    if (!joined.empty()) {
      json::value presence = entry.value();
      metas_of(presence) = std::move(joined);
      joins.emplace(entry.key(), std::move(presence));
    }
    if (!left.empty()) {
      json::value presence = current->value();
      metas_of(presence) = std::move(left);
      leaves.emplace(entry.key(), std::move(presence));
    }
  }
  sync_diff(joins, leaves);
}

// presence.js syncDiff: joins first, then leaves.
void Presence::sync_diff(const json::object& joins, const json::object& leaves) {
  for (const auto& entry : joins) {
    json::value presence = entry.value();
    const auto current = state_.find(entry.key());
    if (current == state_.end()) {
      state_.emplace(entry.key(), std::move(presence));
      continue;
    }
    // Old metas that were not re-joined go first: old metas, then new ones.
    json::array& joined = metas_of(presence);
    json::array merged = metas_not_in(metas_of(current->value()), joined);
    for (json::value& meta : joined) merged.push_back(std::move(meta));
    joined = std::move(merged);
    current->value() = std::move(presence);
  }
  for (const auto& entry : leaves) {
    const auto current = state_.find(entry.key());
    if (current == state_.end()) continue;
    json::array& metas = metas_of(current->value());
    metas = metas_not_in(metas, metas_of(entry.value()));
    if (metas.empty()) state_.erase(current);
  }
}

std::vector<std::string> Presence::keys() const {
  std::vector<std::string> out;
  out.reserve(state_.size());
  for (const auto& entry : state_) out.emplace_back(entry.key());
  return out;
}

bool Presence::has(std::string_view key) const noexcept { return state_.find(key) != state_.end(); }

}  // namespace stampede::proto::phx
