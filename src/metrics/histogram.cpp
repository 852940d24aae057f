#include "metrics/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "metrics/histogram_layout.hpp"

namespace stampede::metrics {

using layout::Bucket;
using layout::bucket_of;
using layout::from_global;
using layout::octave_size;

namespace {

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

}  // namespace

Histogram::Histogram(const Histogram& other)
    : packed_(other.packed_), count_(other.count_), sum_(other.sum_), min_(other.min_), max_(other.max_) {
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
  std::swap(packed_, other.packed_);
  std::swap(count_, other.count_);
  std::swap(sum_, other.sum_);
  std::swap(min_, other.min_);
  std::swap(max_, other.max_);
}

// The recording path: one bounds check and one null check, both almost never taken.
// A compact histogram keeps no octaves, so its first write always takes the slow path,
// and the dense path needs no test of the form.
std::uint64_t* Histogram::writable_octave(int k) {
  const auto index = static_cast<std::size_t>(k);
  std::uint64_t* buckets = index < octaves_.size() ? octaves_[index].get() : nullptr;
  if (buckets == nullptr) [[unlikely]] buckets = allocate_octave(k);
  return buckets;
}

[[gnu::noinline]] std::uint64_t* Histogram::allocate_octave(int k) {
  static_assert(layout::kOctaveCount == 53 && layout::kSubBuckets == 1024,
                "the serialised form's bucket numbering depends on the layout");
  if (is_compact()) densify();  // may already have brought octave k in
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
  writable_octave(b.octave)[b.slot] += times;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
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
  if (is_compact()) densify();
  if (other.is_compact()) {
    add_packed(other.packed_, other.max_);
  } else {
    add_dense(other.octaves_);
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

void Histogram::add_packed(const PackedBuckets& from, std::int64_t from_max) {
  // Grow the octave table once, to the octave of the largest value, not once per octave.
  const auto top = static_cast<std::size_t>(bucket_of(static_cast<std::uint64_t>(from_max)).octave);
  if (octaves_.size() <= top) octaves_.resize(top + 1);
  PackedBuckets::Cursor cursor(from);
  std::uint32_t index = 0;
  std::uint64_t n = 0;
  int current = -1;
  std::uint64_t* buckets = nullptr;
  // Indexes increase, so the octave changes a handful of times per histogram.
  while (cursor.next(index, n)) {
    const Bucket b = from_global(index);
    if (b.octave != current) {
      buckets = writable_octave(b.octave);
      current = b.octave;
    }
    buckets[b.slot] += n;
  }
}

void Histogram::add_dense(const Octaves& from) {
  for (std::size_t k = 0; k < from.size(); ++k) {
    const std::uint64_t* source = from[k].get();
    if (source == nullptr) continue;
    std::uint64_t* to = writable_octave(static_cast<int>(k));
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) to[i] += source[i];
  }
}

void Histogram::densify() {
  // Taken out first: with packed_ empty the histogram is dense again, and writing the
  // buckets back below goes through writable_octave without coming back here.
  const PackedBuckets packed = std::move(packed_);
  add_packed(packed, max_);
}

PackedBuckets Histogram::pack() const {
  PackedBuckets::Builder builder;
  for (std::size_t k = 0; k < octaves_.size(); ++k) {
    const std::uint64_t* buckets = octaves_[k].get();
    if (buckets == nullptr) continue;
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) {
      if (buckets[i] != 0) {
        builder.add(layout::global_index({static_cast<int>(k), static_cast<std::uint32_t>(i)}), buckets[i]);
      }
    }
  }
  return builder.finish();
}

void Histogram::compact() {
  if (is_compact()) return;
  if (count_ != 0) packed_ = pack();
  Octaves().swap(octaves_);  // frees the table itself too, which clear() would keep
}

std::size_t Histogram::memory_bytes() const {
  std::size_t bytes = sizeof(Histogram) + octaves_.capacity() * sizeof(Octaves::value_type) +
                      packed_.memory_bytes();
  for (std::size_t k = 0; k < octaves_.size(); ++k) {
    if (octaves_[k]) bytes += static_cast<std::size_t>(octave_size(static_cast<int>(k))) * sizeof(std::uint64_t);
  }
  return bytes;
}

void Histogram::reset() {
  Histogram empty;
  swap(empty);
}

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
  const auto value_of = [this](Bucket b) {
    return std::clamp(static_cast<std::int64_t>(layout::midpoint_of(b)), min_, max_);
  };
  std::uint64_t seen = 0;
  if (is_compact()) {
    PackedBuckets::Cursor cursor(packed_);
    std::uint32_t index = 0;
    std::uint64_t n = 0;
    while (cursor.next(index, n)) {
      seen += n;
      if (seen >= rank) return value_of(from_global(index));
    }
    return max_;  // unreachable while the bucket counts add up to count_
  }
  for (std::size_t k = 0; k < octaves_.size(); ++k) {
    const std::uint64_t* buckets = octaves_[k].get();
    if (buckets == nullptr) continue;
    const int n = octave_size(static_cast<int>(k));
    for (int i = 0; i < n; ++i) {
      seen += buckets[i];
      if (seen >= rank) return value_of({static_cast<int>(k), static_cast<std::uint32_t>(i)});
    }
  }
  return max_;  // unreachable while the bucket counts add up to count_
}

}  // namespace stampede::metrics
