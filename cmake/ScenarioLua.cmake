# The Lua halves of the scenario modules (stampede, stampede.http, stampede.error,
# stampede.websocket, stampede.channels, stampede.liveview, stampede.sse, stampede.graphql_ws,
# stampede.socketio, and stream_client.lua, which the streaming clients' halves share), kept as
# real Lua files in src/scenario/lua/ so they can be read, syntax-checked and tested as Lua, and
# embedded into the binary at build time by cmake/EmbedFiles.cmake (as the templates are:
# docs/design/009).
set(STAMPEDE_SCENARIO_LUA
  stampede_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/stampede.lua
  http_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/http.lua
  error_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/error.lua
  websocket_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/websocket.lua
  channels_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/channels.lua
  liveview_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/liveview.lua
  sse_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/sse.lua
  graphql_ws_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/graphql_ws.lua
  socketio_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/socketio.lua
  stream_client_lua=${CMAKE_SOURCE_DIR}/src/scenario/lua/stream_client.lua)

include(${CMAKE_CURRENT_LIST_DIR}/EmbedFilesRule.cmake)

# Adds the generated source to `target` (declared in src/scenario/module_lua.hpp).
function(stampede_embed_scenario_lua target)
  stampede_embed_files(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/scenario_lua.cpp scenario/module_lua.hpp
                       stampede::scenario::module_lua "Embedding the scenario modules' Lua (src/scenario/lua/)"
                       "${STAMPEDE_SCENARIO_LUA}")
endfunction()
