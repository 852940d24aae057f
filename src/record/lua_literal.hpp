#pragma once
// Lua source text for values: strings quoted so that any bytes survive, JSON as Lua tables
// (objects keep their order, keys that are names written bare), form fields as the nested
// tables a person writes ({ post = { title = "Hi" } }), and the run-time references of
// scenario_model.hpp written as the expressions they stand for.
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

#include "record/scenario_model.hpp"

namespace stampede::record {

// "text" with \" \\ \n \r \t escaped, other control bytes and invalid UTF-8 as \ddd.
std::string lua_string(std::string_view text);

// A string value, or the expression a reference (scenario_model.hpp) stands for.
std::string lua_text(std::string_view text);

// A key as `name` (an identifier that is not a keyword) or `["any text"]`.
std::string lua_key(std::string_view key);

bool is_lua_identifier(std::string_view text);

// JSON as a Lua value. Strings that are references (kRefPrefix) become their expression;
// null becomes `json.null` and sets `uses_json_null`.
std::string lua_value(const boost::json::value& value, bool& uses_json_null);

// Form fields ("post[title]" = "Hi", "tags[]" = "a") as a table; names that do not nest
// cleanly stay flat (["a[0][b]"] = "x"), which the client sends as they are.
std::string lua_fields(const Fields& fields);

// BASE .. "/path" with url_runtime_ref()s spliced in as expressions; an absolute URL as it is.
std::string lua_url(std::string_view relative_url);

}  // namespace stampede::record
