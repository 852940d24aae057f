// Arbitrary sequences of Presence events, one per line:
//   j<join_ref>            the channel (re)joined
//   s<join_ref> <json>     a presence_state for that join
//   d<json>                a presence_diff
// Nothing may crash, and after every step the state must still be what Phoenix sends (so the
// sync code can trust it), the outcome must agree with in_pending_sync_state(), and keys(),
// has() and list() must agree.
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_presence.hpp"

using stampede::proto::phx::Presence;
namespace json = boost::json;

namespace {

void check_state(const Presence& p) {
  const json::object& state = p.list();
  if (p.keys().size() != state.size()) std::abort();
  for (const auto& entry : state) {
    if (!p.has(entry.key())) std::abort();
    const json::object* presence = entry.value().if_object();
    if (!presence) std::abort();
    const json::value* metas = presence->if_contains("metas");
    if (!metas || !metas->is_array()) std::abort();
    for (const json::value& meta : metas->get_array()) {
      if (!meta.is_object()) std::abort();
      const json::value* ref = meta.get_object().if_contains("phx_ref");
      if (!ref || !ref->is_string()) std::abort();
    }
  }
}

const json::object* as_object(std::string_view text, json::value& holder) {
  json::error_code ec;
  holder = json::parse(text, ec);
  return ec ? nullptr : holder.if_object();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Presence p;
  std::optional<std::string> synced;  // the join_ref of the last state applied
  while (!input.empty()) {
    const std::size_t nl = input.find('\n');
    const std::string_view line = input.substr(0, nl);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    if (line.empty()) continue;
    const std::string_view rest = line.substr(1);
    json::value holder;
    switch (line.front()) {
      case 'j':
        p.set_join_ref(std::string(rest));
        // A new join waits for its state; naming the synced join again changes nothing.
        if (p.in_pending_sync_state() != (synced != rest)) std::abort();
        break;
      case 's': {
        const std::size_t space = rest.find(' ');
        if (space == std::string_view::npos) break;
        const json::object* state = as_object(rest.substr(space + 1), holder);
        if (!state) break;
        if (p.apply_state(*state, rest.substr(0, space)) == Presence::Outcome::Applied) {
          if (p.in_pending_sync_state() || p.held_diffs() != 0) std::abort();
          synced.emplace(rest.substr(0, space));
        }
        break;
      }
      case 'd': {
        const json::object* diff = as_object(rest, holder);
        if (!diff) break;
        const bool pending = p.in_pending_sync_state();
        const std::size_t held = p.held_diffs();
        const Presence::Outcome outcome = p.apply_diff(*diff);
        if (outcome == Presence::Outcome::Held && (!pending || p.held_diffs() != held + 1)) std::abort();
        if (outcome == Presence::Outcome::Applied && pending) std::abort();
        if (outcome == Presence::Outcome::Stale) std::abort();
        break;
      }
      default:
        break;
    }
    check_state(p);
  }
  return 0;
}
