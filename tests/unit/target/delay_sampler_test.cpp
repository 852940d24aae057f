#include "target/delay_sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace stampede::target {
namespace {

constexpr int kSamples = 200'000;

std::vector<double> draw_ms(const char* spec, std::uint64_t seed, int n = kSamples) {
  DelaySampler sampler(*parse_delay_spec(spec), seed);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(static_cast<double>(sampler.next()) / static_cast<double>(kMilli));
  return out;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const auto x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

TEST(DelaySampler, FixedIsExactToTheNanosecond) {
  DelaySampler sampler(FixedDelay{10}, 1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sampler.next(), 10 * kMilli);
  DelaySampler zero(FixedDelay{0}, 1);
  EXPECT_EQ(zero.next(), 0);
  DelaySampler fraction(FixedDelay{0.000001}, 1);
  EXPECT_EQ(fraction.next(), 1);
}

TEST(DelaySampler, SameSeedSameSequenceOtherSeedOtherSequence) {
  const auto a = draw_ms("lognormal:20:0.6", 7, 1000);
  EXPECT_EQ(a, draw_ms("lognormal:20:0.6", 7, 1000));
  EXPECT_NE(a, draw_ms("lognormal:20:0.6", 8, 1000));
}

TEST(DelaySampler, UniformStaysInRangeAndCentred) {
  const auto v = draw_ms("uniform:5:15", 42);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 5.0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 15.0);
  // sd of the mean = (10 / sqrt(12)) / sqrt(200k) = 0.0065 ms
  EXPECT_NEAR(mean(v), 10.0, 0.05);
  // Each 1 ms bucket holds about a tenth of the samples.
  std::vector<int> buckets(10);
  for (const auto x : v) ++buckets[std::min(9, static_cast<int>(x - 5.0))];
  for (const auto count : buckets) EXPECT_NEAR(count, kSamples / 10, kSamples / 100);
}

TEST(DelaySampler, LognormalHasTheRequestedMedianAndSigma) {
  const auto v = draw_ms("lognormal:20:0.6", 42);
  EXPECT_NEAR(median(v), 20.0, 0.3);
  std::vector<double> logs;
  for (const auto x : v) logs.push_back(std::log(x));
  const double mu = mean(logs);
  double var = 0;
  for (const auto l : logs) var += (l - mu) * (l - mu);
  EXPECT_NEAR(mu, std::log(20.0), 0.01);
  EXPECT_NEAR(std::sqrt(var / static_cast<double>(logs.size())), 0.6, 0.01);
  // mean of a lognormal = median * exp(sigma^2 / 2)
  EXPECT_NEAR(mean(v), 20.0 * std::exp(0.18), 0.25);
}

TEST(DelaySampler, BimodalPicksTheSlowModeWithItsProbability) {
  const auto v = draw_ms("bimodal:5:300:0.015", 42);
  int slow = 0;
  for (const auto x : v) {
    ASSERT_TRUE(x == 5.0 || x == 300.0) << x;
    if (x == 300.0) ++slow;
  }
  // sd of the fraction = sqrt(0.015 * 0.985 / 200k) = 0.00027
  EXPECT_NEAR(static_cast<double>(slow) / kSamples, 0.015, 0.0015);
}

}  // namespace
}  // namespace stampede::target
