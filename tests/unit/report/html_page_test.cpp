#include "report/html_page.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/html_assets.hpp"
#include "report/html_report.hpp"

namespace stampede::report {
namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string nonce_of(const std::string& page) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(page, m, std::regex("script-src 'nonce-([0-9a-f]+)'")));
  return m.size() > 1 ? m[1].str() : "";
}

TEST(JsonForScriptElement, EscapesWhatCouldEndTheElement) {
  EXPECT_EQ(json_for_script_element(R"({"name":"</script><script>alert(1)</script>"})"),
            R"({"name":"\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"})");
  EXPECT_EQ(json_for_script_element(R"(["<!--","a&b"])"), R"(["\u003c!--","a\u0026b"])");
  EXPECT_EQ(json_for_script_element(R"({"ok":[1,2.5,"é"]})"), R"({"ok":[1,2.5,"é"]})");
}

TEST(HtmlPage, ReportEmbedsTheResultsAndEveryAsset) {
  const std::string page = html_page(PageKind::Report, R"({"version":1,"results":[{"scenario":"<b>x</b>"}]})");
  EXPECT_EQ(page.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(page.find(R"({"version":1,"results":[{"scenario":"\u003cb\u003ex\u003c/b\u003e"}]})"), std::string::npos);
  EXPECT_EQ(page.find("<b>x</b>"), std::string::npos);
  for (std::string_view asset : {html_assets::uplot_js, html_assets::uplot_css, html_assets::style_css,
                                 html_assets::format_js, html_assets::charts_js, html_assets::tables_js,
                                 html_assets::results_view_js, html_assets::report_js})
    EXPECT_NE(page.find(asset), std::string::npos);
  EXPECT_EQ(page.find(html_assets::dashboard_js), std::string::npos);
  EXPECT_NE(page.find("Permission is hereby granted"), std::string::npos) << "uPlot's MIT notice";
  EXPECT_EQ(page.find("{{"), std::string::npos) << "a placeholder was left";
}

TEST(HtmlPage, NoEmbeddedScriptCanEndItsElementEarly) {
  const std::string page = html_page(PageKind::Report, "{}");
  // The results element, uPlot and five scripts of ours: each closes exactly once.
  EXPECT_EQ(occurrences(page, "</script>"), 7u);
  EXPECT_EQ(occurrences(page, "<script"), 7u);
}

TEST(HtmlPage, PolicyAllowsOnlyItsOwnScriptsAndNoNetwork) {
  const std::string report = html_page(PageKind::Report, "{}");
  const std::string nonce = nonce_of(report);
  EXPECT_EQ(nonce.size(), 32u);
  EXPECT_NE(report.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(report.find("connect-src 'none'"), std::string::npos);
  EXPECT_EQ(occurrences(report, "<script nonce=\"" + nonce + "\">"), 6u);
  EXPECT_EQ(occurrences(report, "<style nonce=\"" + nonce + "\">"), 2u);

  const std::string dashboard = html_page(PageKind::Dashboard, "");
  EXPECT_NE(dashboard.find("connect-src 'self'"), std::string::npos);
  EXPECT_NE(dashboard.find(html_assets::dashboard_js), std::string::npos);
  EXPECT_EQ(dashboard.find(html_assets::report_js), std::string::npos);
  EXPECT_NE(nonce_of(dashboard), nonce) << "a nonce is drawn for each page";
}

TEST(HtmlReport, EmbedsTheResultsFileOfTheRun) {
  RunResult run;
  run.tool = {"stampede", "0.1.0", "abc1234"};
  ScenarioResult scenario;
  scenario.scenario = "Demo.Api";
  run.results.push_back(scenario);
  const std::string page = html_report(run);
  EXPECT_NE(page.find(R"("scenario":"Demo.Api")"), std::string::npos);
  EXPECT_NE(page.find(R"("commit":"abc1234")"), std::string::npos);
}

}  // namespace
}  // namespace stampede::report
