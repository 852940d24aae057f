#include "metrics/histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "metrics/histogram_samples.hpp"

namespace stampede::metrics {
namespace {

__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

using samples::Distribution;
using samples::distributions;
using samples::kHour;
using samples::kMs;
using samples::p_values_thousandths;

// The truth the histogram approximates: nearest rank on the sorted raw samples, with p
// given in thousandths of a percent so the rank is computed in exact integer arithmetic.
std::int64_t exact_percentile(const std::vector<std::int64_t>& sorted, std::uint64_t p_thousandths) {
  const std::uint64_t n = sorted.size();
  std::uint64_t rank = (p_thousandths * n + 100'000 - 1) / 100'000;  // ceil(p/100 * n)
  rank = std::clamp<std::uint64_t>(rank, 1, n);
  return sorted[rank - 1];
}

TEST(Histogram, EmptyReportsZeros) {
  const Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.percentile(50), 0);
}

TEST(Histogram, ValuesBelow2048AreExact) {
  Histogram h;
  std::vector<std::int64_t> values;
  for (std::int64_t v = 0; v < 2048; v += 3) {
    h.record(v);
    values.push_back(v);
  }
  for (const std::uint64_t p : p_values_thousandths()) {
    EXPECT_EQ(h.percentile(static_cast<double>(p) / 1000), exact_percentile(values, p)) << p;
  }
}

TEST(Histogram, NearestRankDefinition) {
  Histogram h;
  for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);
  EXPECT_EQ(h.percentile(0), 1);
  EXPECT_EQ(h.percentile(0.1), 1);     // rank ceil(1.0) = 1, though 0.1 is not exact in binary
  EXPECT_EQ(h.percentile(0.15), 2);    // rank ceil(1.5)
  EXPECT_EQ(h.percentile(50), 500);
  EXPECT_EQ(h.percentile(99.9), 999);  // rank 999, not 1000
  EXPECT_EQ(h.percentile(100), 1000);
  EXPECT_EQ(h.percentile(-5), 1);      // clamped
  EXPECT_EQ(h.percentile(250), 1000);  // clamped
  EXPECT_THROW((void)h.percentile(std::numeric_limits<double>::quiet_NaN()), std::invalid_argument);
}

TEST(Histogram, PercentilesWithin0Point05PercentOfExactOnManyDistributions) {
  std::mt19937_64 gen(20240601);
  for (const Distribution& d : distributions()) {
    Histogram h;
    std::vector<std::int64_t> values;
    for (int i = 0; i < 50'000; ++i) {
      const std::int64_t v = d.draw(gen);
      h.record(v);
      values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    for (const std::uint64_t p : p_values_thousandths()) {
      const std::int64_t truth = exact_percentile(values, p);
      const std::int64_t got = h.percentile(static_cast<double>(p) / 1000);
      // The design bound is half a bucket, 1/2048 of the value (0.049%), well inside
      // the 0.1% promise. Compared in integers: no rounding in the check itself.
      const Int128 error = got > truth ? got - truth : truth - got;
      EXPECT_LE(error * 2048, static_cast<Int128>(truth))
          << d.name << " p=" << static_cast<double>(p) / 1000 << " truth=" << truth << " got=" << got;
    }
    EXPECT_EQ(h.min(), values.front()) << d.name;
    EXPECT_EQ(h.max(), values.back()) << d.name;
    Int128 sum = 0;
    for (const std::int64_t v : values) sum += v;
    EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(static_cast<long double>(sum) / values.size())) << d.name;
  }
}

TEST(Histogram, ExtremeValues) {
  Histogram h;
  h.record(std::numeric_limits<std::int64_t>::max());
  h.record(-42);  // counts as 0
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(h.percentile(0), 0);
  EXPECT_EQ(h.percentile(100), std::numeric_limits<std::int64_t>::max());
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(std::numeric_limits<std::int64_t>::max()) / 2);
}

TEST(Histogram, RecordTimesCountsEachTime) {
  Histogram many;
  Histogram one_by_one;
  many.record(5 * kMs, 1000);
  many.record(7 * kMs, 0);  // nothing
  for (int i = 0; i < 1000; ++i) one_by_one.record(5 * kMs);
  EXPECT_EQ(many.count(), 1000u);
  EXPECT_EQ(many.max(), 5 * kMs);
  EXPECT_EQ(many.serialize(), one_by_one.serialize());
}

