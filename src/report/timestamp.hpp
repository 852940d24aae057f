#pragma once
// Wall-clock instants as reports write them: ISO 8601 in UTC with milliseconds,
// "2024-05-01T12:00:00.123Z". Only for saying when a run happened; every duration is
// measured on the monotonic clock.
#include <chrono>
#include <string>

namespace stampede::report {

std::string iso8601_utc(std::chrono::system_clock::time_point when);

}  // namespace stampede::report
