# `cmake --install build [--prefix DIR]` and `cpack -G DEB` (run in build/): the binary, the
# LuaLS type definitions (`stampede new` points editors at them) and the docs, in the usual
# places. The binary finds the types and docs relative to itself (src/cli/install_paths.cpp),
# so any prefix works.
include(GNUInstallDirs)

install(TARGETS stampede RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/types/ DESTINATION ${CMAKE_INSTALL_DATADIR}/stampede/types
        FILES_MATCHING PATTERN "*.lua")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/reference ${CMAKE_SOURCE_DIR}/docs/guides ${CMAKE_SOURCE_DIR}/docs/design
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/schema/results.schema.json
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME stampede)
set(CPACK_PACKAGE_VENDOR "Stampede")
set(CPACK_PACKAGE_CONTACT "Stampede maintainers <stampede@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Load tests for Phoenix applications (HTTP, WebSockets, Channels, LiveView)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends from the libraries the binary really links (dpkg-shlibdeps), not a hand-kept list.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# A stripped binary (the build keeps debug info) and a fast compression: the package test
# builds it in CI.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
include(CPack)
