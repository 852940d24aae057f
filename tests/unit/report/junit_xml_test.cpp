#include "report/junit_xml.hpp"

#include <gtest/gtest.h>

#include "report/result_fixture.hpp"

namespace stampede::report {
namespace {

TEST(JunitXml, ThresholdsAndChecksAreTestCases) {
  RunResult run = testing::sample_run();
  run.results[0].scenario = "Demo.Api";
  run.results[0].iteration_errors.clear();
  const std::string expected =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<testsuites name=\"stampede\" tests=\"3\" failures=\"2\" errors=\"0\" time=\"10.000\">\n"
      "  <testsuite name=\"Demo.Api\" tests=\"3\" failures=\"2\" errors=\"0\" skipped=\"0\" time=\"10.000\" "
      "timestamp=\"2024-05-01T12:00:00.123Z\" hostname=\"ci-runner\">\n"
      "    <properties>\n"
      "      <property name=\"file\" value=\"loadtest/api.lua\"/>\n"
      "      <property name=\"interrupted\" value=\"false\"/>\n"
      "    </properties>\n"
      "    <testcase classname=\"Demo.Api.thresholds\" name=\"http.request p95 &lt;= 250.00ms\" time=\"0\"/>\n"
      "    <testcase classname=\"Demo.Api.thresholds\" name=\"status is 200 failed_rate &lt;= 0.10%\" time=\"0\">\n"
      "      <failure type=\"threshold\" message=\"status is 200 failed_rate = 1.00%, above 0.10%\">"
      "status is 200 failed_rate = 1.00%, above 0.10%</failure>\n"
      "    </testcase>\n"
      "    <testcase classname=\"Demo.Api.checks\" name=\"status is 200\" time=\"0\">\n"
      "      <failure type=\"check\" message=\"10 of 1000 failed (1.00%)\">10 of 1000 failed (1.00%)</failure>\n"
      "    </testcase>\n"
      "  </testsuite>\n"
      "</testsuites>\n";
  EXPECT_EQ(junit_xml(run), expected);
}

TEST(JunitXml, AThresholdThatCouldNotBeJudgedFailsWithItsReason) {
  RunResult run = testing::sample_run();
  metrics::ThresholdResult& t = run.results[0].thresholds[0];
  t.pass = false;
  t.judged = false;
  t.message = "no samples: \"ws.connect\" recorded nothing";
  const std::string xml = junit_xml(run);
  EXPECT_NE(xml.find("message=\"no samples: &quot;ws.connect&quot; recorded nothing\""), std::string::npos) << xml;
}

TEST(JunitXml, EscapesNamesAndMessages) {
  RunResult run = testing::sample_run();
  run.results[0].metrics.push_back(testing::check_figures("body has <script>\"x\"</script> & \x01 more", 1, 1));
  const std::string xml = junit_xml(run);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_NE(xml.find("name=\"Demo &lt;script&gt;&quot;Api&quot;&lt;/script&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"body has &lt;script&gt;&quot;x&quot;&lt;/script&gt; &amp; \xEF\xBF\xBD more\""),
            std::string::npos)
      << xml;
}

TEST(JunitXml, SeveralScenariosAddUp) {
  RunResult run = testing::sample_run();
  run.results.push_back(testing::sample_scenario("Second"));
  const std::string xml = junit_xml(run);
  EXPECT_NE(xml.find("<testsuites name=\"stampede\" tests=\"6\" failures=\"4\" errors=\"0\" time=\"20.000\">"),
            std::string::npos);
  EXPECT_NE(xml.find("<testsuite name=\"Second\""), std::string::npos);
}

// A --find-limit run where no level held: the search is a failed case, and the thresholds
// are those of the step that broke, with its level.
TEST(JunitXml, AFindLimitRunShowsTheSearchAndTheDecidingStepsThresholds) {
  RunResult run = testing::sample_run();
  ScenarioResult& r = run.results[0];
  r.scenario = "FL";
  r.metrics.clear();
  FindLimitResult fl;
  fl.by = "vus";
  FindLimitStep step;
  step.level = 10;
  step.status = "fail";
  metrics::ThresholdResult p95;
  p95.spec = {"http.request", "p95", 20, "fl.lua"};
  p95.judged = true;
  p95.value = 52.67;
  metrics::ThresholdResult errors;
  errors.spec = {"http.request.errors", "count", 0, "fl.lua"};
  errors.judged = true;
  errors.pass = true;
  step.thresholds = {p95, errors};
  fl.steps = {step};
  fl.failed_at = 10;
  fl.verdict = "No level held: 10 VUs already broke http.request p95 <= 20.00ms (52.67ms)";
  r.find_limit = fl;
  r.thresholds = step.thresholds;
  const std::string xml = junit_xml(run);
  EXPECT_NE(xml.find("<testsuite name=\"FL\" tests=\"3\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("    <testcase classname=\"FL.find_limit\" name=\"a level held\" time=\"0\">\n"
                     "      <failure type=\"find_limit\" message=\"No level held: 10 VUs already broke http.request "
                     "p95 &lt;= 20.00ms (52.67ms)\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"threshold\" message=\"at 10 VUs: http.request p95 = 52.67ms, above 20.00ms\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"FL.thresholds\" name=\"http.request.errors count &lt;= 0\" time=\"0\"/>"),
            std::string::npos)
      << xml;

  // A level held: the search passes and says what it found.
  r.find_limit->limit = 6;
  r.find_limit->verdict = "Held 6 VUs; 10 VUs broke http.request p95 <= 20.00ms (52.67ms)";
  const std::string held = junit_xml(run);
  EXPECT_NE(held.find("    <testcase classname=\"FL.find_limit\" name=\"a level held\" time=\"0\">\n"
                      "      <system-out>Held 6 VUs; 10 VUs broke http.request p95 &lt;= 20.00ms (52.67ms)</system-out>\n"
                      "    </testcase>\n"),
            std::string::npos)
      << held;
}

}  // namespace
}  // namespace stampede::report
