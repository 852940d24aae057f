#include "target/http_date.hpp"

#include <fmt/format.h>

namespace stampede::target {

std::string_view HttpDateCache::header_line() {
  const std::time_t now = std::time(nullptr);
  if (now != formatted_for_) {
    // Spelled out rather than strftime("%a %b"), which follows the process locale.
    static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm utc{};
    gmtime_r(&now, &utc);
    line_ = fmt::format("Date: {}, {:02} {} {} {:02}:{:02}:{:02} GMT\r\n", kDays[utc.tm_wday], utc.tm_mday,
                        kMonths[utc.tm_mon], utc.tm_year + 1900, utc.tm_hour, utc.tm_min, utc.tm_sec);
    formatted_for_ = now;
  }
  return line_;
}

}  // namespace stampede::target
