// Feeds arbitrary bytes, as a client's, to the HTTP/2 server codec the built-in target uses:
// whole and cut in two, every complete request answered at once (with a body past the
// client's default window, half of them HEAD-style), our output taken after every piece.
// Whatever the bytes: no crash, no read out of bounds, and no response is sent on a stream
// the codec did not report as a request.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "proto/http2_server_codec.hpp"

namespace {

using namespace stampede::proto;

struct Answering : Http2ServerCodec::Listener {
  Http2ServerCodec* codec = nullptr;
  std::set<std::int32_t> requested;
  const std::string body = std::string(70000, 'r');
  void on_request(std::int32_t stream, HttpRequest& request) override {
    requested.insert(stream);
    const Http2Field field{"content-type", "text/plain"};
    codec->respond(stream, 200, {&field, 1}, body, request.method == "HEAD");
  }
  void on_response_sent(std::int32_t stream) override {
    if (requested.count(stream) == 0) std::abort();
  }
  void on_stream_closed(std::int32_t) override {}
};

void run(std::string_view input, std::size_t cut) {
  Answering listener;
  Http2ServerLimits limits;
  limits.max_body_bytes = 64 * 1024;
  Http2ServerCodec codec(listener, limits);
  listener.codec = &codec;
  std::string out;
  codec.take_output(out);
  const std::string preface(kHttp2Preface);
  for (std::string_view piece : {std::string_view(preface), input.substr(0, cut), input.substr(cut)}) {
    if (piece.empty()) continue;
    if (!codec.feed(piece)) break;
    out.clear();
    codec.take_output(out);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  run(input, input.size());
  if (!input.empty()) run(input, static_cast<std::size_t>(static_cast<unsigned char>(input[0])) % input.size());
  return 0;
}
