// The wire form of a Histogram: what MPI ranks ship and reports may store.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/histogram.hpp"
#include "metrics/histogram_layout.hpp"
#include "metrics/varint.hpp"

namespace stampede::metrics {

// Serialised form, all integers unsigned LEB128 varints:
//   'S' 'H' version(=1) count
//   if count > 0: min max sum(128-bit) entries, then `entries` times: gap bucket_count
// where gap is the distance from the previous non-empty bucket minus one (the first
// entry's gap is its global index), so indexes are strictly increasing by construction.
// Varints must be in their shortest form: a histogram has exactly one encoding.
// The gap/count pairs are byte for byte the compact form (PackedBuckets).
namespace {

constexpr char kMagic0 = 'S';
constexpr char kMagic1 = 'H';
constexpr char kVersion = 1;

}  // namespace

std::string Histogram::serialize() const {
  std::string out;
  out.push_back(kMagic0);
  out.push_back(kMagic1);
  out.push_back(kVersion);
  varint::put(out, count_);
  if (count_ == 0) return out;
  varint::put(out, static_cast<std::uint64_t>(min_));
  varint::put(out, static_cast<std::uint64_t>(max_));
  varint::put(out, sum_);
  const auto write_buckets = [&out](const PackedBuckets& buckets) {
    varint::put(out, std::uint64_t{buckets.entries()});
    out += buckets.bytes();
  };
  if (is_compact()) {
    write_buckets(packed_);
  } else {
    write_buckets(pack());
  }
  return out;
}

Histogram Histogram::deserialize(std::string_view bytes) {
  using namespace layout;
  varint::Reader in(bytes, "histogram");
  if (in.byte() != kMagic0 || in.byte() != kMagic1) in.fail("not a histogram");
  if (in.byte() != kVersion) in.fail("unknown version");

  Histogram h;
  const auto count = in.get<std::uint64_t>();
  if (count == 0) {
    if (!in.at_end()) in.fail("trailing bytes");
    return h;
  }
  const auto min = in.get<std::uint64_t>();
  const auto max = in.get<std::uint64_t>();
  const auto sum = in.get<Sum>();
  const auto entries = in.get<std::uint64_t>();
  if (max > static_cast<std::uint64_t>(INT64_MAX)) in.fail("max out of range");
  if (min > max) in.fail("min above max");
  if (count == 1 && min != max) in.fail("one value but min differs from max");
  if (entries == 0 || entries > kBucketCount) in.fail("bad number of buckets");

  // Bounds the sum must lie within, given where the values are.
  Sum lowest = 0;
  Sum highest = 0;
  std::uint64_t total = 0;
  std::uint64_t index = 0;
  std::uint32_t first = 0;
  PackedBuckets::Builder buckets;
  for (std::uint64_t e = 0; e < entries; ++e) {
    const auto gap = in.get<std::uint64_t>();
    const auto n = in.get<std::uint64_t>();
    index = (e == 0 ? 0 : index + 1);
    if (gap >= kBucketCount || index + gap >= kBucketCount) in.fail("bucket out of range");
    index += gap;
    if (n == 0) in.fail("empty bucket listed");
    if (n > count - total) in.fail("bucket counts exceed the total");
    total += n;
    const Bucket b = from_global(static_cast<std::uint32_t>(index));
    if (e == 0) first = static_cast<std::uint32_t>(index);
    buckets.add(static_cast<std::uint32_t>(index), n);
    lowest += static_cast<Sum>(lower_bound_of(b)) * n;
    highest += static_cast<Sum>(lower_bound_of(b) + width_of(b) - 1) * n;
  }
  if (!in.at_end()) in.fail("trailing bytes");
  if (total != count) in.fail("bucket counts do not add up to the total");
  if (global_index(bucket_of(min)) != first) in.fail("min is not in the first bucket");
  if (global_index(bucket_of(max)) != index) in.fail("max is not in the last bucket");
  lowest = std::max(lowest, static_cast<Sum>(min) * count);
  highest = std::min(highest, static_cast<Sum>(max) * count);
  if (sum < lowest || sum > highest) in.fail("sum inconsistent with the values");

  h.packed_ = buckets.finish();
  h.count_ = count;
  h.sum_ = sum;
  h.min_ = static_cast<std::int64_t>(min);
  h.max_ = static_cast<std::int64_t>(max);
  return h;
}

}  // namespace stampede::metrics
