// Numbers as Prometheus reads them. The grammar is checked here, by hand, because
// std::from_chars differs from Go's ParseFloat at the edges (it refuses a leading '+' and
// accepts "nan(...)"); from_chars then does the exact decimal-to-binary conversion.
#include "proto/prometheus_number.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "proto/ascii.hpp"

namespace stampede::proto {
namespace {

using ascii::iequals;
using ascii::is_digit;

// A decimal number checked against [digits][.digits][(e|E)[+-]digits], with at least one
// mantissa digit. Returns false when the text is not one. `magnitude` is the power of ten
// of its leading non-zero digit (saturated), which tells an overflow from an underflow
// when from_chars says "out of range"; it is 0 for a number that is all zeros.
bool scan_decimal(std::string_view s, long long& magnitude) {
  std::size_t i = 0;
  long long integer_digits = 0;   // significant digits before the point
  long long leading_zeros = 0;    // zeros right after the point, before any significant digit
  bool any_digit = false;
  bool significant = false;
  while (i < s.size() && is_digit(s[i])) {
    any_digit = true;
    if (s[i] != '0' || significant) {
      significant = true;
      ++integer_digits;
    }
    ++i;
  }
  bool fraction_significant = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) {
      any_digit = true;
      if (!significant && !fraction_significant) {
        if (s[i] == '0') {
          ++leading_zeros;
        } else {
          fraction_significant = true;
        }
      }
      ++i;
    }
  }
  if (!any_digit) return false;
  long long exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      negative = s[i] == '-';
      ++i;
    }
    if (i == s.size()) return false;
    while (i < s.size() && is_digit(s[i])) {
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (s[i] - '0');
      ++i;
    }
    if (negative) exponent = -exponent;
  }
  if (i != s.size()) return false;
  if (significant) {
    magnitude = integer_digits - 1 + exponent;
  } else if (fraction_significant) {
    magnitude = -leading_zeros - 1 + exponent;
  } else {
    magnitude = 0;
  }
  return true;
}

}  // namespace

std::optional<double> parse_exposition_float(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const bool signed_text = text.front() == '+' || text.front() == '-';
  const bool negative = text.front() == '-';
  const std::string_view unsigned_text = signed_text ? text.substr(1) : text;
  if (iequals(unsigned_text, "inf") || iequals(unsigned_text, "infinity")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (!signed_text && iequals(unsigned_text, "nan")) return std::numeric_limits<double>::quiet_NaN();

  long long magnitude = 0;
  if (!scan_decimal(unsigned_text, magnitude)) return std::nullopt;
  double value = 0;
  const char* first = unsigned_text.data();
  const char* last = first + unsigned_text.size();
  const auto [end, error] = std::from_chars(first, last, value, std::chars_format::general);
  if (error == std::errc::result_out_of_range) {
    if (magnitude > 0) return std::nullopt;  // beyond DBL_MAX: Prometheus refuses it
    value = 0;                               // below the smallest double: zero
  } else if (error != std::errc{} || end != last) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

std::optional<std::int64_t> parse_millisecond_timestamp(std::string_view text) {
  // Go's ParseInt takes a sign; from_chars takes '-' but not '+'.
  const bool signed_text = !text.empty() && (text.front() == '+' || text.front() == '-');
  const std::string_view digits = signed_text ? text.substr(1) : text;
  if (digits.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  for (const char c : digits) {
    if (!is_digit(c)) return std::nullopt;
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_second_timestamp(std::string_view text) {
  const auto seconds = parse_exposition_float(text);
  if (!seconds || !std::isfinite(*seconds)) return std::nullopt;
  const double ms = *seconds * 1000;
  // 2^63 is exactly representable; anything at or past it does not fit.
  constexpr double kLimit = 9'223'372'036'854'775'808.0;
  if (!(ms > -kLimit && ms < kLimit)) return std::nullopt;
  return static_cast<std::int64_t>(ms);
}

}  // namespace stampede::proto
