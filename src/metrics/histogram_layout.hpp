#pragma once
// Where a value goes in a Histogram (internal to the metrics layer). Shared by the dense
// form, the packed form and the wire format, which must agree bucket for bucket.
//
// Octave 0 holds values [0, 2048) exactly; octave k >= 1 holds [1024 << k, 2048 << k) in
// 1024 buckets of width 1 << k. Buckets are also numbered globally (packed form, wire
// format): octave 0 is [0, 2048), octave k >= 1 is [2048 + (k - 1) * 1024, 2048 + k * 1024).
#include <bit>
#include <cstdint>

namespace stampede::metrics::layout {

inline constexpr int kSubBuckets = 1024;
inline constexpr int kExactBuckets = 2 * kSubBuckets;  // octave 0
inline constexpr int kOctaveCount = 53;                 // octaves 0..52 cover every int64 >= 0
inline constexpr std::uint32_t kBucketCount = kExactBuckets + (kOctaveCount - 1) * kSubBuckets;

constexpr int octave_size(int k) { return k == 0 ? kExactBuckets : kSubBuckets; }

struct Bucket {
  int octave;
  std::uint32_t slot;  // index inside the octave
};

constexpr Bucket bucket_of(std::uint64_t v) {
  if (v < static_cast<std::uint64_t>(kExactBuckets)) return {0, static_cast<std::uint32_t>(v)};
  const int k = std::bit_width(v) - 11;  // v in [1024 << k, 2048 << k)
  return {k, static_cast<std::uint32_t>((v >> k) - kSubBuckets)};
}

constexpr std::uint32_t global_index(Bucket b) {
  return b.octave == 0 ? b.slot
                       : kExactBuckets + static_cast<std::uint32_t>(b.octave - 1) * kSubBuckets + b.slot;
}

constexpr Bucket from_global(std::uint32_t index) {
  if (index < static_cast<std::uint32_t>(kExactBuckets)) return {0, index};
  const std::uint32_t rest = index - kExactBuckets;
  return {static_cast<int>(rest / kSubBuckets) + 1, rest % kSubBuckets};
}

constexpr std::uint64_t lower_bound_of(Bucket b) {
  if (b.octave == 0) return b.slot;
  return (static_cast<std::uint64_t>(kSubBuckets) + b.slot) << b.octave;
}

constexpr std::uint64_t width_of(Bucket b) { return b.octave == 0 ? 1 : std::uint64_t{1} << b.octave; }

// The value reported for a bucket: its midpoint, which is within half a bucket width
// (at most 1/2048 of the value) of everything the bucket holds.
constexpr std::uint64_t midpoint_of(Bucket b) { return lower_bound_of(b) + width_of(b) / 2; }

}  // namespace stampede::metrics::layout
