#pragma once
// The target's measurement truth: how long it really held each request, from fully received
// (by the kernel: docs/design/053) to response written. Load-tester percentiles are judged
// against these.
#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.hpp"

namespace stampede::target {

struct Truth {
  std::uint64_t count = 0;
  // Exact nearest-rank percentiles: the value at rank ceil(p/100 * count) of the sorted
  // held times (all 0 when count is 0).
  Nanos p50 = 0;
  Nanos p90 = 0;
  Nanos p95 = 0;
  Nanos p99 = 0;
  Nanos max = 0;
  double mean = 0;  // nanoseconds
};

// The value at nearest rank ceil(percent/100 * n) of already sorted values (0 when empty).
Nanos nearest_rank(const std::vector<Nanos>& sorted, int percent);

// Sorts `held` in place and summarizes it.
Truth compute_truth(std::vector<Nanos>& held);

// {"count":N,"p50_ms":..,"p90_ms":..,"p95_ms":..,"p99_ms":..,"max_ms":..,"mean_ms":..}
// Milliseconds are printed with up to 6 decimals, so every nanosecond shows.
std::string truth_to_json(const Truth& truth);

}  // namespace stampede::target
