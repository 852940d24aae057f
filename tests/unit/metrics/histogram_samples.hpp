#pragma once
// Sample data shared by the histogram tests: value distributions whose shapes would show
// a bucketing error, or any difference between the dense and compact forms, and the
// percentiles worth asking about.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace stampede::metrics::samples {

inline constexpr std::int64_t kMs = 1'000'000;
inline constexpr std::int64_t kHour = 3600LL * 1'000'000'000;

// Every p from 0 to 100 in steps of 0.1, plus the tail where errors would hide; in
// thousandths of a percent, so exact ranks can be computed in integers.
inline std::vector<std::uint64_t> p_values_thousandths() {
  std::vector<std::uint64_t> ps;
  for (std::uint64_t p = 0; p <= 100'000; p += 100) ps.push_back(p);
  for (std::uint64_t p : {99'990ULL, 99'999ULL, 1ULL, 10ULL, 33'333ULL, 66'667ULL}) ps.push_back(p);
  return ps;
}

struct Distribution {
  const char* name;
  std::function<std::int64_t(std::mt19937_64&)> draw;
};

inline std::vector<Distribution> distributions() {
  return {
      {"uniform 0..1s",
       [](std::mt19937_64& g) { return std::uniform_int_distribution<std::int64_t>(0, 1000 * kMs)(g); }},
      {"lognormal around 10ms",
       [](std::mt19937_64& g) {
         return static_cast<std::int64_t>(std::lognormal_distribution<double>(std::log(10.0 * kMs), 1.0)(g));
       }},
      {"bimodal 1ms and 200ms",
       [](std::mt19937_64& g) {
         const bool slow = std::bernoulli_distribution(0.1)(g);
         const double centre = slow ? 200.0 * kMs : 1.0 * kMs;
         return std::max<std::int64_t>(
             0, static_cast<std::int64_t>(std::normal_distribution<double>(centre, centre / 10)(g)));
       }},
      {"huge, up to 3 hours",
       [](std::mt19937_64& g) { return std::uniform_int_distribution<std::int64_t>(kHour / 100, 3 * kHour)(g); }},
      {"tiny, 0..3000ns",
       [](std::mt19937_64& g) { return std::uniform_int_distribution<std::int64_t>(0, 3000)(g); }},
      {"every magnitude up to int64 max",
       [](std::mt19937_64& g) {
         const int bits = std::uniform_int_distribution<int>(0, 62)(g);
         const std::uint64_t top = (std::uint64_t{1} << bits) - 1;
         return static_cast<std::int64_t>((g() & top) | (std::uint64_t{1} << bits) >> 1);
       }},
  };
}

}  // namespace stampede::metrics::samples
