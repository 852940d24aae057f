#include "report/html_report.hpp"

#include "report/html_page.hpp"
#include "report/json_results.hpp"

namespace stampede::report {

std::string html_report(const RunResult& run) { return html_page(PageKind::Report, results_json(run)); }

}  // namespace stampede::report
