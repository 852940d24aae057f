# The scenario templates of `stampede new` and the `stampede demo` scenario, kept as real
# Lua files in templates/ (so they can be read, diffed and syntax-checked as Lua) and
# embedded into the binary at build time by cmake/EmbedFiles.cmake (docs/design/009).
set(STAMPEDE_TEMPLATES
  http_lua=${CMAKE_SOURCE_DIR}/templates/http.lua
  channels_lua=${CMAKE_SOURCE_DIR}/templates/channels.lua
  live_lua=${CMAKE_SOURCE_DIR}/templates/live.lua
  websocket_lua=${CMAKE_SOURCE_DIR}/templates/websocket.lua
  demo_lua=${CMAKE_SOURCE_DIR}/templates/demo.lua)

# Adds the generated source to `target` (declared in src/cli/templates.hpp).
function(stampede_embed_templates target)
  set(output ${CMAKE_CURRENT_BINARY_DIR}/generated/templates.cpp)
  set(paths "")
  foreach(entry IN LISTS STAMPEDE_TEMPLATES)
    string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
    list(APPEND paths ${path})
  endforeach()
  string(REPLACE ";" "|" files_arg "${STAMPEDE_TEMPLATES}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DHEADER=cli/templates.hpp
            -DNAMESPACE=stampede::cli::templates "-DFILES=${files_arg}"
            -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${paths} ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "Embedding the scenario templates (templates/) into the binary"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
