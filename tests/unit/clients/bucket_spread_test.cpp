// A server histogram's buckets spread into our histogram must give the percentiles
// Prometheus' histogram_quantile() gives on the same buckets, within the bound design 038
// derives: never below it, above it by less than 3 * (upper - lower) / min(n, K) for the
// bucket the rank falls in (n its count, K kMaxBucketPoints; (upper - lower) / n when n <= K),
// give or take our histogram's 0.05%.
#include "clients/bucket_spread.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "clients/bucket_deltas.hpp"
#include "infinity.hpp"
#include "metrics/histogram.hpp"

namespace stampede::clients {
namespace {

using stampede::testing::kInf;
using Cumulative = std::vector<std::pair<double, double>>;  // (le, cumulative count)

// promql/quantile.go's bucketQuantile for classic buckets (Prometheus 2.x), written from its
// source: the rank q * count, the first bucket whose cumulative count reaches it, linear
// interpolation inside it; a rank in the +Inf bucket answers the highest finite bound; a first
// bucket with an upper bound <= 0 answers that bound.
double histogram_quantile(double q, const Cumulative& buckets) {
  const double observations = buckets.back().second;
  const double rank = q * observations;
  std::size_t b = 0;
  while (b + 1 < buckets.size() && buckets[b].second < rank) ++b;
  if (b == buckets.size() - 1) return buckets[buckets.size() - 2].first;
  if (b == 0 && buckets[0].first <= 0) return buckets[0].first;
  double start = 0;
  double count = buckets[b].second;
  double r = rank;
  if (b > 0) {
    start = buckets[b - 1].first;
    count -= buckets[b - 1].second;
    r -= buckets[b - 1].second;
  }
  return start + (buckets[b].first - start) * (r / count);
}

metrics::Histogram spread(const Cumulative& cumulative, double scale) {
  metrics::Histogram h;
  for (const BucketDelta& b : bucket_counts(cumulative)) {
    spread_bucket(b, scale, [&](std::int64_t v, std::uint64_t times) { h.record(v, times); });
  }
  return h;
}

// The bucket (lower, upper, count) the nearest rank of `q` falls in.
BucketDelta bucket_of(double q, const Cumulative& cumulative) {
  const double rank = std::ceil(q * cumulative.back().second);
  double lower = 0;
  double below = 0;
  for (const auto& [le, cum] : cumulative) {
    if (cum >= rank) return {lower, le, cum - below};
    lower = le;
    below = cum;
  }
  return {};
}

void expect_like_histogram_quantile(const Cumulative& cumulative, double scale) {
  const metrics::Histogram h = spread(cumulative, scale);
  EXPECT_EQ(static_cast<double>(h.count()), cumulative.back().second);
  for (const double q : {0.5, 0.75, 0.9, 0.95, 0.99, 0.999}) {
    const double ours = static_cast<double>(h.percentile(q * 100)) / scale;
    const double theirs = histogram_quantile(q, cumulative);
    const BucketDelta b = bucket_of(q, cumulative);
    const double width = std::isinf(b.upper) ? 0 : b.upper - b.lower;
    const double points = std::min(b.count, static_cast<double>(kMaxBucketPoints));
    const double above = b.count <= static_cast<double>(kMaxBucketPoints) ? width / b.count : 3 * width / points;
    const double slack = 0.0005 * theirs + 1 / scale;  // our histogram's buckets, and whole units
    EXPECT_GE(ours, theirs - slack) << "q=" << q;
    EXPECT_LT(ours, theirs + above + slack)
        << "q=" << q << " bucket (" << b.lower << ", " << b.upper << "] n=" << b.count;
  }
}

TEST(BucketSpread, PercentilesMatchHistogramQuantileOnLatencyBuckets) {
  // Prometheus' default buckets in seconds, a typical endpoint's second.
  const Cumulative buckets = {{0.005, 10},  {0.01, 40}, {0.025, 100}, {0.05, 180}, {0.1, 230},
                              {0.25, 260},  {0.5, 270}, {1, 275},     {2.5, 279},  {kInf, 280}};
  expect_like_histogram_quantile(buckets, 1e9);
}

TEST(BucketSpread, PercentilesMatchWithMoreObservationsThanPointsPerBucket) {
  // PromEx's millisecond buckets with tens of thousands of observations a second: each bucket
  // is K points carrying n/K samples each.
  const Cumulative buckets = {{1, 1200},     {2, 9000},     {4, 31000},  {8, 52000},
                              {16, 60000},   {32, 61500},   {64, 61900}, {128, 61990},
                              {256, 62000},  {kInf, 62003}};
  expect_like_histogram_quantile(buckets, 1e6);
}

TEST(BucketSpread, PlainNumbersKeepTheirUnit) {
  const Cumulative sizes = {{100, 3}, {1000, 50}, {10000, 90}, {100000, 99}, {kInf, 100}};
  expect_like_histogram_quantile(sizes, 1);
}

TEST(BucketSpread, TheInfBucketIsRecordedAtItsLowerBound) {
  // A rank in (x, +Inf] is x for histogram_quantile, and for us.
  const Cumulative buckets = {{0.1, 1}, {0.5, 2}, {kInf, 100}};
  const metrics::Histogram h = spread(buckets, 1e9);
  EXPECT_EQ(h.percentile(99), 500'000'000);
  EXPECT_EQ(h.max(), 500'000'000);
  EXPECT_DOUBLE_EQ(histogram_quantile(0.99, buckets), 0.5);
}

TEST(BucketSpread, SamplesAddUpExactlyAndAscend) {
  for (const double n : {1.0, 2.0, 255.0, 256.0, 257.0, 1000.0, 123457.0}) {
    std::uint64_t total = 0;
    std::int64_t last = -1;
    std::size_t calls = 0;
    spread_bucket({0.25, 0.5, n}, 1e9, [&](std::int64_t v, std::uint64_t times) {
      EXPECT_GT(times, 0u);
      EXPECT_GT(v, last);
      EXPECT_GT(v, 250'000'000);
      EXPECT_LE(v, 500'000'000);
      last = v;
      total += times;
      ++calls;
    });
    EXPECT_EQ(total, static_cast<std::uint64_t>(n)) << n;
    EXPECT_EQ(calls, std::min<std::uint64_t>(static_cast<std::uint64_t>(n), kMaxBucketPoints)) << n;
    EXPECT_EQ(last, 500'000'000) << "the last point is the upper bound";
  }
}

TEST(BucketSpread, FractionsRoundAndNothingIsRecordedForLessThanHalf) {
  std::uint64_t total = 0;
  spread_bucket({0, 1, 0.4}, 1, [&](std::int64_t, std::uint64_t times) { total += times; });
  EXPECT_EQ(total, 0u);
  spread_bucket({0, 1, 2.6}, 1, [&](std::int64_t, std::uint64_t times) { total += times; });
  EXPECT_EQ(total, 3u);
}

TEST(BucketSpread, NegativeAndHugeValuesAreClamped) {
  std::vector<std::int64_t> seen;
  spread_bucket({-kInf, -2, 5}, 1, [&](std::int64_t v, std::uint64_t) { seen.push_back(v); });
  spread_bucket({1e30, kInf, 1}, 1e9, [&](std::int64_t v, std::uint64_t) { seen.push_back(v); });
  EXPECT_EQ(seen, (std::vector<std::int64_t>{0, std::numeric_limits<std::int64_t>::max()}));
}

}  // namespace
}  // namespace stampede::clients