TEST(Histogram, MeanIsExactBeyond64BitSums) {
  Histogram h;
  // 3 hours in ns times 10 billion samples: far beyond 2^64 in the sum.
  h.record(3 * kHour, 10'000'000'000ULL);
  h.record(3 * kHour + 2, 10'000'000'000ULL);
  EXPECT_DOUBLE_EQ(h.mean(), static_cast<double>(3 * kHour + 1));
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 gen(7);
  for (const Distribution& d : distributions()) {
    Histogram all;
    Histogram parts[3];
    for (int i = 0; i < 20'000; ++i) {
      const std::int64_t v = d.draw(gen);
      all.record(v);
      parts[gen() % 3].record(v);
    }
    Histogram merged;
    for (const Histogram& part : parts) merged.merge(part);
    EXPECT_EQ(merged.serialize(), all.serialize()) << d.name;
    EXPECT_EQ(merged.count(), all.count());
    EXPECT_EQ(merged.min(), all.min());
    EXPECT_EQ(merged.max(), all.max());
    EXPECT_EQ(merged.mean(), all.mean());
    for (const std::uint64_t p : p_values_thousandths()) {
      const double pct = static_cast<double>(p) / 1000;
      EXPECT_EQ(merged.percentile(pct), all.percentile(pct)) << d.name << " p=" << pct;
    }
  }
}

TEST(Histogram, MergeWithEmptyAndWithItself) {
  Histogram h;
  h.record(100);
  h.record(5000);
  Histogram empty;
  h.merge(empty);
  EXPECT_EQ(h.count(), 2u);
  empty.merge(h);
  EXPECT_EQ(empty.serialize(), h.serialize());
  h.merge(h);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.percentile(50), 100);
  EXPECT_EQ(h.min(), 100);
}

TEST(Histogram, CopiesAreIndependentAndMovedFromIsEmpty) {
  Histogram a;
  a.record(3 * kMs);
  Histogram b(a);
  b.record(9 * kMs);
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(b.count(), 2u);
  a = b;
  EXPECT_EQ(a.serialize(), b.serialize());

  Histogram c(std::move(a));
  EXPECT_EQ(c.count(), 2u);
  EXPECT_EQ(a.count(), 0u);  // NOLINT(bugprone-use-after-move): documented as empty
  a.record(1);               // and usable
  EXPECT_EQ(a.percentile(100), 1);
  b = std::move(c);
  EXPECT_EQ(c.count(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.serialize(), Histogram().serialize());
}

TEST(Histogram, ResetEmpties) {
  Histogram h;
  h.record(123456789);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.serialize(), Histogram().serialize());
  h.record(7);
  EXPECT_EQ(h.min(), 7);
}

TEST(Histogram, SerializeRoundTrips) {
  std::mt19937_64 gen(11);
  for (const Distribution& d : distributions()) {
    Histogram h;
    for (int i = 0; i < 10'000; ++i) h.record(d.draw(gen));
    const std::string bytes = h.serialize();
    const Histogram back = Histogram::deserialize(bytes);
    EXPECT_EQ(back.serialize(), bytes) << d.name;
    EXPECT_EQ(back.count(), h.count());
    EXPECT_EQ(back.min(), h.min());
    EXPECT_EQ(back.max(), h.max());
    EXPECT_EQ(back.mean(), h.mean());
    for (const std::uint64_t p : p_values_thousandths()) {
      const double pct = static_cast<double>(p) / 1000;
      EXPECT_EQ(back.percentile(pct), h.percentile(pct));
    }
  }
  const Histogram empty = Histogram::deserialize(Histogram().serialize());
  EXPECT_EQ(empty.count(), 0u);
}

TEST(Histogram, SerializedFormIsCompact) {
  Histogram h;
  for (int i = 0; i < 1'000'000; ++i) h.record(10 * kMs);
  EXPECT_LT(h.serialize().size(), 40u);  // one bucket, whatever the count
}

// Builders for hand-made inputs, following the format documented in histogram.cpp.
void put_varint(std::string& out, UInt128 v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(static_cast<std::uint8_t>(v) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

std::string message(std::uint64_t count, std::uint64_t min, std::uint64_t max, UInt128 sum,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& gaps_and_counts) {
  std::string out = "SH\x01";
  put_varint(out, count);
  put_varint(out, min);
  put_varint(out, max);
  put_varint(out, sum);
  put_varint(out, gaps_and_counts.size());
  for (const auto& [gap, n] : gaps_and_counts) {
    put_varint(out, gap);
    put_varint(out, n);
  }
  return out;
}

TEST(Histogram, HandMadeMessageMatchesTheDocumentedFormat) {
  Histogram h;
  h.record(10, 2);
  h.record(12);
  // buckets 10 (x2) and 12 (x1): gaps 10 and 1
  EXPECT_EQ(h.serialize(), message(3, 10, 12, 32, {{10, 2}, {1, 1}}));
  EXPECT_NO_THROW((void)Histogram::deserialize(message(3, 10, 12, 32, {{10, 2}, {1, 1}})));
}

TEST(Histogram, DeserializeRejectsInconsistentInput) {
  const auto rejects = [](const std::string& bytes) {
    EXPECT_THROW((void)Histogram::deserialize(bytes), std::invalid_argument);
  };
  rejects("");
  rejects("XX\x01");
  rejects(std::string("SH\x02\x00", 4));                   // unknown version
  rejects(std::string("SH\x01\x00\x00", 5));               // trailing byte after empty
  rejects(message(4, 10, 12, 32, {{10, 2}, {1, 1}}));      // counts add up to 3, not 4
  rejects(message(2, 10, 12, 32, {{10, 2}, {1, 1}}));      // counts exceed the total
  rejects(message(3, 12, 10, 32, {{10, 2}, {1, 1}}));      // min above max
  rejects(message(3, 9, 12, 32, {{10, 2}, {1, 1}}));       // min outside the first bucket
  rejects(message(3, 10, 13, 32, {{10, 2}, {1, 1}}));      // max outside the last bucket
  rejects(message(3, 10, 12, 31, {{10, 2}, {1, 1}}));      // sum too small for the values
  rejects(message(3, 10, 12, 35, {{10, 2}, {1, 1}}));      // sum too large
  rejects(message(3, 10, 12, 32, {{10, 2}, {1, 0}, {0, 1}}));  // an empty bucket listed
  rejects(message(1, 5, 5, 5, {{60'000, 1}}));             // bucket beyond the last
  rejects(message(1, 5, 6, 5, {{5, 1}}));                  // one value, two extremes
  rejects(message(1, 5, 5, 5, {}));                        // no buckets
  rejects(message(1, 0, std::uint64_t{1} << 63, 0, {{0, 1}}));  // max beyond int64
  std::string too_long = "SH\x01";
  too_long.append(11, '\xff');
  rejects(too_long);  // a varint longer than 64 bits
  rejects(message(3, 10, 12, 32, {{10, 2}, {1, 1}}) + "x");  // trailing byte
}

TEST(Histogram, DeserializeRejectsEveryTruncation) {
  Histogram h;
  for (std::int64_t v = 1; v < 100'000'000; v = v * 3 + 1) h.record(v);
  const std::string bytes = h.serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW((void)Histogram::deserialize(bytes.substr(0, n)), std::invalid_argument) << n;
  }
}

// Random bytes after a valid header must either be rejected or describe a histogram
// consistent enough to serialise back to exactly the same bytes.
TEST(Histogram, DeserializeGarbageThrowsOrRoundTrips) {
  std::mt19937_64 gen(99);
  Histogram sample;
  for (std::int64_t v = 1; v < 1'000'000; v = v * 2 + 7) sample.record(v);
  const std::string valid = sample.serialize();
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    std::string bytes;
    if (i % 2 == 0) {
      bytes = "SH\x01";
      const std::size_t n = gen() % 40;
      for (std::size_t j = 0; j < n; ++j) bytes.push_back(static_cast<char>(gen()));
    } else {
      bytes = valid;  // flip a byte of a valid message
      bytes[3 + gen() % (bytes.size() - 3)] ^= static_cast<char>(1 + gen() % 255);
    }
    try {
      const Histogram h = Histogram::deserialize(bytes);
      EXPECT_EQ(h.serialize(), bytes);
      ++accepted;
    } catch (const std::invalid_argument&) {
    }
  }
  EXPECT_LT(accepted, 2'000);  // a loose sum is accepted; most damage is not
}

}  // namespace
}  // namespace stampede::metrics
