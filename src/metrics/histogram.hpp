#pragma once
// Log-linear histogram of non-negative nanosecond values (HDR-style).
// Values below 2048 are kept exactly; above, each power of two is split into 1024
// equal buckets, so any bucket is at most 1/1024 (0.098%) of its lower bound wide and
// the reported value (the bucket's midpoint, clamped to the recorded min/max) is within
// 0.05% of every value in it. Merging adds bucket counts: merging two workers'
// histograms is exactly the same as recording everything in one.
//
// Two forms hold the same buckets, and every query gives identical answers on both:
// - dense (for recording): buckets allocated one octave (8 KiB) at a time on first use,
//   so record() is an index and an add. An empty histogram costs a few bytes and a full
//   one is bounded (constant memory).
// - compact (for keeping): only the non-empty buckets, about two bytes each; compact()
//   converts. A second of latencies is typically 1-10 KB instead of 80-110 KB dense.
// Writing (record, or merging a non-empty histogram in) turns a compact histogram dense
// again; a dense histogram never pays for the compact form on its recording path.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/packed_buckets.hpp"

namespace stampede::metrics {

class Histogram {
 public:
  Histogram() = default;
  Histogram(const Histogram& other);  // keeps the form
  Histogram& operator=(const Histogram& other);
  // A moved-from histogram is empty (not merely "valid but unspecified").
  Histogram(Histogram&& other) noexcept;
  Histogram& operator=(Histogram&& other) noexcept;
  ~Histogram() = default;

  void record(std::int64_t value, std::uint64_t times = 1);  // negative values count as 0
  // `other` in either form; this histogram is dense afterwards (unless `other` is empty).
  // A compact `other` costs a pass over its non-empty buckets, not over whole octaves.
  void merge(const Histogram& other);
  void reset();

  // Keeps the same data in the compact form and frees the dense octaves. For histograms
  // that are kept but no longer written, e.g. the seconds of a run's timeline.
  void compact();
  bool is_compact() const { return !packed_.empty(); }
  // Bytes this histogram holds, itself and on the heap (what it asked the allocator for).
  std::size_t memory_bytes() const;

  std::uint64_t count() const { return count_; }
  std::int64_t min() const { return count_ == 0 ? 0 : min_; }
  std::int64_t max() const { return count_ == 0 ? 0 : max_; }
  double mean() const;       // exact (sum is kept), 0 when empty
  // Nearest-rank percentile, p in [0, 100]: the value at rank ceil(p/100 * count)
  // (rank 1 for p = 0). The target's exact truth uses the same definition.
  // p outside [0, 100] is clamped; NaN throws std::invalid_argument.
  std::int64_t percentile(double p) const;

  // Compact binary form (only non-empty buckets), stable across processes and machines,
  // identical for both forms.
  std::string serialize() const;
  // The result is in the compact form: it is what the bytes already are, and a
  // histogram received from elsewhere is usually kept or merged, not recorded into.
  static Histogram deserialize(std::string_view bytes);  // throws std::invalid_argument

 private:
  using Octaves = std::vector<std::unique_ptr<std::uint64_t[]>>;
  // The exact sum needs more than 64 bits (hours in ns times billions of samples).
  __extension__ typedef unsigned __int128 Sum;

  // The octave's buckets for writing: densifies a compact histogram, allocates on first use.
  std::uint64_t* writable_octave(int k);
  std::uint64_t* allocate_octave(int k);  // the slow path of record(), kept out of line
  void densify();
  // Add bucket counts only: the caller updates count, sum, min and max.
  void add_packed(const PackedBuckets& from, std::int64_t from_max);
  void add_dense(const Octaves& from);
  PackedBuckets pack() const;  // the dense buckets in the compact form
  void swap(Histogram& other) noexcept;

  Octaves octaves_;       // dense: grown to the highest octave used, see histogram_layout.hpp
  PackedBuckets packed_;  // compact: non-empty exactly when the histogram is compact
  std::uint64_t count_ = 0;
  Sum sum_ = 0;
  // While empty, min_ and max_ sit where any recorded value replaces them, so record()
  // updates them without first asking whether it is the first value.
  std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_ = 0;
};

}  // namespace stampede::metrics
