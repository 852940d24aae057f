// Feeds arbitrary bytes to the HTTP response parser whole, cut in two at a position taken
// from the first byte, and in small pieces; all three must end the same way. So must a
// parser that took back the previous input's headers and body (HttpResponseParser::reuse,
// as the HTTP client does after each response). With the sanitizers this also checks that
// garbage never crashes it or reads out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http_response_parser.hpp"

namespace {

using stampede::proto::HttpParserLimits;
using stampede::proto::HttpResponseParser;

// Small limits so that the fuzzer reaches them, and a gzip bomb stays cheap.
HttpParserLimits fuzz_limits() {
  HttpParserLimits limits;
  limits.max_head_bytes = 8 * 1024;
  limits.max_body_bytes = 1024 * 1024;
  return limits;
}

struct Result {
  HttpResponseParser::State state;
  std::string error;
  int status = 0;
  int version_minor = 0;
  std::string reason;
  std::vector<std::string> headers;
  bool keep_alive = false;
  std::string body;
  std::size_t consumed = 0;

  bool operator==(const Result&) const = default;
};

Result snapshot(HttpResponseParser& p, std::size_t consumed) {
  Result r;
  r.state = p.state();
  r.error = p.error();
  r.status = p.head().status;
  r.version_minor = p.head().version_minor;
  r.reason = p.head().reason;
  for (const auto& h : p.head().headers) r.headers.push_back(h.name + ": " + h.value);
  r.keep_alive = p.keep_alive();
  // How far a failed parse got depends on where the bytes were cut; only its verdict counts.
  if (!p.failed()) {
    r.body = p.body();
    r.consumed = consumed;
  }
  return r;
}

// Feeds the pieces like a connection does (stop once the parser stops taking bytes), then
// takes a snapshot before and after the peer closes.
std::pair<Result, Result> run(HttpResponseParser& p, const std::vector<std::string_view>& pieces, bool head_request) {
  p.reset(head_request);
  std::size_t consumed = 0;
  for (const auto piece : pieces) {
    const std::size_t used = p.feed(piece);
    if (used > piece.size()) std::abort();
    consumed += used;
    if (used < piece.size()) {
      if (!p.done() && !p.failed()) std::abort();  // it may only stop at the end or on an error
      break;
    }
  }
  Result before = snapshot(p, consumed);
  p.finish_eof();
  if (p.state() == HttpResponseParser::State::Head || p.state() == HttpResponseParser::State::Body) std::abort();
  if (p.failed() && p.error().empty()) std::abort();
  return {before, snapshot(p, consumed)};
}

std::pair<Result, Result> run_fresh(const std::vector<std::string_view>& pieces, bool head_request) {
  HttpResponseParser p(fuzz_limits());
  return run(p, pieces, head_request);
}

void check(std::string_view bytes, std::size_t cut, std::size_t drip, bool head_request) {
  const auto whole = run_fresh({bytes}, head_request);
  const auto split = run_fresh({bytes.substr(0, cut), bytes.substr(cut)}, head_request);
  std::vector<std::string_view> drops;
  for (std::size_t i = 0; i < bytes.size(); i += drip) drops.push_back(bytes.substr(i, drip));
  const auto dripped = run_fresh(drops, head_request);
  // Carries the strings of whatever the inputs before this one left in it.
  static HttpResponseParser reused(fuzz_limits());
  const auto again = run(reused, {bytes}, head_request);
  std::vector<stampede::proto::HttpHeader> headers = reused.take_headers();
  std::string body = std::move(reused.body());
  reused.reuse(std::move(headers), std::move(body));
  if (!(whole == split) || !(whole == dripped) || !(whole == again)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::size_t cut = bytes.size() * data[0] / 255;
  const std::size_t drip = data[0] % 13 + 1;
  check(bytes, cut, drip, false);
  check(bytes, cut, drip, true);
  return 0;
}
