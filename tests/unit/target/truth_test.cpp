#include "target/truth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace stampede::target {
namespace {

TEST(Truth, EmptyRecordIsAllZero) {
  std::vector<Nanos> held;
  const auto truth = compute_truth(held);
  EXPECT_EQ(truth.count, 0u);
  EXPECT_EQ(truth.p99, 0);
  EXPECT_EQ(truth_to_json(truth),
            R"({"count":0,"p50_ms":0,"p90_ms":0,"p95_ms":0,"p99_ms":0,"max_ms":0,"mean_ms":0})");
}

TEST(Truth, NearestRankOnOneToHundred) {
  std::vector<Nanos> held(100);
  std::iota(held.begin(), held.end(), 1);
  std::shuffle(held.begin(), held.end(), std::mt19937(3));
  const auto truth = compute_truth(held);
  EXPECT_EQ(truth.count, 100u);
  EXPECT_EQ(truth.p50, 50);
  EXPECT_EQ(truth.p90, 90);
  EXPECT_EQ(truth.p95, 95);
  EXPECT_EQ(truth.p99, 99);
  EXPECT_EQ(truth.max, 100);
  EXPECT_DOUBLE_EQ(truth.mean, 50.5);
}

TEST(Truth, NearestRankRoundsTheRankUp) {
  // n = 10: p90 is rank ceil(9.0) = 9 (floating point would say 9.000000000000002 -> 10),
  // p95 is rank ceil(9.5) = 10, p50 is rank 5.
  std::vector<Nanos> sorted = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  EXPECT_EQ(nearest_rank(sorted, 50), 50);
  EXPECT_EQ(nearest_rank(sorted, 90), 90);
  EXPECT_EQ(nearest_rank(sorted, 95), 100);
  EXPECT_EQ(nearest_rank(sorted, 99), 100);
  EXPECT_EQ(nearest_rank(sorted, 0), 10);  // rank at least 1
  // n = 7: p50 is rank ceil(3.5) = 4
  std::vector<Nanos> seven = {1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(nearest_rank(seven, 50), 4);
  EXPECT_EQ(nearest_rank(seven, 99), 7);
  std::vector<Nanos> one = {42};
  EXPECT_EQ(nearest_rank(one, 50), 42);
  EXPECT_EQ(nearest_rank(one, 99), 42);
}

TEST(Truth, MatchesABruteForceNearestRankOnRandomData) {
  std::mt19937_64 rng(11);
  for (int n : {1, 2, 3, 19, 20, 21, 99, 100, 101, 1000, 12345}) {
    std::vector<Nanos> held;
    for (int i = 0; i < n; ++i) held.push_back(static_cast<Nanos>(rng() % 1'000'000'000));
    auto sorted = held;
    std::sort(sorted.begin(), sorted.end());
    const auto truth = compute_truth(held);
    for (const auto& [p, got] : {std::pair{50, truth.p50}, {90, truth.p90}, {95, truth.p95}, {99, truth.p99}}) {
      // smallest value with at least p% of the values at or below it
      Nanos expected = sorted.back();
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (100 * (i + 1) >= static_cast<std::size_t>(p) * sorted.size()) {
          expected = sorted[i];
          break;
        }
      }
      EXPECT_EQ(got, expected) << "n=" << n << " p" << p;
    }
  }
}

TEST(Truth, JsonShowsMillisecondsToTheNanosecond) {
  std::vector<Nanos> held = {10'084'123, 20'000'000, 5'000'001};
  const auto json = truth_to_json(compute_truth(held));
  EXPECT_EQ(json,
            R"({"count":3,"p50_ms":10.084123,"p90_ms":20,"p95_ms":20,"p99_ms":20,"max_ms":20,"mean_ms":11.694708})");
}

}  // namespace
}  // namespace stampede::target
