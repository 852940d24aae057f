#include "target/capacity_limit.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "target/delay_spec.hpp"

namespace stampede::target {

std::optional<CapacitySpec> parse_capacity_spec(std::string_view text, std::string* error) {
  const auto fail = [&]() -> std::optional<CapacitySpec> {
    if (error != nullptr)
      *error = fmt::format("capacity \"{}\": expected REQUESTS:EXTRA_MS such as 10:200 (past 10 requests in flight, "
                           "each is held 200 ms longer)",
                           text);
    return std::nullopt;
  };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return fail();
  CapacitySpec spec;
  const std::string_view n = text.substr(0, colon);
  const std::string_view ms = text.substr(colon + 1);
  if (auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), spec.requests); ec != std::errc() || end != n.data() + n.size())
    return fail();
  if (auto [end, ec] = std::from_chars(ms.data(), ms.data() + ms.size(), spec.extra_ms);
      ec != std::errc() || end != ms.data() + ms.size() || !(spec.extra_ms >= 0) || spec.extra_ms > kMaxDelayMs)
    return fail();
  return spec;
}

std::string format_capacity_spec(const CapacitySpec& spec) { return fmt::format("{}:{}", spec.requests, spec.extra_ms); }

}  // namespace stampede::target
