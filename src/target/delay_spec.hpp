#pragma once
// The distribution the target draws each request's hold time from, in milliseconds, as the
// command line writes it:
//   fixed:MS                      every request held MS (fixed:0 answers at once)
//   uniform:LO:HI                 uniform between LO and HI
//   lognormal:MEDIAN_MS:SIGMA     exp(N(mu, SIGMA)) with mu = ln(MEDIAN_MS)
//   bimodal:FAST_MS:SLOW_MS:P_SLOW  SLOW_MS with probability P_SLOW, otherwise FAST_MS
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace stampede::target {

struct FixedDelay {
  double ms = 0;
};
struct UniformDelay {
  double lo_ms = 0;
  double hi_ms = 0;
};
struct LognormalDelay {
  double median_ms = 0;
  double sigma = 0;
};
struct BimodalDelay {
  double fast_ms = 0;
  double slow_ms = 0;
  double p_slow = 0;
};
using DelaySpec = std::variant<FixedDelay, UniformDelay, LognormalDelay, BimodalDelay>;

// No single hold may exceed an hour: a typo like fixed:1e9 is an error, not a hung client.
inline constexpr double kMaxDelayMs = 3'600'000;

inline constexpr std::string_view kDelaySpecForms =
    "fixed:MS, uniform:LO:HI, lognormal:MEDIAN_MS:SIGMA or bimodal:FAST_MS:SLOW_MS:P_SLOW";

// Returns nullopt and sets `error` (when given) to a sentence naming the spec and the accepted forms.
std::optional<DelaySpec> parse_delay_spec(std::string_view text, std::string* error = nullptr);

// The canonical text of a spec ("fixed:10", "lognormal:20:0.6"), for banners and messages.
std::string format_delay_spec(const DelaySpec& spec);

}  // namespace stampede::target
