#pragma once
// The files of the HTML report and the dashboard, built into the binary: ours from web/,
// the chart library (uPlot) from web/node_modules. Defined in a source generated at build
// time by cmake/EmbedFiles.cmake (see cmake/WebAssets.cmake), so nothing ships beside the
// binary and no page ever loads anything from elsewhere.
#include <string_view>

namespace stampede::report::html_assets {

extern const std::string_view page_html;  // the template (see html_page.cpp)
extern const std::string_view style_css;
extern const std::string_view format_js;  // numbers, units, colours, text-only DOM helper
extern const std::string_view charts_js;
extern const std::string_view tables_js;
extern const std::string_view results_view_js;  // a finished run, as the report shows it
extern const std::string_view report_js;        // the report's entry point
extern const std::string_view dashboard_js;     // the dashboard's entry point
extern const std::string_view uplot_js;
extern const std::string_view uplot_css;
extern const std::string_view uplot_license;

}  // namespace stampede::report::html_assets
