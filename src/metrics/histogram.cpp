#include "metrics/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace stampede::metrics {

// Buckets are numbered globally for serialisation: octave 0 is [0, 2048), octave k >= 1
// is [2048 + (k - 1) * 1024, 2048 + k * 1024).
namespace {

constexpr int kSubBuckets = 1024;
constexpr int kExactBuckets = 2 * kSubBuckets;  // octave 0
constexpr int kOctaveCount = 53;                 // octaves 0..52 cover every int64 >= 0
constexpr std::uint32_t kBucketCount = kExactBuckets + (kOctaveCount - 1) * kSubBuckets;

constexpr int octave_size(int k) { return k == 0 ? kExactBuckets : kSubBuckets; }

struct Bucket {
  int octave;
  std::uint32_t slot;  // index inside the octave
};

Bucket bucket_of(std::uint64_t v) {
  if (v < static_cast<std::uint64_t>(kExactBuckets)) return {0, static_cast<std::uint32_t>(v)};
  const int k = std::bit_width(v) - 11;  // v in [1024 << k, 2048 << k)
  return {k, static_cast<std::uint32_t>((v >> k) - kSubBuckets)};
}

std::uint32_t global_index(Bucket b) {
  return b.octave == 0 ? b.slot
                       : kExactBuckets + static_cast<std::uint32_t>(b.octave - 1) * kSubBuckets + b.slot;
}

Bucket from_global(std::uint32_t index) {
  if (index < static_cast<std::uint32_t>(kExactBuckets)) return {0, index};
  const std::uint32_t rest = index - kExactBuckets;
  return {static_cast<int>(rest / kSubBuckets) + 1, rest % kSubBuckets};
}

std::uint64_t lower_bound_of(Bucket b) {
  if (b.octave == 0) return b.slot;
  return (static_cast<std::uint64_t>(kSubBuckets) + b.slot) << b.octave;
}

std::uint64_t width_of(Bucket b) { return b.octave == 0 ? 1 : std::uint64_t{1} << b.octave; }

// The value reported for a bucket: its midpoint, which is within half a bucket width
// (at most 1/2048 of the value) of everything the bucket holds.
std::uint64_t midpoint_of(Bucket b) { return lower_bound_of(b) + width_of(b) / 2; }

// Nearest rank, 1-based. p * count / 100 is computed in long double and snapped to an
// integer when it is one up to rounding: p = 0.1 is not exactly representable, and
// ceil(100.0000000000000055) must not turn the 100th value into the 101st.
std::uint64_t nearest_rank(double p, std::uint64_t count) {
  if (std::isnan(p)) throw std::invalid_argument("percentile of NaN");
  p = std::clamp(p, 0.0, 100.0);
  long double x = static_cast<long double>(p) * static_cast<long double>(count) / 100.0L;
  const long double nearest = std::round(x);
  if (std::fabs(x - nearest) <= x * 1e-12L) x = nearest;
  const auto rank = static_cast<std::uint64_t>(std::ceil(x));
  return std::clamp<std::uint64_t>(rank, 1, count);
}

// Serialised form, all integers unsigned LEB128 varints:
//   'S' 'H' version(=1) count
//   if count > 0: min max sum(128-bit) entries, then `entries` times: gap bucket_count
// where gap is the distance from the previous non-empty bucket minus one (the first
// entry's gap is its global index), so indexes are strictly increasing by construction.
// Varints must be in their shortest form: a histogram has exactly one encoding.
constexpr char kMagic0 = 'S';
constexpr char kMagic1 = 'H';
constexpr char kVersion = 1;

template <typename U>
void put_varint(std::string& out, U v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(static_cast<std::uint8_t>(v) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) fail("truncated");
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }

  template <typename U>
  U varint() {
    constexpr int kBits = sizeof(U) * 8;
    U v = 0;
    for (int shift = 0;; shift += 7) {
      const std::uint8_t b = byte();
      const U part = b & 0x7f;
      // Bits that would fall off the top mean the number does not fit.
      if (shift >= kBits || (shift > 0 && (part >> (kBits - shift)) != 0)) fail("varint too long");
      v |= part << shift;
      if ((b & 0x80) == 0) {
        // One encoding per number, so one byte string per histogram.
        if (b == 0 && shift > 0) fail("varint not in its shortest form");
        return v;
      }
    }
  }

