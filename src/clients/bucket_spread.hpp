#pragma once
// A server histogram's bucket as samples of our own histogram, so that the p50/p95/p99 of a
// second, and the run's percentiles, come out of the same exact machinery as the client's
// timings (metrics/histogram.hpp), and merge across seconds and nodes by adding.
//
// A Prometheus bucket says "n observations fell in (lower, upper]" and nothing about where.
// histogram_quantile() assumes them spread evenly over the bucket (linear interpolation:
// the quantile at rank r of the bucket is lower + (upper - lower) * r / n). We record the same
// assumption: n samples at lower + (upper - lower) * i / n for i = 1..n, or, when n is larger
// than kMaxBucketPoints, K = kMaxBucketPoints points each carrying n/K of the samples (the
// remainder spread so that they add up to n exactly). Then our nearest-rank percentile is
// never below histogram_quantile's and above it by less than (upper - lower) / n when n <= K,
// 3 * (upper - lower) / K otherwise, give or take our histogram's 0.05% (docs/design/038
// derives it). The truth can be anywhere in the bucket: that error, the bucket's width, is
// the exporter's choice, and Prometheus has it too.
//
// The last bucket, (x, +Inf], has no width: its samples are recorded at x, which is what
// histogram_quantile returns for a rank in it. A first bucket with no lower bound (-Inf, upper]
// is recorded at upper.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "clients/bucket_deltas.hpp"

namespace stampede::clients {

inline constexpr std::uint64_t kMaxBucketPoints = 256;

// `bucket.count` rounded to whole samples (a fractional count, which some exporters' float
// counters can give, loses its fraction). Values are multiplied by `scale` (nanoseconds per
// unit for a duration, 1 otherwise), rounded, and clamped to [0, INT64_MAX]: our histograms
// hold non-negative integers. Calls record(value, times) with times > 0, ascending values.
template <typename Record>
void spread_bucket(const BucketDelta& bucket, double scale, Record&& record) {
  const double rounded = std::round(bucket.count);
  if (!(rounded >= 1)) return;
  constexpr double kMaxCount = 9.2e18;  // below 2^63: the count fits an unsigned 64-bit integer
  const std::uint64_t n = static_cast<std::uint64_t>(std::min(rounded, kMaxCount));
  const auto at = [scale](double v) -> std::int64_t {
    const double scaled = std::round(v * scale);
    if (!(scaled > 0)) return 0;  // NaN too
    if (scaled >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
    return static_cast<std::int64_t>(scaled);
  };
  if (std::isinf(bucket.upper)) return record(at(bucket.lower), n);
  if (std::isinf(bucket.lower)) return record(at(bucket.upper), n);
  const std::uint64_t points = std::min(n, kMaxBucketPoints);
  const std::uint64_t each = n / points;
  const std::uint64_t remainder = n % points;
  const double width = bucket.upper - bucket.lower;
  std::uint64_t given_remainder = 0;
  for (std::uint64_t i = 1; i <= points; ++i) {
    // The remainder's share of the first i points, rounded down: spread evenly, and all of
    // it given by the last point.
    const std::uint64_t remainder_so_far = remainder * i / points;
    const std::uint64_t times = each + (remainder_so_far - given_remainder);
    given_remainder = remainder_so_far;
    const double value = bucket.lower + width * static_cast<double>(i) / static_cast<double>(points);
    if (times > 0) record(at(value), times);
  }
}

}  // namespace stampede::clients
