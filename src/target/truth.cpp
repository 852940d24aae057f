#include "target/truth.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace stampede::target {
namespace {

// ns / 1e6 rounds to the double nearest the exact decimal, so the shortest round-trip
// form printed by fmt is exactly the nanosecond count in milliseconds ("10.084123").
double to_ms(double nanos) { return nanos / static_cast<double>(kMilli); }

}  // namespace

Nanos nearest_rank(const std::vector<Nanos>& sorted, int percent) {
  if (sorted.empty()) return 0;
  // Integer ceiling: with doubles, 0.9 * 10 is 9.000000000000002 and ceil() would say rank 10.
  const auto n = static_cast<std::uint64_t>(sorted.size());
  const auto p = static_cast<std::uint64_t>(std::clamp(percent, 0, 100));
  const auto rank = std::max<std::uint64_t>(1, (p * n + 99) / 100);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

Truth compute_truth(std::vector<Nanos>& held) {
  Truth truth;
  truth.count = held.size();
  if (held.empty()) return truth;
  std::sort(held.begin(), held.end());
  truth.p50 = nearest_rank(held, 50);
  truth.p90 = nearest_rank(held, 90);
  truth.p95 = nearest_rank(held, 95);
  truth.p99 = nearest_rank(held, 99);
  truth.max = held.back();
  long double sum = 0;  // 60 s x 80k/s x seconds-long holds would overflow an int64 sum
  for (const auto h : held) sum += static_cast<long double>(h);
  truth.mean = static_cast<double>(sum / static_cast<long double>(held.size()));
  return truth;
}

std::string truth_to_json(const Truth& truth) {
  const auto ms = [](Nanos v) { return to_ms(static_cast<double>(v)); };
  // The mean is rounded to whole nanoseconds like every other field.
  const double mean_ns = static_cast<double>(static_cast<Nanos>(truth.mean + 0.5));
  return fmt::format(R"({{"count":{},"p50_ms":{},"p90_ms":{},"p95_ms":{},"p99_ms":{},"max_ms":{},"mean_ms":{}}})",
                     truth.count, ms(truth.p50), ms(truth.p90), ms(truth.p95), ms(truth.p99), ms(truth.max),
                     to_ms(mean_ns));
}

}  // namespace stampede::target
