#pragma once
// The scenario templates of `stampede new` and the demo's scenario: the Lua files in
// templates/, embedded by cmake/Templates.cmake. Placeholders are `{{name}}`-style words
// (see fill_template), not fmt fields, so the files stay valid Lua as they are.
#include <string>
#include <string_view>

namespace stampede::cli::templates {

extern const std::string_view http_lua;
extern const std::string_view channels_lua;
extern const std::string_view live_lua;
extern const std::string_view websocket_lua;
extern const std::string_view sse_lua;
extern const std::string_view graphql_ws_lua;
extern const std::string_view socketio_lua;
extern const std::string_view demo_lua;

// `text` with every `placeholder` ("{{url}}") replaced by `value`.
inline std::string fill_template(std::string text, std::string_view placeholder, const std::string& value) {
  for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
  return text;
}

}  // namespace stampede::cli::templates
