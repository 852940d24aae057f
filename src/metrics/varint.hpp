#pragma once
// Unsigned LEB128 varints (internal to the metrics layer): 7 bits a byte, low bits first,
// the high bit set on every byte but the last. Small numbers, which bucket gaps and
// counts mostly are, take one byte.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stampede::metrics::varint {

template <typename U>
void put(std::string& out, U v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(static_cast<std::uint8_t>(v) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// Decodes bytes this process encoded itself (no bounds or overflow checks: the caller
// knows they are well formed). Kept inline: it is the inner loop of every query on a
// packed histogram.
inline std::uint64_t get_trusted(const std::uint8_t*& at) {
  std::uint8_t b = *at++;
  if (b < 0x80) return b;
  std::uint64_t v = b & 0x7f;
  for (int shift = 7;; shift += 7) {
    b = *at++;
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

// Decodes untrusted bytes: throws std::invalid_argument("<what>: ...") on truncation, on
// a number that does not fit, and on a number not in its shortest form (so every value
// has exactly one encoding).
class Reader {
 public:
  Reader(std::string_view bytes, const char* what) : bytes_(bytes), what_(what) {}

  std::uint8_t byte() {
    if (pos_ >= bytes_.size()) fail("truncated");
    return static_cast<std::uint8_t>(bytes_[pos_++]);
  }

  template <typename U>
  U get() {
    constexpr int kBits = sizeof(U) * 8;
    U v = 0;
    for (int shift = 0;; shift += 7) {
      const std::uint8_t b = byte();
      const U part = b & 0x7f;
      // Bits that would fall off the top mean the number does not fit.
      if (shift >= kBits || (shift > 0 && (part >> (kBits - shift)) != 0)) fail("varint too long");
      v |= part << shift;
      if ((b & 0x80) == 0) {
        if (b == 0 && shift > 0) fail("varint not in its shortest form");
        return v;
      }
    }
  }

  bool at_end() const { return pos_ == bytes_.size(); }

  [[noreturn]] void fail(const char* problem) const {
    throw std::invalid_argument(std::string(what_) + ": " + problem);
  }

 private:
  std::string_view bytes_;
  const char* what_;
  std::size_t pos_ = 0;
};

}  // namespace stampede::metrics::varint
