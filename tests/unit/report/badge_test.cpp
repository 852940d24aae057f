#include "report/badge.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

TEST(Badge, VerdictFollowsTheThresholds) {
  RunResult run = testing::sample_run();  // one threshold failed
  Badge failed = verdict_badge(run);
  EXPECT_EQ(failed.label, "stampede");
  EXPECT_EQ(failed.message, "failed");
  EXPECT_EQ(failed.color, kFailColor);
  run.results[0].thresholds[1].pass = true;
  Badge passed = verdict_badge(run);
  EXPECT_EQ(passed.message, "passed");
  EXPECT_EQ(passed.color, kPassColor);
}

TEST(Badge, ARunWithoutThresholdsPasses) {
  RunResult run = testing::sample_run();
  run.results[0].thresholds.clear();
  EXPECT_EQ(verdict_badge(run).message, "passed");
}

TEST(Badge, CustomMessageKeepsTheVerdictsColour) {
  const Badge b = verdict_badge(testing::sample_run(), "limit 1200 rps");
  EXPECT_EQ(b.message, "limit 1200 rps");
  EXPECT_EQ(b.color, kFailColor);
}

TEST(Badge, SvgHasBothTextsSizedToFit) {
  const std::string svg = render_badge_svg({"stampede", "passed", "#4c1"});
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" ", 0), 0u);
  EXPECT_NE(svg.find("<title>stampede: passed</title>"), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\"stampede: passed\""), std::string::npos);
  EXPECT_NE(svg.find(">passed</text>"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#4c1\""), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  // Total width = both halves, each its text plus 10px of padding.
  const double label = std::round(badge_text_width("stampede") + 10);
  const double message = std::round(badge_text_width("passed") + 10);
  EXPECT_NE(svg.find(fmt::format("width=\"{}\" height=\"20\" role", label + message)), std::string::npos) << svg;
  EXPECT_GT(badge_text_width("a longer message"), badge_text_width("short"));
  EXPECT_GT(badge_text_width("WWW"), badge_text_width("iii"));
}

TEST(Badge, EscapesMarkupInTexts) {
  const std::string svg = render_badge_svg({"<script>alert(1)</script>", "\"quoted\" & 'single'", "#4c1"});
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("&quot;quoted&quot; &amp; &apos;single&apos;"), std::string::npos);
}

}  // namespace
}  // namespace stampede::report
