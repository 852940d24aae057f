// libFuzzer target for the HTTP/1.1 request parser. The input is parsed twice, whole and in
// pieces whose sizes come from the input itself; both must yield the same requests, every
// feed must consume at most what it was given, and an unfinished parser must take it all.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http_request_parser.hpp"

namespace {

using stampede::proto::HttpRequestLimits;
using stampede::proto::HttpRequestParser;

void check(bool condition) {
  if (!condition) std::abort();
}

// One line per complete request (method, target, version, headers, body) and a final line
// for the error, if any: enough to compare two parses.
std::string parse_all(std::string_view wire, std::size_t piece_seed) {
  HttpRequestLimits limits;
  limits.max_head_bytes = 4096;  // small limits reach the limit paths with short inputs
  limits.max_headers = 16;
  limits.max_body_bytes = 4096;
  limits.max_chunk_line_bytes = 64;
  HttpRequestParser parser(limits);
  std::string summary;
  std::size_t piece_index = 0;
  while (!wire.empty()) {
    const std::size_t size = piece_seed == 0 ? wire.size() : 1 + (piece_seed * ++piece_index * 2654435761u) % 23;
    auto piece = wire.substr(0, size);
    wire.remove_prefix(piece.size());
    while (!piece.empty()) {
      const auto used = parser.feed(piece);
      check(used <= piece.size());
      piece.remove_prefix(used);
      if (parser.done()) {
        const auto& r = parser.request();
        summary += r.method + ' ' + r.target + ' ' + std::to_string(r.version_minor);
        for (const auto& h : r.headers) summary += ' ' + h.name + '=' + h.value;
        summary += " body=" + r.body + (r.keep_alive() ? " keep\n" : " close\n");
        check(parser.head_complete());
        parser.reset();
      } else if (parser.failed()) {
        check(parser.error_status() >= 400 && !parser.error().empty());
        return summary + "error " + std::to_string(parser.error_status()) + '\n';
      } else {
        check(piece.empty());
      }
    }
  }
  return summary;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view wire(reinterpret_cast<const char*>(data), size);
  const auto whole = parse_all(wire, 0);
  const auto pieces = parse_all(wire, size == 0 ? 1 : data[0] | 1u);
  check(whole == pieces);
  return 0;
}
