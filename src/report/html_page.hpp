#pragma once
// The one page behind the HTML report and the dashboard: web/page.html with our CSS and
// scripts and the chart library inlined. The page draws everything with JavaScript from
// a results file (report/json_results.hpp): the report embeds it, the dashboard streams it.
//
// A Content-Security-Policy in the page allows only its own inline scripts and styles
// (by a nonce drawn for each page) and no network access but, for the dashboard, its own
// server: even text a scenario or a server slipped into the results could not run or
// make the browser fetch anything.
#include <string>
#include <string_view>

namespace stampede::report {

enum class PageKind {
  Report,     // a file: the results are in the page, nothing is loaded
  Dashboard,  // served by the dashboard: the results arrive from /events
};

// `results_json` is a results file's text (Report) or empty (Dashboard).
std::string html_page(PageKind kind, std::string_view results_json);

// JSON text made safe to sit inside a <script> element: "<" written as \u003c (and ">"
// and "&" likewise), so no "</script>" or "<!--" in a string can end the element. JSON
// has these characters only inside strings, where the escape means the same character.
std::string json_for_script_element(std::string_view json);

}  // namespace stampede::report
