#pragma once
// Reads a HAR file (HTTP Archive 1.2, http://www.softwareishard.com/blog/har-12-spec/) as
// Chromium and Firefox export it, streaming: the file is fed in pieces to Boost.JSON's SAX
// parser and only one entry of `log.entries` is ever held as a DOM. WebSocket frames are read
// from Chromium's `_webSocketMessages` (type "send"/"receive", time in seconds since the epoch,
// opcode 1 text / 2 binary with base64 data), which DevTools, mitmproxy and HTTP Toolkit write.
//
// Memory is bounded by what the reader keeps, not by the file: a response body is kept only
// when it is text (HTML, JSON, plain text, forms) and at most `max_kept_body` bytes, every
// other body (scripts, images, fonts: what makes HARs big) is dropped while it streams, and
// any string longer than `max_string` is cut as it arrives. Past `max_kept_total` bytes kept
// (frames and bodies) the read stops with an error rather than growing without bound.
#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

#include "record/recording.hpp"

namespace stampede::record {

struct HarLimits {
  std::size_t max_kept_body = 1 << 20;     // a text response body kept for the converter
  std::size_t max_string = 16 << 20;       // any string of an entry (bodies, frames) beyond it is cut
  std::size_t max_kept_total = 256 << 20;  // frames and bodies kept, all entries together
  std::size_t max_entry_depth = 64;        // JSON nesting inside an entry
};

struct HarResult {
  Recording recording;
  std::string error;  // "" when the file was read
  bool ok() const { return error.empty(); }
};

// Feeds the reader piece by piece (any split), then finish().
class HarReader {
 public:
  explicit HarReader(HarLimits limits = {});
  ~HarReader();
  HarReader(const HarReader&) = delete;
  HarReader& operator=(const HarReader&) = delete;

  // False once the input is known to be bad (error() says why); further pieces are ignored.
  bool feed(std::string_view piece);
  // The recording, or the error (truncated input, not a HAR, HAR 1.1, too much kept).
  HarResult finish();

 private:
  struct Impl;
  Impl* impl_;
};

HarResult read_har(std::istream& in, const HarLimits& limits = {});
HarResult read_har_text(std::string_view text, const HarLimits& limits = {});
// "" path errors read like the others: "cannot open x.har: No such file or directory".
HarResult read_har_file(const std::string& path, const HarLimits& limits = {});

// An ISO 8601 date-time ("2024-05-01T12:00:00.123Z", "+02:00" offsets, fractional seconds) as
// milliseconds since the Unix epoch; false when it is not one.
bool parse_iso8601_ms(std::string_view text, double& epoch_ms);

}  // namespace stampede::record
