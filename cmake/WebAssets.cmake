# The HTML report's and the dashboard's page, built into the binary: our own files from
# web/ and the chart library from web/node_modules (installed by `npm ci` in web/, never
# committed). cmake/EmbedFiles.cmake turns them into one generated C++ source at build time.
set(STAMPEDE_WEB_DIR ${CMAKE_SOURCE_DIR}/web)
set(STAMPEDE_UPLOT_DIR ${STAMPEDE_WEB_DIR}/node_modules/uplot)

if(NOT EXISTS ${STAMPEDE_UPLOT_DIR}/dist/uPlot.iife.min.js)
  message(FATAL_ERROR
    "web/node_modules is missing (the chart library the HTML report and the dashboard embed).\n"
    "Install it with:  (cd web && npm ci)   -- scripts/setup.sh does this.")
endif()

# name=path pairs; each name becomes a std::string_view in stampede::report::html_assets
# (declared in src/report/html_assets.hpp).
set(STAMPEDE_WEB_ASSETS
  page_html=${STAMPEDE_WEB_DIR}/page.html
  style_css=${STAMPEDE_WEB_DIR}/style.css
  format_js=${STAMPEDE_WEB_DIR}/format.js
  charts_js=${STAMPEDE_WEB_DIR}/charts.js
  tables_js=${STAMPEDE_WEB_DIR}/tables.js
  results_view_js=${STAMPEDE_WEB_DIR}/results_view.js
  report_js=${STAMPEDE_WEB_DIR}/report.js
  dashboard_js=${STAMPEDE_WEB_DIR}/dashboard.js
  uplot_js=${STAMPEDE_UPLOT_DIR}/dist/uPlot.iife.min.js
  uplot_css=${STAMPEDE_UPLOT_DIR}/dist/uPlot.min.css
  uplot_license=${STAMPEDE_UPLOT_DIR}/LICENSE)

include(${CMAKE_CURRENT_LIST_DIR}/EmbedFilesRule.cmake)

# Adds the generated source to `target`.
function(stampede_embed_web_assets target)
  stampede_embed_files(${target} ${CMAKE_CURRENT_BINARY_DIR}/generated/html_assets.cpp report/html_assets.hpp
                       stampede::report::html_assets "Embedding the report and dashboard page (web/) into the binary"
                       "${STAMPEDE_WEB_ASSETS}")
endfunction()