  bool at_end() const { return pos_ == bytes_.size(); }

  [[noreturn]] static void fail(const char* what) {
    throw std::invalid_argument(std::string("histogram: ") + what);
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

}  // namespace

Histogram::Histogram(const Histogram& other)
    : count_(other.count_), sum_(other.sum_), min_(other.min_), max_(other.max_) {
  octaves_.resize(other.octaves_.size());
  for (std::size_t k = 0; k < other.octaves_.size(); ++k) {
    if (!other.octaves_[k]) continue;
    const int n = octave_size(static_cast<int>(k));
    octaves_[k] = std::make_unique<std::uint64_t[]>(n);
    std::copy_n(other.octaves_[k].get(), n, octaves_[k].get());
  }
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this != &other) {
    Histogram copy(other);
    swap(copy);
  }
  return *this;
}

Histogram::Histogram(Histogram&& other) noexcept { swap(other); }

Histogram& Histogram::operator=(Histogram&& other) noexcept {
  if (this != &other) {
    Histogram taken(std::move(other));
    swap(taken);
  }
  return *this;
}

void Histogram::swap(Histogram& other) noexcept {
  std::swap(octaves_, other.octaves_);
  std::swap(count_, other.count_);
  std::swap(sum_, other.sum_);
  std::swap(min_, other.min_);
  std::swap(max_, other.max_);
}

std::uint64_t* Histogram::octave(int k) {
  static_assert(kOctaves == kOctaveCount && (1 << kSubBits) == kSubBuckets,
                "the header's layout constants and this file's must agree");
  const auto index = static_cast<std::size_t>(k);
  if (index >= octaves_.size()) octaves_.resize(index + 1);
  auto& octave = octaves_[index];
  if (!octave) octave = std::make_unique<std::uint64_t[]>(octave_size(k));  // zeroed
  return octave.get();
}

void Histogram::record(std::int64_t value, std::uint64_t times) {
  if (times == 0) return;
  if (value < 0) value = 0;
  const auto v = static_cast<std::uint64_t>(value);
  const Bucket b = bucket_of(v);
  octave(b.octave)[b.slot] += times;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  count_ += times;
  sum_ += static_cast<Sum>(v) * times;
}

void Histogram::merge(const Histogram& other) {
  if (other.count_ == 0) return;
  if (&other == this) {
    const Histogram copy(other);
    merge(copy);
    return;
  }
  for (std::size_t k = 0; k < other.octaves_.size(); ++k) {
    const std::uint64_t* from = other.octaves_[k].get();
    if (from == nullptr) continue;
    std::uint64_t* to = octave(static_cast<int>(k));
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) to[i] += from[i];
  }
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  sum_ += other.sum_;
}

void Histogram::reset() {
  Histogram empty;
  swap(empty);
}

std::int64_t Histogram::min() const { return count_ == 0 ? 0 : min_; }
std::int64_t Histogram::max() const { return count_ == 0 ? 0 : max_; }

double Histogram::mean() const {
  if (count_ == 0) return 0;
  return static_cast<double>(static_cast<long double>(sum_) / static_cast<long double>(count_));
}

std::int64_t Histogram::percentile(double p) const {
  if (count_ == 0) {
    if (std::isnan(p)) throw std::invalid_argument("percentile of NaN");
    return 0;
  }
  const std::uint64_t rank = nearest_rank(p, count_);
  // The extremes are known exactly; no need to estimate them from a bucket.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  std::uint64_t seen = 0;
  for (std::size_t k = 0; k < octaves_.size(); ++k) {
    const std::uint64_t* buckets = octaves_[k].get();
    if (buckets == nullptr) continue;
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) {
      seen += buckets[i];
      if (seen >= rank) {
        const auto mid = static_cast<std::int64_t>(midpoint_of({static_cast<int>(k), static_cast<std::uint32_t>(i)}));
        return std::clamp(mid, min_, max_);
      }
    }
  }
  return max_;  // unreachable while the bucket counts add up to count_
}

