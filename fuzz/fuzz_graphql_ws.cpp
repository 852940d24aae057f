// Arbitrary bytes as a server's GraphQL over WebSocket frame, read under both subprotocols.
// What decodes must keep its promises: a payload is valid JSON text, a next payload is an
// object, an operation message has an id. And the encoders, given pieces of the input, either
// refuse (std::invalid_argument) or write one JSON object.
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "proto/graphql_ws.hpp"

namespace gql = stampede::proto::gql;

namespace {

// The codec allows 256 levels in what it reads and splices; a message around a spliced
// payload adds two, so the check reads deeper than that.
boost::json::value parsed(std::string_view text, bool& ok) {
  boost::json::parse_options options;
  options.max_depth = 512;
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec, {}, options);
  ok = !ec;
  return v;
}

void check_decode(gql::Subprotocol sp, std::string_view frame) {
  gql::Decoded d = gql::decode_server_message(sp, frame);
  if (auto* error = std::get_if<std::string>(&d)) {
    if (error->empty()) std::abort();
    return;
  }
  const gql::ServerMessage& m = std::get<gql::ServerMessage>(d);
  using Type = gql::ServerMessage::Type;
  const bool operation = m.type == Type::Next || m.type == Type::Complete ||
                         (m.type == Type::Error && sp == gql::Subprotocol::GraphqlTransportWs);
  if (operation && m.id.empty()) std::abort();
  if (!m.payload.empty()) {
    bool ok = false;
    const boost::json::value v = parsed(m.payload, ok);
    if (!ok || v.is_null()) std::abort();
    if (m.type == Type::Next && !v.is_object()) std::abort();
    if (m.type == Type::Error && sp == gql::Subprotocol::GraphqlTransportWs && !v.is_array()) std::abort();
  } else if (m.type == Type::Next) {
    std::abort();
  }
  if (sp == gql::Subprotocol::GraphqlTransportWs && (m.type == Type::KeepAlive || m.type == Type::ConnectionError)) std::abort();
  if (sp == gql::Subprotocol::GraphqlWs && (m.type == Type::Ping || m.type == Type::Pong)) std::abort();
}

template <typename F>
void check_encode(F&& f) {
  std::string out;
  try {
    out = f();
  } catch (const std::invalid_argument&) {
    return;
  }
  bool ok = false;
  const boost::json::value v = parsed(out, ok);
  if (!ok || !v.is_object() || !v.as_object().contains("type")) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const gql::Subprotocol sp : {gql::Subprotocol::GraphqlTransportWs, gql::Subprotocol::GraphqlWs}) {
    check_decode(sp, input);
    // Pieces of the input, cut at NUL bytes, as an id, a query and JSON texts.
    std::string_view parts[4];
    std::string_view rest = input;
    for (auto& part : parts) {
      const std::size_t nul = rest.find('\0');
      part = rest.substr(0, nul);
      rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    }
    check_encode([&] { return gql::encode_connection_init(sp, parts[2]); });
    check_encode([&] { return gql::encode_subscribe(sp, parts[0], {parts[1], parts[2], parts[1], parts[3]}); });
    check_encode([&] { return gql::encode_complete(sp, parts[0]); });
    check_encode([&] { return gql::encode_ping(sp, parts[3]); });
    check_encode([&] { return gql::encode_pong(sp, parts[3]); });
    check_encode([&] { return gql::encode_connection_terminate(sp); });
  }
  return 0;
}
