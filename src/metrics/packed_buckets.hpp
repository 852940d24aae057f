#pragma once
// The non-empty buckets of a Histogram, read-only and packed tight (internal to the
// metrics layer). A dense histogram spends 8 bytes on every bucket of every octave it
// touched, 8 KiB an octave, even when most of them are zero; a second of latencies touches
// ten or so octaves but fills only a few thousand buckets. Here each non-empty bucket is
// two varints, the gap to the previous non-empty bucket's global index minus one and the
// count: about two bytes a bucket. The byte string is exactly the bucket section of the
// serialised form, so serialising a packed histogram is a copy.
//
// Read in increasing index order with a Cursor: that is all percentiles, merging and
// serialising need, and it keeps the format free of any index structure.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "metrics/varint.hpp"

namespace stampede::metrics {

class PackedBuckets {
 public:
  // Appends buckets in strictly increasing index order, each with a count above zero.
  class Builder {
   public:
    void add(std::uint32_t index, std::uint64_t count) {
      varint::put(bytes_, index - next_index_);
      varint::put(bytes_, count);
      next_index_ = index + 1;
      ++entries_;
    }
    // Copies into an allocation of exactly the right size: packed buckets are kept for
    // the whole run, so growth slack would be kept with them.
    PackedBuckets finish() const;

   private:
    std::string bytes_;
    std::uint32_t next_index_ = 0;  // the previous index plus one
    std::uint32_t entries_ = 0;
  };

  class Cursor {
   public:
    explicit Cursor(const PackedBuckets& packed)
        : at_(packed.bytes_.get()), end_(packed.bytes_.get() + packed.size_) {}
    // The next bucket, false after the last.
    bool next(std::uint32_t& index, std::uint64_t& count) {
      if (at_ == end_) return false;
      index = next_index_ + static_cast<std::uint32_t>(varint::get_trusted(at_));
      count = varint::get_trusted(at_);
      next_index_ = index + 1;
      return true;
    }

   private:
    const std::uint8_t* at_;
    const std::uint8_t* end_;
    std::uint32_t next_index_ = 0;
  };

  PackedBuckets() = default;
  PackedBuckets(const PackedBuckets& other);
  PackedBuckets& operator=(const PackedBuckets& other);
  PackedBuckets(PackedBuckets&& other) noexcept;
  PackedBuckets& operator=(PackedBuckets&& other) noexcept;
  ~PackedBuckets() = default;

  bool empty() const { return entries_ == 0; }
  std::uint32_t entries() const { return entries_; }
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(bytes_.get()), size_};
  }
  std::size_t memory_bytes() const { return size_; }  // heap bytes held

 private:
  std::unique_ptr<std::uint8_t[]> bytes_;
  std::uint32_t size_ = 0;
  std::uint32_t entries_ = 0;
};

}  // namespace stampede::metrics