std::string Histogram::serialize() const {
  std::string out;
  out.push_back(kMagic0);
  out.push_back(kMagic1);
  out.push_back(kVersion);
  put_varint(out, count_);
  if (count_ == 0) return out;
  put_varint(out, static_cast<std::uint64_t>(min_));
  put_varint(out, static_cast<std::uint64_t>(max_));
  put_varint(out, sum_);

  std::string entries;
  std::uint64_t entry_count = 0;
  std::int64_t previous = -1;
  for (std::size_t k = 0; k < octaves_.size(); ++k) {
    const std::uint64_t* buckets = octaves_[k].get();
    if (buckets == nullptr) continue;
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) {
      if (buckets[i] == 0) continue;
      const auto index = static_cast<std::int64_t>(
          global_index({static_cast<int>(k), static_cast<std::uint32_t>(i)}));
      put_varint(entries, static_cast<std::uint64_t>(index - previous - 1));
      put_varint(entries, buckets[i]);
      previous = index;
      ++entry_count;
    }
  }
  put_varint(out, entry_count);
  out += entries;
  return out;
}

Histogram Histogram::deserialize(std::string_view bytes) {
  Reader in(bytes);
  if (in.byte() != kMagic0 || in.byte() != kMagic1) Reader::fail("not a histogram");
  if (in.byte() != kVersion) Reader::fail("unknown version");

  Histogram h;
  const auto count = in.varint<std::uint64_t>();
  if (count == 0) {
    if (!in.at_end()) Reader::fail("trailing bytes");
    return h;
  }
  const auto min = in.varint<std::uint64_t>();
  const auto max = in.varint<std::uint64_t>();
  const auto sum = in.varint<Sum>();
  const auto entries = in.varint<std::uint64_t>();
  if (max > static_cast<std::uint64_t>(INT64_MAX)) Reader::fail("max out of range");
  if (min > max) Reader::fail("min above max");
  if (count == 1 && min != max) Reader::fail("one value but min differs from max");
  if (entries == 0 || entries > kBucketCount) Reader::fail("bad number of buckets");

  // Bounds the sum must lie within, given where the values are.
  Sum lowest = 0;
  Sum highest = 0;
  std::uint64_t total = 0;
  std::uint64_t index = 0;
  std::uint32_t first = 0;
  for (std::uint64_t e = 0; e < entries; ++e) {
    const auto gap = in.varint<std::uint64_t>();
    const auto n = in.varint<std::uint64_t>();
    index = (e == 0 ? 0 : index + 1);
    if (gap >= kBucketCount || index + gap >= kBucketCount) Reader::fail("bucket out of range");
    index += gap;
    if (n == 0) Reader::fail("empty bucket listed");
    if (n > count - total) Reader::fail("bucket counts exceed the total");
    total += n;
    const Bucket b = from_global(static_cast<std::uint32_t>(index));
    if (e == 0) first = static_cast<std::uint32_t>(index);
    h.octave(b.octave)[b.slot] = n;
    lowest += static_cast<Sum>(lower_bound_of(b)) * n;
    highest += static_cast<Sum>(lower_bound_of(b) + width_of(b) - 1) * n;
  }
  if (!in.at_end()) Reader::fail("trailing bytes");
  if (total != count) Reader::fail("bucket counts do not add up to the total");
  if (global_index(bucket_of(min)) != first) Reader::fail("min is not in the first bucket");
  if (global_index(bucket_of(max)) != index) Reader::fail("max is not in the last bucket");
  lowest = std::max(lowest, static_cast<Sum>(min) * count);
  highest = std::min(highest, static_cast<Sum>(max) * count);
  if (sum < lowest || sum > highest) Reader::fail("sum inconsistent with the values");

  h.count_ = count;
  h.sum_ = sum;
  h.min_ = static_cast<std::int64_t>(min);
  h.max_ = static_cast<std::int64_t>(max);
  return h;
}

}  // namespace stampede::metrics
