#include "report/units.hpp"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace stampede::report {

namespace {

struct Unit {
  double nanos;
  const char* suffix;
};
constexpr Unit kUnits[] = {{1, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
constexpr int kUnitCount = sizeof(kUnits) / sizeof(kUnits[0]);

// Splits a non-negative count of `per_second` ticks into h, m, s and the ticks left over.
struct ClockParts {
  std::uint64_t hours, minutes, seconds, rest;
};
ClockParts split(std::uint64_t ticks, std::uint64_t per_second) {
  const std::uint64_t whole = ticks / per_second;
  return {whole / 3600, whole / 60 % 60, whole % 60, ticks % per_second};
}

const char* sign_of(Nanos value) { return value < 0 ? "-" : ""; }

std::uint64_t magnitude(Nanos value) {
  // Negating INT64_MIN overflows; its magnitude fits an unsigned.
  return value < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
}

}  // namespace

std::string format_nanos(Nanos value) {
  const double a = static_cast<double>(magnitude(value));
  int u = 0;
  while (u + 1 < kUnitCount && a >= kUnits[u + 1].nanos) ++u;
  std::string digits = fmt::format("{:.2f}", a / kUnits[u].nanos);
  // Rounding can carry a value just under the next unit up to 1000 of this one.
  if (digits == "1000.00" && u + 1 < kUnitCount) {
    ++u;
    digits = fmt::format("{:.2f}", a / kUnits[u].nanos);
  }
  return fmt::format("{}{}{}", sign_of(value), digits, kUnits[u].suffix);
}

std::string format_seconds(Nanos value) {
  // Round to tenths first, so 59.96s reads "1m00.0s" rather than "60.0s".
  const std::uint64_t tenths = (magnitude(value) + 50'000'000) / 100'000'000;
  const ClockParts t = split(tenths, 10);
  const char* sign = sign_of(value);
  if (t.hours > 0) return fmt::format("{}{}h{:02}m{:02}.{}s", sign, t.hours, t.minutes, t.seconds, t.rest);
  if (t.minutes > 0) return fmt::format("{}{}m{:02}.{}s", sign, t.minutes, t.seconds, t.rest);
  return fmt::format("{}{}.{}s", sign, t.seconds, t.rest);
}

std::string format_clock(Nanos value) {
  const ClockParts t = split(magnitude(value) / kSecond, 1);
  const char* sign = sign_of(value);
  if (t.hours > 0) return fmt::format("{}{}h{:02}m{:02}s", sign, t.hours, t.minutes, t.seconds);
  if (t.minutes > 0) return fmt::format("{}{}m{:02}s", sign, t.minutes, t.seconds);
  return fmt::format("{}{}s", sign, t.seconds);
}

std::string format_number(double value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 1e15) {
    return fmt::format("{:.0f}", value);
  }
  return fmt::format("{:.2f}", value);
}

std::string format_bytes(double bytes) {
  constexpr const char* kSuffixes[] = {"kB", "MB", "GB", "TB"};
  if (!(std::fabs(bytes) >= 1000)) return fmt::format("{}B", format_number(std::round(bytes * 100) / 100));
  double scaled = bytes / 1000;
  std::size_t i = 0;
  // Carry before formatting, so 999,999 B reads "1.00 MB", not "1000.00 kB".
  while (i + 1 < std::size(kSuffixes) && std::fabs(scaled) >= 999.995) {
    scaled /= 1000;
    ++i;
  }
  return fmt::format("{:.2f}{}", scaled, kSuffixes[i]);
}

std::string format_value(metrics::ValueUnit unit, double value) {
  return unit == metrics::ValueUnit::Bytes ? format_bytes(value) : format_number(value);
}

}  // namespace stampede::report
