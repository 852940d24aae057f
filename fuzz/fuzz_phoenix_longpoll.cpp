// Arbitrary bytes as a LongPoll response body and as a POST body. A response that decodes
// must encode (the server's way) and decode again to the same status, token and messages;
// its messages go through the Phoenix decoders without harm. A POST body the server splits
// must give pieces without line feeds, which publish_body either refuses or joins into a body
// that splits back into the same pieces.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "proto/phoenix_longpoll.hpp"

namespace phx = stampede::proto::phx;
namespace lp = stampede::proto::phx::longpoll;

namespace {

void check_response(std::string_view input) {
  auto r = lp::decode_response(input);
  if (!std::holds_alternative<lp::Response>(r)) return;
  const lp::Response& response = std::get<lp::Response>(r);
  if (response.status < 100 || response.status > 599) std::abort();
  auto again = lp::decode_response(lp::encode_response(response));
  if (!std::holds_alternative<lp::Response>(again)) std::abort();
  const lp::Response& b = std::get<lp::Response>(again);
  if (b.status != response.status || b.messages != response.messages || b.token != response.token) std::abort();
  std::vector<phx::Message> messages;
  for (const phx::Serializer s : {phx::Serializer::V1, phx::Serializer::V2}) {
    const std::string error = lp::decode_messages(response, s, messages);
    if (error.empty() != (messages.size() == response.messages.size())) std::abort();
  }
}

void check_publish(std::string_view input) {
  for (const std::string_view type : {lp::kBatchContentType, std::string_view("application/json")}) {
    const auto pieces = lp::split_publish_body(input, type);
    if (pieces.empty()) std::abort();
    if (type != lp::kBatchContentType) {
      if (pieces.size() != 1 || pieces[0] != input) std::abort();
      continue;
    }
    std::vector<phx::Frame> frames;
    for (const std::string_view p : pieces) {
      if (p.find('\n') != std::string_view::npos) std::abort();
      frames.push_back({std::string(p), false});
    }
    std::string body;
    try {
      body = lp::publish_body(frames);
    } catch (const std::invalid_argument&) {
      continue;  // a piece with a CR, more than 100 pieces
    }
    const auto back = lp::split_publish_body(body, lp::kBatchContentType);
    if (back.size() != pieces.size()) std::abort();
    for (std::size_t i = 0; i < back.size(); ++i) {
      if (back[i] != pieces[i]) std::abort();
    }
  }
}

void check_urls(std::string_view input) {
  const std::size_t nul = input.find('\0');
  const std::string_view key = input.substr(0, nul);
  const std::string_view value = nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1);
  const std::vector<lp::QueryParam> params = {{key, value}};
  const std::string url = lp::request_url(lp::endpoint_url("wss://example.com/socket", params), value);
  for (const char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || c == '#') std::abort();  // everything unsafe is percent-encoded
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_response(input);
  check_publish(input);
  check_urls(input);
  return 0;
}
