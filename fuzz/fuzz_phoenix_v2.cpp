// Arbitrary bytes as a V2 (vsn=2.0.0) frame: as a text frame and as a binary frame, each read
// as sent by a client and by a server. What decodes must carry valid JSON text (text frames),
// encode without throwing (a decoded message is always encodable), and decode again to the
// same fields; decoding into a reused message must give what a fresh one gets.
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"

namespace phx = stampede::proto::phx;

namespace {

// The decoder allows this much nesting; the check must not be stricter.
bool is_json(std::string_view text, bool object_only) {
  boost::json::parse_options options;
  options.max_depth = 256;
  boost::json::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec, {}, options);
  return !ec && (!object_only || v.is_object());
}

bool same_fields(const phx::Message& a, const phx::Message& b) {
  return a.join_ref == b.join_ref && a.ref == b.ref && a.topic == b.topic && a.event == b.event &&
         a.payload == b.payload && a.binary == b.binary && a.status == b.status &&
         phx::reply_response(a) == phx::reply_response(b);
}

void check(std::string_view frame, bool binary, phx::Direction direction) {
  static phx::Message reused;  // carries whatever the previous input left in it
  const bool decoded = phx::decode_into(frame, binary, phx::Serializer::V2, direction, reused).empty();
  phx::Decoded fresh = phx::decode(frame, binary, phx::Serializer::V2, direction);
  if (decoded != std::holds_alternative<phx::Message>(fresh)) std::abort();
  if (!decoded) return;
  const phx::Message& m = std::get<phx::Message>(fresh);
  if (!same_fields(m, reused) || m.binary != binary) std::abort();
  if (!binary) {
    if (!is_json(m.payload, direction == phx::Direction::ServerToClient)) std::abort();
    if (!phx::reply_response(m).empty() && !is_json(phx::reply_response(m), false)) std::abort();
  }

  const phx::Frame encoded = phx::encode(m, phx::Serializer::V2, direction);
  if (encoded.binary_frame != binary) std::abort();
  if (direction == phx::Direction::ClientToServer && binary && encoded.data != frame) std::abort();  // one layout
  phx::Decoded again = phx::decode(encoded.data, encoded.binary_frame, phx::Serializer::V2, direction);
  if (!std::holds_alternative<phx::Message>(again) || !same_fields(m, std::get<phx::Message>(again))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const bool binary : {false, true}) {
    check(input, binary, phx::Direction::ClientToServer);
    check(input, binary, phx::Direction::ServerToClient);
  }
  return 0;
}
