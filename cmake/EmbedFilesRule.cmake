# stampede_embed_files(TARGET OUTPUT HEADER NAMESPACE COMMENT ENTRIES): adds to TARGET a C++
# source, generated at build time by cmake/EmbedFiles.cmake, in which every name=path pair of
# ENTRIES (a list) becomes a std::string_view `name` in NAMESPACE (declared in HEADER). The
# source is regenerated when any of the files or the script changes.
function(stampede_embed_files target output header namespace comment entries)
  set(paths "")
  foreach(entry IN LISTS entries)
    string(REGEX REPLACE "^[^=]*=" "" path "${entry}")
    list(APPEND paths ${path})
  endforeach()
  # "|" between entries: a ";" would split the argument on its way to the script.
  string(REPLACE ";" "|" files_arg "${entries}")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${output} -DHEADER=${header}
            -DNAMESPACE=${namespace} "-DFILES=${files_arg}"
            -P ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${paths} ${CMAKE_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "${comment}"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
