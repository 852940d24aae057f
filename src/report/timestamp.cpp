#include "report/timestamp.hpp"

#include <ctime>

#include <fmt/format.h>

namespace stampede::report {

std::string iso8601_utc(std::chrono::system_clock::time_point when) {
  using namespace std::chrono;
  const auto ms = time_point_cast<milliseconds>(when);
  // floor, not truncation toward zero, so instants before 1970 keep a positive remainder.
  const auto whole = floor<seconds>(ms);
  const std::time_t t = system_clock::to_time_t(whole);
  std::tm utc{};
  gmtime_r(&t, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, (ms - whole).count());
}

}  // namespace stampede::report
