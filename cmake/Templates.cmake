# The scenario templates of `stampede new` and the `stampede demo` scenario, kept as real
# Lua files in templates/ (so they can be read, diffed and syntax-checked as Lua) and
# embedded into the binary at build time by cmake/EmbedFiles.cmake (docs/design/009).
set(STAMPEDE_TEMPLATES
  http_lua=${CMAKE_SOURCE_DIR}/templates/http.lua
  channels_lua=${CMAKE_SOURCE_DIR}/templates/channels.lua
  live_lua=${CMAKE_SOURCE_DIR}/templates/live.lua
  websocket_lua=${CMAKE_SOURCE_DIR}/templates/websocket.lua
  sse_lua=${CMAKE_SOURCE_DIR}/templates/sse.lua
  graphql_ws_lua=${CMAKE_SOURCE_DIR}/templates/graphql_ws.lua
  socketio_lua=${CMAKE_SOURCE_DIR}/templates/socketio.lua
  demo_lua=${CMAKE_SOURCE_DIR}/templates/demo.lua)

include(${CMAKE_CURRENT_LIST_DIR}/EmbedFilesRule.cmake)

# Adds the generated source to `target` (declared in src/cli/templates.hpp).
function(stampede_embed_templates target)
  stampede_embed_files(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/templates.cpp cli/templates.hpp
                       stampede::cli::templates "Embedding the scenario templates (templates/) into the binary"
                       "${STAMPEDE_TEMPLATES}")
endfunction()
