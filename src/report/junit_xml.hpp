#pragma once
// JUnit XML (`--junit junit.xml`), which CI systems show as test results: one <testsuite>
// per scenario, one <testcase> per threshold and per check. A failed threshold, or a
// check that failed at least once, is a <failure> with a message saying by how much.
//
//   <testsuites name="stampede" tests="3" failures="1" errors="0" time="15.000">
//     <testsuite name="Demo.Api" tests="3" failures="1" ...>
//       <testcase classname="Demo.Api.thresholds" name="http.request p95 &lt;= 250.00ms" time="0">
//         <failure type="threshold" message="http.request p95 = 312.00ms, above 250.00ms"/>
//       </testcase>
//       <testcase classname="Demo.Api.checks" name="status is 200" time="0"/>
// Test case names hold the limit but not the measured value, so CI can follow one
// threshold across runs.
//
// A --find-limit run has one more case, `<scenario>.find_limit` "a level held" (failed, with
// the verdict sentence, when none did; else the verdict is its <system-out>), and its threshold cases are those
// of the step that decided the verdict (find_limit_table.hpp, verdict_step): all passed at
// the limit when a level held, or what broke at the lowest level when none did, with the
// level in the message ("at 10 VUs: http.request p95 = 52.67ms, above 20.00ms").
#include <string>

#include "report/run_result.hpp"

namespace stampede::report {

std::string junit_xml(const RunResult& run);

}  // namespace stampede::report
