#include "proto/duration.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>

#include "proto/ascii.hpp"

namespace stampede::proto {
namespace {

constexpr Nanos kMinute = 60 * kSecond;
constexpr Nanos kHour = 60 * kMinute;
// Nobody load-tests for longer; a bound this low also keeps every sum far from overflow.
constexpr Nanos kMaxDuration = 100 * 24 * kHour;

struct Unit {
  std::string_view suffix;
  Nanos nanos;
};

// Longer suffixes first, so "ms" is not read as "m" followed by junk.
constexpr std::array<Unit, 8> kUnits{{
    {"ns", 1},
    {"us", kMicro},
    {"\xC2\xB5s", kMicro},  // µs, MICRO SIGN
    {"\xCE\xBCs", kMicro},  // μs, GREEK SMALL LETTER MU, what most keyboards produce
    {"ms", kMilli},
    {"s", kSecond},
    {"m", kMinute},
    {"h", kHour},
}};

std::string bad(std::string_view text, std::string_view why) {
  return "bad duration \"" + std::string(text) + "\": " + std::string(why);
}

constexpr std::string_view kExpected =
    "expected a number of milliseconds or a number with a unit (ns, us, ms, s, m, h), "
    "such as \"500ms\", \"30s\" or \"1h30m\"";

using ascii::is_digit;

struct Number {
  std::string_view whole;
  std::string_view fraction;
};

// Reads digits[.digits] (".5" and "5." too) at the front of `s`, advancing it.
std::optional<Number> read_number(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  Number n{s.substr(0, i), {}};
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    n.fraction = s.substr(start, i - start);
  }
  if (n.whole.empty() && n.fraction.empty()) return std::nullopt;
  s.remove_prefix(i);
  return n;
}

// number × unit in nanoseconds, or nullopt past kMaxDuration. The fraction is folded in from
// its last digit back (Horner's rule with floor division), which is exact for any number of
// digits: floor((d·u + floor(y)) / 10) = floor((d·u + y) / 10) for integers d·u.
std::optional<Nanos> scale(const Number& n, Nanos unit) {
  Nanos whole = 0;
  for (const char c : n.whole) {
    whole = whole * 10 + (c - '0');
    if (whole > kMaxDuration / unit) return std::nullopt;
  }
  Nanos fraction = 0;
  for (auto it = n.fraction.rbegin(); it != n.fraction.rend(); ++it) {
    fraction = ((*it - '0') * unit + fraction) / 10;
  }
  const Nanos total = whole * unit + fraction;
  if (total > kMaxDuration) return std::nullopt;
  return total;
}

std::optional<Nanos> read_unit(std::string_view& s) {
  for (const Unit& u : kUnits) {
    if (s.substr(0, u.suffix.size()) == u.suffix) {
      s.remove_prefix(u.suffix.size());
      return u.nanos;
    }
  }
  return std::nullopt;
}

std::string_view trim_whitespace(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<Nanos> fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return std::nullopt;
}

// value / unit with up to log10(unit / precision) decimals, trailing zeros dropped: "1.5".
std::string decimal(Nanos value, Nanos unit, Nanos precision) {
  std::string out = std::to_string(value / unit);
  Nanos fraction = (value % unit) / precision;
  if (fraction == 0) return out;
  std::string digits;
  for (Nanos scale = unit / precision; scale > 1; scale /= 10) {
    digits.insert(digits.begin(), static_cast<char>('0' + fraction % 10));
    fraction /= 10;
  }
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

Nanos round_to(Nanos d, Nanos quantum) {
  if (d > std::numeric_limits<Nanos>::max() - quantum / 2) return d / quantum * quantum;
  return (d + quantum / 2) / quantum * quantum;
}

}  // namespace

std::optional<Nanos> parse_duration(std::string_view text, std::string* error) {
  std::string_view s = trim_whitespace(text);
  if (s.empty()) return fail(error, bad(text, kExpected));
  if (s.front() == '-') return fail(error, bad(text, "a duration cannot be negative"));
  const auto too_long = [&] { return fail(error, bad(text, "longer than 100 days, the most Stampede accepts")); };

  // A bare number is milliseconds, as in a scenario's `duration = 250`.
  std::string_view rest = s;
  const auto first = read_number(rest);
  if (!first) return fail(error, bad(text, kExpected));
  if (rest.empty()) {
    const auto ms = scale(*first, kMilli);
    return ms ? ms : too_long();
  }

  Nanos total = 0;
  rest = s;
  while (!rest.empty()) {
    const auto number = read_number(rest);
    const auto unit = number ? read_unit(rest) : std::nullopt;
    if (!unit) return fail(error, bad(text, kExpected));
    const auto part = scale(*number, *unit);
    if (!part || *part > kMaxDuration - total) return too_long();
    total += *part;
  }
  return total;
}

std::optional<Nanos> duration_from_ms(double ms, std::string* error) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", ms);
  if (std::isnan(ms)) return fail(error, "bad duration nan: expected a number of milliseconds, 0 or more");
  if (ms < 0) return fail(error, bad(text, "a duration cannot be negative"));
  // Compared in double: a cast of infinity or of 1e20 to Nanos is undefined.
  if (!(ms * static_cast<double>(kMilli) <= static_cast<double>(kMaxDuration)))
    return fail(error, "bad duration " + std::string(text) + " (ms): longer than 100 days, the most Stampede accepts");
  return static_cast<Nanos>(ms * static_cast<double>(kMilli));
}

std::string format_duration(Nanos d) {
  if (d < 0) return "-" + format_duration(d == std::numeric_limits<Nanos>::min() ? std::numeric_limits<Nanos>::max() : -d);
  if (d == 0) return "0s";
  if (d < kMicro) return std::to_string(d) + "ns";
  if (d < kMilli) return decimal(d, kMicro, 1) + "us";
  // Each larger unit is shown to three decimals, so round first, then choose the unit of the
  // rounded value (999.9996ms is "1s", not "1000ms").
  const Nanos to_micros = round_to(d, kMicro);
  if (to_micros < kSecond) return decimal(to_micros, kMilli, kMicro) + "ms";
  const Nanos to_millis = round_to(d, kMilli);
  if (to_millis < kMinute) return decimal(to_millis, kSecond, kMilli) + "s";
  std::string out;
  const Nanos hours = to_millis / kHour;
  const Nanos minutes = to_millis % kHour / kMinute;
  const Nanos rest = to_millis % kMinute;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (minutes > 0) out += std::to_string(minutes) + "m";
  if (rest > 0) out += decimal(rest, kSecond, kMilli) + "s";
  return out;
}

}  // namespace stampede::proto
