#include "target/delay_sampler.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace stampede::target {
namespace {

Nanos ms_to_nanos(double ms) {
  return static_cast<Nanos>(std::llround(std::clamp(ms, 0.0, kMaxDelayMs) * static_cast<double>(kMilli)));
}

}  // namespace

DelaySampler::DelaySampler(DelaySpec spec, std::uint64_t seed) : spec_(spec), rng_(seed) {}

double DelaySampler::uniform01() {
  // The top 53 bits fill a double's mantissa exactly.
  return static_cast<double>(rng_() >> 11) * 0x1.0p-53;
}

double DelaySampler::standard_normal() {
  // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
  const double u1 = 1.0 - uniform01();
  const double u2 = uniform01();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

Nanos DelaySampler::next() {
  if (const auto* fixed = std::get_if<FixedDelay>(&spec_)) return ms_to_nanos(fixed->ms);
  if (const auto* uniform = std::get_if<UniformDelay>(&spec_)) {
    return ms_to_nanos(uniform->lo_ms + (uniform->hi_ms - uniform->lo_ms) * uniform01());
  }
  if (const auto* lognormal = std::get_if<LognormalDelay>(&spec_)) {
    return ms_to_nanos(lognormal->median_ms * std::exp(lognormal->sigma * standard_normal()));
  }
  const auto& bimodal = std::get<BimodalDelay>(spec_);
  return ms_to_nanos(uniform01() < bimodal.p_slow ? bimodal.slow_ms : bimodal.fast_ms);
}

}  // namespace stampede::target
