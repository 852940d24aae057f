// Feeds arbitrary bytes, as a server's, to the HTTP/2 client codec (libnghttp2 under our
// per-stream bookkeeping) after three requests were submitted: whole, and cut at a position
// taken from the first byte, with our output taken after every piece (as the connection
// does). Whatever the bytes: no crash, no read out of bounds, and every request ends exactly
// once (end_all ends what the bytes left open).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proto/http2_client_codec.hpp"

namespace {

using namespace stampede::proto;

struct Counting : Http2ClientCodec::Listener {
  std::array<int, 3> ends{};
  void on_request_sent(void*) override {}
  void on_stream_end(void* request, Http2StreamEnd, std::uint32_t, std::string_view, Http2Response& response) override {
    ++ends[static_cast<std::size_t>(*static_cast<int*>(request))];
    response.body.clear();
  }
  void on_goaway(std::int32_t, std::uint32_t, std::string_view) override {}
};

void run(std::string_view input, std::size_t cut) {
  Counting listener;
  Http2ClientLimits limits;
  limits.max_body_bytes = 1024 * 1024;  // a decompression bomb stays cheap
  limits.max_header_bytes = 8 * 1024;
  Http2ClientCodec codec(listener, limits);
  static const std::string body(70000, 'b');  // past the server's default window
  std::array<int, 3> tags{0, 1, 2};
  const std::array<Http2Field, 4> get{{{":method", "GET"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}};
  const std::array<Http2Field, 4> post{{{":method", "POST"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/p"}}};
  const std::array<Http2Field, 4> head{{{":method", "HEAD"}, {":scheme", "http"}, {":authority", "a"}, {":path", "/"}}};
  std::string error;
  codec.submit(get, {}, false, &tags[0], error);
  codec.submit(post, body, true, &tags[1], error);
  codec.submit(head, {}, false, &tags[2], error);
  std::string out;
  codec.take_output(out);
  for (std::string_view piece : {input.substr(0, cut), input.substr(cut)}) {
    if (piece.empty()) continue;
    if (!codec.feed(piece)) break;
    out.clear();
    codec.take_output(out);
  }
  codec.end_all("the fuzzer is done");
  for (int n : listener.ends) {
    if (n != 1) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  run(input, input.size());
  if (!input.empty()) run(input, static_cast<std::size_t>(static_cast<unsigned char>(input[0])) % input.size());
  return 0;
}
