// The compact form must be invisible to readers: every query answers exactly as on the
// dense form, merges across forms equal recording everything in one, and writing brings
// a compact histogram back to life. And it must actually be small.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metrics/histogram.hpp"
#include "metrics/histogram_samples.hpp"

namespace stampede::metrics {
namespace {

using samples::Distribution;
using samples::distributions;
using samples::kMs;

Histogram compacted(Histogram h) {
  h.compact();
  return h;
}

// Every query, compared exactly: the compact form is the same data, not an estimate.
void expect_same_answers(const Histogram& got, const Histogram& want, const std::string& what) {
  EXPECT_EQ(got.count(), want.count()) << what;
  EXPECT_EQ(got.min(), want.min()) << what;
  EXPECT_EQ(got.max(), want.max()) << what;
  EXPECT_EQ(got.mean(), want.mean()) << what;
  for (const std::uint64_t p : samples::p_values_thousandths()) {
    const double pct = static_cast<double>(p) / 1000;
    ASSERT_EQ(got.percentile(pct), want.percentile(pct)) << what << " p=" << pct;
  }
  // Percentiles between the grid points, and outside [0, 100] (clamped).
  std::mt19937_64 gen(want.count());
  for (int i = 0; i < 200; ++i) {
    const double pct = std::uniform_real_distribution<double>(-1, 101)(gen);
    ASSERT_EQ(got.percentile(pct), want.percentile(pct)) << what << " p=" << pct;
  }
  EXPECT_EQ(got.serialize(), want.serialize()) << what;
}

Histogram draw(const Distribution& d, std::mt19937_64& gen, int n) {
  Histogram h;
  for (int i = 0; i < n; ++i) h.record(d.draw(gen));
  return h;
}

TEST(HistogramCompact, AnswersEveryQueryLikeTheDenseForm) {
  std::mt19937_64 gen(31);
  for (const Distribution& d : distributions()) {
    for (const int n : {1, 2, 3, 17, 1000, 30'000}) {
      const Histogram dense = draw(d, gen, n);
      const Histogram compact = compacted(dense);
      EXPECT_TRUE(compact.is_compact());
      EXPECT_FALSE(dense.is_compact());
      expect_same_answers(compact, dense, std::string(d.name) + " n=" + std::to_string(n));
    }
  }
}

TEST(HistogramCompact, HeavyBucketsAndRepeatedValues) {
  // Counts that need multi-byte varints, and long runs of adjacent buckets.
  Histogram dense;
  dense.record(0, 5);
  dense.record(2047, 300);
  dense.record(2048, 1ULL << 40);
  for (std::int64_t v = 10 * kMs; v < 11 * kMs; v += 7919) dense.record(v, 129);
  dense.record(std::numeric_limits<std::int64_t>::max(), 3);
  expect_same_answers(compacted(dense), dense, "heavy");
}

TEST(HistogramCompact, OfAnEmptyHistogramIsEmpty) {
  Histogram h;
  h.compact();
  EXPECT_FALSE(h.is_compact());  // nothing to hold in either form
  expect_same_answers(h, Histogram(), "empty");
  EXPECT_EQ(h.memory_bytes(), sizeof(Histogram));
  h.record(42);
  EXPECT_EQ(h.percentile(50), 42);
}

TEST(HistogramCompact, CompactingTwiceChangesNothing) {
  std::mt19937_64 gen(5);
  const Histogram dense = draw(distributions()[1], gen, 5000);
  Histogram h = compacted(dense);
  const std::size_t bytes = h.memory_bytes();
  h.compact();
  EXPECT_EQ(h.memory_bytes(), bytes);
  expect_same_answers(h, dense, "twice");
}

// Receiver and giver in every combination of forms, including the receiver merging
// itself: always the same as one histogram that saw every value.
TEST(HistogramCompact, MergesAcrossFormsEqualRecordingEverythingInOne) {
  std::mt19937_64 gen(77);
  for (const Distribution& d : distributions()) {
    Histogram all;
    Histogram parts[3];
    for (int i = 0; i < 20'000; ++i) {
      const std::int64_t v = d.draw(gen);
      all.record(v);
      parts[gen() % 3].record(v);
    }
    for (int forms = 0; forms < 8; ++forms) {  // bit i: part i compact
      Histogram merged;
      for (int i = 0; i < 3; ++i) {
        const Histogram part = (forms >> i & 1) ? compacted(parts[i]) : parts[i];
        if (i == 0) {
          merged = part;  // the receiver starts in part 0's form
        } else {
          merged.merge(part);
          EXPECT_FALSE(merged.is_compact());  // a write: dense again
        }
      }
      expect_same_answers(merged, all, std::string(d.name) + " forms=" + std::to_string(forms));
    }
    // Into an empty histogram, as a fresh Summary does.
    Histogram fresh;
    for (const Histogram& part : parts) fresh.merge(compacted(part));
    expect_same_answers(fresh, all, std::string(d.name) + " into empty");
  }
}

TEST(HistogramCompact, MergingFromACompactHistogramLeavesItAsItWas) {
  std::mt19937_64 gen(8);
  const Histogram source = compacted(draw(distributions()[2], gen, 3000));
  const std::string before = source.serialize();
  Histogram into = draw(distributions()[0], gen, 100);
  into.merge(source);
  EXPECT_TRUE(source.is_compact());
  EXPECT_EQ(source.serialize(), before);
}

TEST(HistogramCompact, MergingACompactHistogramWithItselfDoublesIt) {
  std::mt19937_64 gen(9);
  const Histogram dense = draw(distributions()[1], gen, 4000);
  Histogram twice = dense;
  twice.merge(dense);
  Histogram h = compacted(dense);
  h.merge(h);
  expect_same_answers(h, twice, "self");
}

TEST(HistogramCompact, MergingAnEmptyHistogramKeepsTheForm) {
  Histogram h;
  h.record(5 * kMs);
  h.compact();
  h.merge(Histogram());
  EXPECT_TRUE(h.is_compact());
  EXPECT_EQ(h.count(), 1u);
}

TEST(HistogramCompact, RecordingAfterCompactKeepsEverything) {
  std::mt19937_64 gen(13);
  for (const Distribution& d : distributions()) {
    Histogram all;
    Histogram h;
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t v = d.draw(gen);
      all.record(v);
      h.record(v);
    }
    h.compact();
    // New extremes, new octaves, existing buckets, and several counts at once.
    const std::vector<std::pair<std::int64_t, std::uint64_t>> more = {
        {d.draw(gen), 1}, {0, 2}, {std::numeric_limits<std::int64_t>::max() / 3, 1}, {all.max(), 4},
        {all.percentile(50), 1}};
    for (const auto& [v, times] : more) {
      all.record(v, times);
      h.record(v, times);
      EXPECT_FALSE(h.is_compact()) << d.name;  // from the first write on
    }
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t v = d.draw(gen);
      all.record(v);
      h.record(v);
    }
    expect_same_answers(h, all, d.name);
  }
}

TEST(HistogramCompact, RecordingNothingKeepsTheForm) {
  Histogram h;
  h.record(7);
  h.compact();
  h.record(9, 0);
  EXPECT_TRUE(h.is_compact());
  EXPECT_EQ(h.count(), 1u);
}

TEST(HistogramCompact, CopiesMovesAndResetOfACompactHistogram) {
  std::mt19937_64 gen(21);
  const Histogram dense = draw(distributions()[1], gen, 2000);
  Histogram a = compacted(dense);
  Histogram b(a);
  EXPECT_TRUE(b.is_compact());
  expect_same_answers(b, dense, "copy");
  b.record(1);  // the copy is independent
  EXPECT_EQ(a.count(), dense.count());
  Histogram c;
  c = a;
  expect_same_answers(c, dense, "copy-assigned");

  Histogram d(std::move(a));
  expect_same_answers(d, dense, "moved");
  EXPECT_FALSE(a.is_compact());  // NOLINT(bugprone-use-after-move): documented as empty
  EXPECT_EQ(a.count(), 0u);      // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.memory_bytes(), sizeof(Histogram));  // NOLINT(bugprone-use-after-move)
  c = std::move(d);
  expect_same_answers(c, dense, "move-assigned");

  c.reset();
  EXPECT_FALSE(c.is_compact());
  expect_same_answers(c, Histogram(), "reset");
  EXPECT_EQ(c.memory_bytes(), sizeof(Histogram));
}

TEST(HistogramCompact, DeserializeGivesTheCompactForm) {
  std::mt19937_64 gen(23);
  for (const Distribution& d : distributions()) {
    const Histogram dense = draw(d, gen, 3000);
    const Histogram back = Histogram::deserialize(dense.serialize());
    EXPECT_TRUE(back.is_compact()) << d.name;
    expect_same_answers(back, dense, d.name);
    Histogram sum = dense;
    sum.merge(back);
    Histogram twice = dense;
    twice.merge(dense);
    expect_same_answers(sum, twice, std::string(d.name) + " merged");
  }
}

// A second of a realistic service: latencies spread lognormally over a few decades.
TEST(HistogramCompact, ARealisticSecondOf10000SamplesTakesUnder16KB) {
  for (const double median_ms : {1.0, 20.0, 250.0}) {
    for (const double sigma : {0.5, 1.0, 1.5}) {
      std::mt19937_64 gen(static_cast<std::uint64_t>(median_ms * 100 + sigma * 10));
      std::lognormal_distribution<double> latency(std::log(median_ms * kMs), sigma);
      Histogram h;
      for (int i = 0; i < 10'000; ++i) h.record(static_cast<std::int64_t>(latency(gen)));
      const std::size_t dense_bytes = h.memory_bytes();
      h.compact();
      EXPECT_LT(h.memory_bytes(), 16u * 1024) << median_ms << "ms sigma " << sigma;
      // The dense form keeps whole 8 KiB octaves: at least three here.
      EXPECT_GT(dense_bytes, 3u * 8192) << median_ms << "ms sigma " << sigma;
      EXPECT_LT(h.memory_bytes() * 3, dense_bytes) << median_ms << "ms sigma " << sigma;
    }
  }
}

TEST(HistogramCompact, MemoryBytesCountsTheOctavesInUse) {
  Histogram h;
  EXPECT_EQ(h.memory_bytes(), sizeof(Histogram));
  h.record(100);  // octave 0: 2048 exact buckets
  EXPECT_GE(h.memory_bytes(), sizeof(Histogram) + 2048 * sizeof(std::uint64_t));
  const std::size_t one = h.memory_bytes();
  h.record(10 * kMs);  // one more octave of 1024 buckets, and a longer octave table
  EXPECT_GE(h.memory_bytes(), one + 1024 * sizeof(std::uint64_t));
  h.compact();
  EXPECT_LT(h.memory_bytes(), sizeof(Histogram) + 16);  // two buckets, a few bytes each
}

// Every bucket of every octave in use: the worst case for the compact form is still
// far below the dense one.
TEST(HistogramCompact, EveryBucketInUse) {
  Histogram dense;
  for (std::int64_t v = 0; v < 2048; ++v) dense.record(v);
  for (int k = 1; k < 53; ++k) {
    for (std::int64_t slot = 0; slot < 1024; ++slot) dense.record((1024 + slot) << k);
  }
  const Histogram compact = compacted(dense);
  expect_same_answers(compact, dense, "every bucket");
  EXPECT_LT(compact.memory_bytes() * 3, dense.memory_bytes());
}

}  // namespace
}  // namespace stampede::metrics
