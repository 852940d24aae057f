#include "metrics/packed_buckets.hpp"

#include <algorithm>
#include <utility>

namespace stampede::metrics {

PackedBuckets PackedBuckets::Builder::finish() const {
  PackedBuckets packed;
  if (entries_ == 0) return packed;
  // make_unique_for_overwrite: the bytes are written right below, zeroing them is waste.
  packed.bytes_ = std::make_unique_for_overwrite<std::uint8_t[]>(bytes_.size());
  std::copy(bytes_.begin(), bytes_.end(), packed.bytes_.get());
  packed.size_ = static_cast<std::uint32_t>(bytes_.size());
  packed.entries_ = entries_;
  return packed;
}

PackedBuckets::PackedBuckets(const PackedBuckets& other)
    : size_(other.size_), entries_(other.entries_) {
  if (size_ == 0) return;
  bytes_ = std::make_unique_for_overwrite<std::uint8_t[]>(size_);
  std::copy_n(other.bytes_.get(), size_, bytes_.get());
}

PackedBuckets& PackedBuckets::operator=(const PackedBuckets& other) {
  if (this != &other) *this = PackedBuckets(other);
  return *this;
}

// A moved-from PackedBuckets is empty, so a moved-from Histogram is too.
PackedBuckets::PackedBuckets(PackedBuckets&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      size_(std::exchange(other.size_, 0)),
      entries_(std::exchange(other.entries_, 0)) {}

PackedBuckets& PackedBuckets::operator=(PackedBuckets&& other) noexcept {
  bytes_ = std::move(other.bytes_);
  size_ = std::exchange(other.size_, 0);
  entries_ = std::exchange(other.entries_, 0);
  return *this;
}

}  // namespace stampede::metrics
