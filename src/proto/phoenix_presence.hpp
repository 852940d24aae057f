#pragma once
// Phoenix Presence state, synced the way phoenix.js `presence.js` does it
// (../shared/phoenix-protocol.md §4.2):
//   * state is key -> {"metas": [...]} (plus whatever fields the app's fetch/2 added);
//   * presence_diff messages are held until a presence_state for the channel's current join
//     has arrived, then applied in order after it;
//   * a presence_state is turned into joins and leaves against the current state (metas
//     matched by phx_ref), so a rejoin keeps what did not change;
//   * a diff applies its joins before its leaves: a joined key keeps its old metas (those not
//     re-joined) in front of the new ones; a leave removes metas by phx_ref, and the key when
//     no metas remain. An update (leave of the old ref, join of the new) thus ends with the
//     new meta alone.
// Pure: the channel client feeds it the payloads and tells it about (re)joins. The same type
// serves a server that wants to know what its clients see.
#include <boost/json/object.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto::phx {

class Presence {
 public:
  enum class Outcome {
    Applied,    // the state changed (or was confirmed): what phoenix.js signals with onSync
    Held,       // a diff kept until the presence_state of the current join arrives
    Stale,      // a presence_state for another join than the current one: ignored
    Malformed,  // not the shape Phoenix sends: ignored, nothing changed
  };

  // The channel (re)joined with this join_ref. Until a presence_state for it arrives, diffs
  // are held; diffs already held stay held and are applied after that state, as in
  // presence.js.
  void set_join_ref(std::string join_ref);

  // A presence_state payload ({key: {"metas": [{"phx_ref": "...", ...}, ...]}, ...}) that
  // arrived for `join_ref`: the frame's join_ref in V2, or the channel's current join_ref in
  // V1, which never carries one. A state for another join than set_join_ref() named is Stale.
  // When set_join_ref() was never called, `join_ref` becomes the current join.
  Outcome apply_state(const boost::json::object& state, std::string_view join_ref);

  // A presence_diff payload ({"joins": {...}, "leaves": {...}}, each in the state's shape; a
  // missing side counts as empty). Held while in_pending_sync_state().
  Outcome apply_diff(const boost::json::object& diff);

  // True until a presence_state for the current join arrived (presence.js inPendingSyncState).
  bool in_pending_sync_state() const noexcept;

  // key -> {"metas": [...]}
  const boost::json::object& list() const noexcept { return state_; }
  std::vector<std::string> keys() const;
  bool has(std::string_view key) const noexcept;
  std::size_t held_diffs() const noexcept { return held_.size(); }

 private:
  struct Diff {
    boost::json::object joins;
    boost::json::object leaves;
  };
  void sync_state(const boost::json::object& new_state);
  void sync_diff(const boost::json::object& joins, const boost::json::object& leaves);

  boost::json::object state_;
  std::vector<Diff> held_;
  std::optional<std::string> current_join_ref_;  // the channel's join
  std::optional<std::string> synced_join_ref_;   // the join of the last presence_state
};

}  // namespace stampede::proto::phx
