#include "clients/bucket_deltas.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "infinity.hpp"

namespace stampede::clients {
namespace {

using stampede::testing::kInf;

TEST(BucketCounts, CumulativeToPerBucketWithBothBounds) {
  EXPECT_EQ(bucket_counts({{0.1, 2}, {0.5, 5}, {kInf, 6}}),
            (std::vector<BucketDelta>{{0, 0.1, 2}, {0.1, 0.5, 3}, {0.5, kInf, 1}}));
}

TEST(BucketCounts, EmptyBucketsAreLeftOut) {
  EXPECT_EQ(bucket_counts({{1, 0}, {2, 4}, {4, 4}, {kInf, 4}}), (std::vector<BucketDelta>{{1, 2, 4}}));
  EXPECT_TRUE(bucket_counts({{1, 0}, {kInf, 0}}).empty());
  EXPECT_TRUE(bucket_counts({}).empty());
}

TEST(BucketCounts, ACountThatGoesDownBetweenBoundsGivesZeroNotANegativeBucket) {
  // Buckets read at slightly different moments: 5 at le=1 but 4 at le=2.
  EXPECT_EQ(bucket_counts({{1, 5}, {2, 4}, {kInf, 6}}), (std::vector<BucketDelta>{{0, 1, 5}, {2, kInf, 1}}));
}

TEST(BucketCounts, ANegativeFirstBoundHasNoLowerBound) {
  EXPECT_EQ(bucket_counts({{-1, 1}, {0, 3}, {kInf, 3}}), (std::vector<BucketDelta>{{-kInf, -1, 1}, {-1, 0, 2}}));
  EXPECT_EQ(bucket_counts({{kInf, 7}}), (std::vector<BucketDelta>{{0, kInf, 7}}));
}

TEST(HistogramInterval, DeltasBetweenTwoScrapes) {
  const CumulativeBuckets before{{{0.1, 10}, {0.5, 20}, {kInf, 25}}, 4.0, 25};
  const CumulativeBuckets after{{{0.1, 13}, {0.5, 27}, {kInf, 33}}, 6.5, 33};
  const HistogramInterval i = histogram_interval(&before, after);
  EXPECT_FALSE(i.reset);
  EXPECT_EQ(i.buckets, (std::vector<BucketDelta>{{0, 0.1, 3}, {0.1, 0.5, 4}, {0.5, kInf, 1}}));
  EXPECT_EQ(i.count, 8);
  EXPECT_DOUBLE_EQ(i.sum, 2.5);
}

TEST(HistogramInterval, NothingNewIsNothing) {
  const CumulativeBuckets same{{{1, 3}, {kInf, 4}}, 2, 4};
  const HistogramInterval i = histogram_interval(&same, same);
  EXPECT_TRUE(i.buckets.empty());
  EXPECT_EQ(i.count, 0);
  EXPECT_EQ(i.sum, 0);
}

TEST(HistogramInterval, ANewSeriesCountsFromZero) {
  const CumulativeBuckets now{{{1, 3}, {kInf, 4}}, 2.5, 4};
  const HistogramInterval i = histogram_interval(nullptr, now);
  EXPECT_FALSE(i.reset);
  EXPECT_EQ(i.buckets, (std::vector<BucketDelta>{{0, 1, 3}, {1, kInf, 1}}));
  EXPECT_EQ(i.count, 4);
  EXPECT_EQ(i.sum, 2.5);
}

TEST(HistogramInterval, ACountThatWentDownIsARestart) {
  const CumulativeBuckets before{{{1, 300}, {kInf, 400}}, 250, 400};
  const CumulativeBuckets after{{{1, 2}, {kInf, 3}}, 1.5, 3};
  const HistogramInterval i = histogram_interval(&before, after);
  EXPECT_TRUE(i.reset);
  EXPECT_EQ(i.buckets, (std::vector<BucketDelta>{{0, 1, 2}, {1, kInf, 1}}));
  EXPECT_EQ(i.count, 3);
  EXPECT_EQ(i.sum, 1.5);
}

TEST(HistogramInterval, ABucketThatWentDownIsARestartEvenIfTheTotalDidNot) {
  // Restarted, and already more observations than before, but fewer of them fast.
  const CumulativeBuckets before{{{1, 10}, {kInf, 10}}, 5, 10};
  const CumulativeBuckets after{{{1, 2}, {kInf, 12}}, 30, 12};
  const HistogramInterval i = histogram_interval(&before, after);
  EXPECT_TRUE(i.reset);
  EXPECT_EQ(i.count, 12);
  EXPECT_EQ(i.buckets, (std::vector<BucketDelta>{{0, 1, 2}, {1, kInf, 10}}));
}

TEST(HistogramInterval, ChangedBucketBoundsUseTheBoundsBothHave) {
  // 0.25 appeared and 2 went away: deltas at 0.1, 0.5 and +Inf are still exact.
  const CumulativeBuckets before{{{0.1, 1}, {0.5, 4}, {2, 6}, {kInf, 7}}, 3, 7};
  const CumulativeBuckets after{{{0.1, 2}, {0.25, 5}, {0.5, 8}, {kInf, 12}}, 5, 12};
  const HistogramInterval i = histogram_interval(&before, after);
  EXPECT_FALSE(i.reset);
  EXPECT_EQ(i.buckets, (std::vector<BucketDelta>{{0, 0.1, 1}, {0.1, 0.5, 3}, {0.5, kInf, 1}}));
  EXPECT_EQ(i.count, 5);
}

}  // namespace
}  // namespace stampede::clients
