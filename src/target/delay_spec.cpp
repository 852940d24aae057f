#include "target/delay_spec.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <vector>

namespace stampede::target {
namespace {

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  while (true) {
    const auto colon = text.find(':');
    fields.push_back(text.substr(0, colon));
    if (colon == std::string_view::npos) return fields;
    text.remove_prefix(colon + 1);
  }
}

std::optional<double> parse_number(std::string_view field) {
  double value = 0;
  const auto* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (field.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<DelaySpec> parse_delay_spec(std::string_view text, std::string* error) {
  const auto fail = [&](std::string_view why) -> std::optional<DelaySpec> {
    if (error) {
      *error = fmt::format("invalid delay spec \"{}\": {}; expected {} (milliseconds, e.g. fixed:10)", text, why,
                           kDelaySpecForms);
    }
    return std::nullopt;
  };

  const auto fields = split_fields(text);
  const auto kind = fields.front();
  const std::size_t want = kind == "fixed"                            ? 1
                           : kind == "uniform" || kind == "lognormal" ? 2
                           : kind == "bimodal"                        ? 3
                                                                      : 0;
  if (want == 0) return fail(fmt::format("unknown distribution \"{}\"", kind));
  if (fields.size() - 1 != want) {
    return fail(fmt::format("{} takes {} number{}, got {}", kind, want, want == 1 ? "" : "s", fields.size() - 1));
  }
  std::vector<double> n;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const auto value = parse_number(fields[i]);
    if (!value) return fail(fmt::format("\"{}\" is not a number", fields[i]));
    if (*value < 0) return fail(fmt::format("{} is negative", fields[i]));
    n.push_back(*value);
  }
  const auto check_ms = [&](double ms) { return ms <= kMaxDelayMs; };

  if (kind == "fixed") {
    if (!check_ms(n[0])) return fail("delays are limited to one hour (3600000 ms)");
    return FixedDelay{n[0]};
  }
  if (kind == "uniform") {
    if (n[0] > n[1]) return fail("LO is greater than HI");
    if (!check_ms(n[1])) return fail("delays are limited to one hour (3600000 ms)");
    return UniformDelay{n[0], n[1]};
  }
  if (kind == "lognormal") {
    if (n[0] <= 0) return fail("the median must be greater than 0");
    if (!check_ms(n[0])) return fail("delays are limited to one hour (3600000 ms)");
    if (n[1] > 10) return fail("SIGMA above 10 is not a useful latency shape");
    return LognormalDelay{n[0], n[1]};
  }
  if (n[2] > 1) return fail("P_SLOW is a probability between 0 and 1");
  if (!check_ms(n[0]) || !check_ms(n[1])) return fail("delays are limited to one hour (3600000 ms)");
  return BimodalDelay{n[0], n[1], n[2]};
}

std::string format_delay_spec(const DelaySpec& spec) {
  struct Formatter {
    std::string operator()(const FixedDelay& d) const { return fmt::format("fixed:{}", d.ms); }
    std::string operator()(const UniformDelay& d) const { return fmt::format("uniform:{}:{}", d.lo_ms, d.hi_ms); }
    std::string operator()(const LognormalDelay& d) const {
      return fmt::format("lognormal:{}:{}", d.median_ms, d.sigma);
    }
    std::string operator()(const BimodalDelay& d) const {
      return fmt::format("bimodal:{}:{}:{}", d.fast_ms, d.slow_ms, d.p_slow);
    }
  };
  return std::visit(Formatter{}, spec);
}

}  // namespace stampede::target
