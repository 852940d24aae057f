#pragma once
// One join's or diff's tree, components and events merged into a State: parse, check the whole
// diff, apply, check the component graph. Internal to liveview_rendered*.cpp.
#include <boost/json/fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_rendered.hpp"
#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv::detail {

// Parses with the depth the merger needs; sets `error` when the text is not JSON.
boost::json::value parse_json(std::string_view text, std::string& error);

// "e": [[name, payload], [name, payload, true], ...]
std::string read_events(const boost::json::value& value, std::vector<PushedEvent>& out);

// Checks the whole diff (root part and "c") against `state`, builds the components that
// replace or copy others, then applies. `state` is untouched when the returned error is
// non-empty, except for the after-apply graph check (then the caller drops the state).
struct MergeOutcome {
  std::string error;
  bool state_damaged = false;
  std::vector<StreamUpdate> streams;
};

MergeOutcome merge_into(State& state, const boost::json::object& diff);

}  // namespace stampede::proto::lv::detail
