// Inflates arbitrary bytes as a sequence of permessage-deflate messages under a small limit:
// never a crash, never more output than the limit, a failed message leaves the output as it
// was. Then the same pieces, as plain messages, go through a Deflater and an Inflater sharing
// the negotiated parameters and must come back unchanged.
//
// Input: byte 0 chooses the parameters (context takeover, window bits), byte 1 how many
// messages the rest is cut into.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/permessage_deflate.hpp"

namespace {

namespace ws = stampede::proto::ws;

constexpr std::size_t kLimit = 64 * 1024;

void check(bool condition) {
  if (!condition) std::abort();
}

std::vector<std::string_view> cut(std::string_view bytes, std::size_t count) {
  std::vector<std::string_view> pieces;
  const std::size_t size = bytes.size() / count + 1;
  for (std::size_t i = 0; i < bytes.size(); i += size) pieces.push_back(bytes.substr(i, size));
  if (pieces.empty()) pieces.emplace_back();
  return pieces;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  ws::DeflateParams params;
  params.server_no_context_takeover = (data[0] & 1) != 0;
  params.client_no_context_takeover = (data[0] & 2) != 0;
  params.server_max_window_bits = 8 + ((data[0] >> 2) & 7);
  params.client_max_window_bits = 8 + ((data[0] >> 5) & 7);
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 2, size - 2);
  const auto pieces = cut(bytes, data[1] % 8 + 1);

  // Arbitrary input as compressed messages.
  ws::Inflater inflater(params, ws::Role::Client, kLimit);
  for (const auto piece : pieces) {
    std::string out = "x";
    std::string why;
    const auto result = inflater.decompress(piece, out, why);
    if (result == ws::Inflater::Result::Ok) {
      check(out.size() <= 1 + kLimit && out[0] == 'x');
    } else {
      check(out == "x" && !why.empty());
    }
  }

  // The same pieces as plain messages, one way (client to server) and the other.
  for (const ws::Role sender : {ws::Role::Client, ws::Role::Server}) {
    const ws::Role receiver = sender == ws::Role::Client ? ws::Role::Server : ws::Role::Client;
    ws::Deflater deflater(params, sender);
    ws::Inflater peer(params, receiver, kLimit);
    for (const auto piece : pieces) {
      std::string wire;
      deflater.compress(piece, wire);
      std::string back;
      std::string why;
      check(peer.decompress(wire, back, why) == ws::Inflater::Result::Ok);
      check(back == piece);
    }
  }
  return 0;
}
