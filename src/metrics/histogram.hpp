#pragma once
// Log-linear histogram of non-negative nanosecond values (HDR-style).
// Values below 2048 are kept exactly; above, each power of two is split into 1024
// equal buckets, so any bucket is at most 1/1024 (0.098%) of its lower bound wide and
// the reported value (the bucket's midpoint, clamped to the recorded min/max) is within
// 0.05% of every value in it. Buckets are allocated one octave at a time on first use,
// so an empty histogram costs a few bytes and a full one is bounded (constant memory).
// Merging adds bucket counts: merging two workers' histograms is exactly the same as
// recording everything in one.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::metrics {

class Histogram {
 public:
  Histogram() = default;
  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  // A moved-from histogram is empty (not merely "valid but unspecified").
  Histogram(Histogram&& other) noexcept;
  Histogram& operator=(Histogram&& other) noexcept;

  void record(std::int64_t value, std::uint64_t times = 1);  // negative values count as 0
  void merge(const Histogram& other);
  void reset();

  std::uint64_t count() const { return count_; }
  std::int64_t min() const;  // 0 when empty
  std::int64_t max() const;  // 0 when empty
  double mean() const;       // exact (sum is kept), 0 when empty
  // Nearest-rank percentile, p in [0, 100]: the value at rank ceil(p/100 * count)
  // (rank 1 for p = 0). The target's exact truth uses the same definition.
  // p outside [0, 100] is clamped; NaN throws std::invalid_argument.
  std::int64_t percentile(double p) const;

  // Compact binary form (only non-empty buckets), stable across processes and machines.
  std::string serialize() const;
  static Histogram deserialize(std::string_view bytes);  // throws std::invalid_argument

 private:
  // Octave 0 holds values [0, 2048) exactly; octave k >= 1 holds [1024 << k, 2048 << k)
  // in 1024 buckets of width 1 << k. The largest int64 falls in octave 52.
  static constexpr int kSubBits = 10;
  static constexpr int kOctaves = 64 - 1 - kSubBits;
  // The exact sum needs more than 64 bits (hours in ns times billions of samples).
  __extension__ typedef unsigned __int128 Sum;

  std::uint64_t* octave(int k);  // allocates on first use
  void swap(Histogram& other) noexcept;

  std::vector<std::unique_ptr<std::uint64_t[]>> octaves_;  // grown to the highest octave used
  std::uint64_t count_ = 0;
  Sum sum_ = 0;
  std::int64_t min_ = 0;
  std::int64_t max_ = 0;
};

}  // namespace stampede::metrics
