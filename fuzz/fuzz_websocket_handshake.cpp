// The opening handshake on arbitrary bytes, from both sides:
// - as a server's answer: parsed by the HTTP response parser and checked against a fixed
//   upgrade request; a result that is ok must really be a valid 101 for that request;
// - as a client's request: parsed by the HTTP request parser and checked as the target does;
//   an accepted offer, answered with write_upgrade_response (and the negotiated
//   permessage-deflate), must pass the client's check with the same parameters;
// - as a Sec-WebSocket-Extensions value.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"
#include "proto/permessage_deflate.hpp"
#include "proto/websocket_handshake.hpp"

namespace {

namespace ws = stampede::proto::ws;
namespace proto = stampede::proto;

void check(bool condition) {
  if (!condition) std::abort();
}

void as_response(std::string_view bytes) {
  proto::HttpResponseParser parser(proto::HttpParserLimits{8 * 1024, 8 * 1024});
  parser.feed(bytes);
  parser.finish_eof();
  if (!parser.head_complete()) return;
  ws::UpgradeRequest request;
  request.target = "/socket/websocket";
  request.host = "localhost";
  request.key = "dGhlIHNhbXBsZSBub25jZQ==";
  request.subprotocols = {"phoenix", "mqtt"};
  request.extensions = ws::deflate_offer();
  const ws::UpgradeResult result = ws::check_upgrade_response(request, parser.head(), parser.body());
  check(result.ok == result.error.empty());
  if (!result.ok) return;
  check(parser.head().status == 101);
  check(result.subprotocol == "phoenix" || result.subprotocol == "mqtt");
  for (const auto& extension : result.extensions) {
    check(extension.name == ws::kDeflateExtension);
    std::string why;
    const auto params = ws::deflate_params_from_response(extension, why);
    check(params.has_value() == why.empty());
    if (params) {
      check(params->server_max_window_bits >= 8 && params->server_max_window_bits <= 15);
      check(params->client_max_window_bits >= 8 && params->client_max_window_bits <= 15);
    }
  }
}

void as_request(std::string_view bytes) {
  proto::HttpRequestParser parser(proto::HttpRequestLimits{8 * 1024, 100, 8 * 1024, 1024});
  parser.feed(bytes);
  if (!parser.done()) return;
  const ws::UpgradeOffer offer = ws::check_upgrade_request(parser.request());
  check(offer.ok == offer.error.empty());
  if (!offer.ok) {
    check(offer.status == 400 || offer.status == 426);
    std::string refusal;
    ws::write_upgrade_refusal(refusal, offer);
    proto::HttpResponseParser reread;
    check(reread.feed(refusal) == refusal.size() && reread.done() && reread.head().status == offer.status);
    return;
  }
  check(offer.key.size() == 24);
  const auto params = ws::deflate_accept_offer(offer.extensions);
  const std::string subprotocol = offer.subprotocols.empty() ? std::string() : offer.subprotocols.front();
  std::string response;
  ws::write_upgrade_response(response, offer.key, subprotocol, params ? ws::deflate_response(*params) : "");

  // The client that sent this offer accepts the answer, with the same parameters.
  ws::UpgradeRequest request;
  request.key = offer.key;
  request.target = "/";
  request.subprotocols = offer.subprotocols;
  request.extensions = params ? ws::deflate_offer() : "";
  proto::HttpResponseParser reread;
  check(reread.feed(response) == response.size() && reread.done());
  const ws::UpgradeResult result = ws::check_upgrade_response(request, reread.head());
  check(result.ok);
  check(result.subprotocol == subprotocol);
  check(result.extensions.size() == (params ? 1u : 0u));
  if (params) {
    std::string why;
    check(ws::deflate_params_from_response(result.extensions[0], why) == params);
  }
}

void as_extensions(std::string_view bytes) {
  std::vector<ws::Extension> extensions;
  if (!ws::parse_extensions(bytes, extensions)) return;
  for (const auto& extension : extensions) {
    check(!extension.name.empty());
    for (const auto& param : extension.params) {
      check(!param.name.empty());
      check(!param.value || !param.value->empty());
    }
  }
  const auto params = ws::deflate_accept_offer(extensions);
  if (params) {
    std::vector<ws::Extension> answer;
    check(ws::parse_extensions(ws::deflate_response(*params), answer) && answer.size() == 1);
    std::string why;
    check(ws::deflate_params_from_response(answer[0], why) == params);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  as_response(bytes);
  as_request(bytes);
  as_extensions(bytes);
  return 0;
}
