#pragma once
// Content-coding decoding of an HTTP response body (gzip, zlib-wrapped or raw deflate),
// shared by the HTTP/1.1 response parser and the HTTP/2 client codec: bytes of the body as
// they arrive in, the decoded body appended to a string. Pure: no sockets, no clocks.
#include <zlib.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace stampede::proto {

// "response body is larger than the limit of N bytes": the same words from every decoder.
std::string too_large_body_message(std::size_t limit);

// The coding a Content-Encoding header value asks us to decode: "gzip" (also "x-gzip") or
// "deflate" when it names exactly one of them ("identity" ignored), otherwise empty: an
// unknown coding (br, zstd) or stacked ones are handed over as received, like curl without
// --compressed. `codings` counts the non-identity codings named so far, across several
// Content-Encoding headers.
std::string_view decodable_content_coding(std::string_view header_value, int& codings);

// Decodes a gzip, zlib or raw deflate body straight into the body string.
//
// Why sniff the first two bytes instead of retrying on error: "Content-Encoding: deflate" is
// meant to be zlib-wrapped, but some servers send raw deflate. Deciding from the header
// bytes is deterministic however the body is split, and needs no copy of the input.
class BodyInflater {
 public:
  BodyInflater() = default;
  BodyInflater(const BodyInflater&) = delete;
  BodyInflater& operator=(const BodyInflater&) = delete;
  ~BodyInflater() { release(); }

  // `coding` is a string literal ("gzip" or "deflate"), named in error messages.
  void start(std::string_view coding) {
    coding_ = coding;
    phase_ = Phase::Sniffing;
    sniffed_ = 0;
    gzip_ = false;
  }

  // Appends the decoded form of `in` to `out`. False (with `error`) on corrupt data or when
  // the decoded body would exceed `limit`.
  bool write(std::string_view in, std::string& out, std::size_t limit, std::string& error);

  // The body ended: a stream that stopped half-way is an error; an empty body is fine.
  bool finish(std::string& error);

  // zlib's state and window are ~40 KB: freed after each response so an idle keep-alive
  // connection holds none (the cost, two allocations per compressed response, is small next
  // to inflating it). Inline: the HTTP/1.1 parser calls it for every response.
  void release() {
    if (zs_open_) inflateEnd(&zs_);
    zs_open_ = false;
  }

 private:
  enum class Phase { Sniffing, Inflating, BetweenMembers, Discarding, Failed };

  static bool looks_like_zlib(unsigned char cmf, unsigned char flg);
  bool open(bool wrapped, std::string& error);
  bool inflate_some(const unsigned char* p, std::size_t n, std::string& out, std::size_t limit, std::string& error);
  bool fail(std::string message, std::string& error);

  z_stream zs_{};
  bool zs_open_ = false;
  Phase phase_ = Phase::Sniffing;
  unsigned char sniff_[2] = {0, 0};
  std::size_t sniffed_ = 0;
  bool gzip_ = false;
  std::string_view coding_ = "gzip";  // always a string literal
};

}  // namespace stampede::proto
