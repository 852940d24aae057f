#include "proto/body_inflater.hpp"

#include <algorithm>
#include <limits>

#include "proto/http_text.hpp"

namespace stampede::proto {

using http_text::iequals;

std::string too_large_body_message(std::size_t limit) {
  return "response body is larger than the limit of " + std::to_string(limit) + " bytes";
}

std::string_view decodable_content_coding(std::string_view header_value, int& codings) {
  std::string_view coding_found;
  http_text::for_each_list_element(header_value, [&](std::string_view coding) {
    if (iequals(coding, "identity")) return;
    ++codings;
    if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
      coding_found = "gzip";
    } else if (iequals(coding, "deflate")) {
      coding_found = "deflate";
    } else {
      coding_found = {};
    }
  });
  return codings == 1 ? coding_found : std::string_view();
}

bool BodyInflater::write(std::string_view in, std::string& out, std::size_t limit, std::string& error) {
  auto p = reinterpret_cast<const unsigned char*>(in.data());
  std::size_t n = in.size();
  while (n > 0) {
    switch (phase_) {
      case Phase::Sniffing: {
        sniff_[sniffed_++] = *p++;
        --n;
        if (sniffed_ < 2) break;
        gzip_ = sniff_[0] == 0x1f && sniff_[1] == 0x8b;
        if (!open(gzip_ || looks_like_zlib(sniff_[0], sniff_[1]), error)) return false;
        phase_ = Phase::Inflating;
        if (!inflate_some(sniff_, 2, out, limit, error)) return false;
        break;
      }
      case Phase::Inflating:
        if (!inflate_some(p, n, out, limit, error)) return false;
        p += n - zs_.avail_in;  // what is left follows the end of the compressed stream
        n = zs_.avail_in;
        break;
      case Phase::BetweenMembers:
        // A gzip file may hold several members back to back; anything else after the end
        // of the stream is padding some servers add, and browsers ignore it.
        if (*p == 0x1f) {
          inflateReset(&zs_);
          phase_ = Phase::Inflating;
        } else {
          phase_ = Phase::Discarding;
        }
        break;
      case Phase::Discarding:
        return true;
      case Phase::Failed:
        return false;
    }
  }
  return true;
}

bool BodyInflater::finish(std::string& error) {
  bool ok = true;
  if ((phase_ == Phase::Sniffing && sniffed_ > 0) || phase_ == Phase::Inflating) {
    error = std::string(coding_) + " body ended before the end of its compressed data";
    ok = false;
  } else if (phase_ == Phase::Failed) {
    ok = false;
  }
  release();
  return ok;
}

bool BodyInflater::looks_like_zlib(unsigned char cmf, unsigned char flg) {
  return (cmf & 0x0f) == Z_DEFLATED && (cmf >> 4) <= 7 && ((cmf << 8) | flg) % 31 == 0;
}

bool BodyInflater::open(bool wrapped, std::string& error) {
  // 15 + 32: any window size, zlib or gzip header detected by zlib; -15: raw deflate.
  const int window_bits = wrapped ? 15 + 32 : -15;
  release();
  zs_ = z_stream{};
  if (inflateInit2(&zs_, window_bits) != Z_OK) {
    phase_ = Phase::Failed;
    error = "out of memory while starting to decode a " + std::string(coding_) + " body";
    return false;
  }
  zs_open_ = true;
  return true;
}

// Inflates [p, p+n) into `out`. It stops early only at the end of the compressed stream,
// and then leaves zs_.avail_in counting the bytes after that end.
bool BodyInflater::inflate_some(const unsigned char* p, std::size_t n, std::string& out, std::size_t limit,
                                std::string& error) {
  constexpr std::size_t kMinRoom = 16 * 1024;
  constexpr std::size_t kMaxRoom = 1024 * 1024;
  constexpr std::size_t kMaxStep = std::numeric_limits<uInt>::max() / 2;
  zs_.next_in = const_cast<Bytef*>(p);
  zs_.avail_in = static_cast<uInt>(std::min(n, kMaxStep));
  std::size_t pending = n - zs_.avail_in;
  for (;;) {
    const std::size_t old = out.size();
    // Room proportional to the input, so each call zero-fills only about what it will use.
    std::size_t room = std::clamp<std::size_t>(std::size_t{zs_.avail_in} * 4, kMinRoom, kMaxRoom);
    const std::size_t headroom = limit - old;  // old <= limit always holds here
    if (headroom < room) room = headroom + 1;  // one byte more than allowed detects overflow
    out.resize(old + room);
    zs_.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    zs_.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    out.resize(old + room - zs_.avail_out);
    if (out.size() > limit) return fail(too_large_body_message(limit), error);
    if (rc == Z_STREAM_END) {
      phase_ = gzip_ ? Phase::BetweenMembers : Phase::Discarding;
      zs_.avail_in += static_cast<uInt>(pending);  // report everything after the end as unused
      return true;
    }
    if (rc == Z_NEED_DICT) return fail(std::string(coding_) + " body needs a preset dictionary", error);
    if (rc == Z_DATA_ERROR) {
      return fail("could not decode the " + std::string(coding_) + " body: " +
                      (zs_.msg != nullptr ? zs_.msg : "corrupt data"),
                  error);
    }
    if (rc == Z_MEM_ERROR) return fail("out of memory while decoding a " + std::string(coding_) + " body", error);
    if (zs_.avail_out != 0) {  // inflate stopped for want of input, not of room
      if (zs_.avail_in != 0) return fail("could not decode the " + std::string(coding_) + " body", error);
      if (pending == 0) return true;
      const std::size_t step = std::min(pending, kMaxStep);
      zs_.avail_in = static_cast<uInt>(step);
      pending -= step;
    }
  }
}

bool BodyInflater::fail(std::string message, std::string& error) {
  phase_ = Phase::Failed;
  error = std::move(message);
  release();
  return false;
}

}  // namespace stampede::proto
