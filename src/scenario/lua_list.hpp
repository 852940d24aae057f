#pragma once
// Options that are lists (stages, rate_stages, thresholds, local_addresses) are read by
// walking 1..#t, so anything else in the table would be skipped without a word: a k6-style
// `thresholds = { http_req_duration = {...} }` would become no thresholds and a CI gate that
// always passes. require_list makes such a key a usage error instead.
#include <string>

struct lua_State;

namespace stampede::scenario {

// Throws ScenarioError when the table at `index` has a key other than the integers 1..#t:
// `<where>: "http.request" = {...} is not a list entry: write <list_form>`.
void require_list(lua_State* L, int index, const std::string& where, const std::string& list_form);

// How a key or value is shown in a message: "name", 3, {...}, true.
std::string lua_value_shown(lua_State* L, int index);

}  // namespace stampede::scenario
