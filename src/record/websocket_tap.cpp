#include "record/websocket_tap.hpp"

#include "proto/http_text.hpp"
#include "proto/websocket_handshake.hpp"

namespace stampede::record {

namespace ws = proto::ws;

WebSocketTap::WebSocketTap(bool sent, const std::optional<ws::DeflateParams>& deflate, std::size_t max_message_bytes)
    : sent_(sent),
      reader_(std::make_unique<ws::WebSocketReader>(sent ? ws::Role::Server : ws::Role::Client,
                                                    ws::ReaderLimits{max_message_bytes, deflate.has_value()})) {
  // Each side inflates with its peer's parameters: the browser's messages as the app does.
  if (deflate)
    inflater_ = std::make_unique<ws::Inflater>(*deflate, sent ? ws::Role::Server : ws::Role::Client, max_message_bytes);
}

WebSocketTap::~WebSocketTap() = default;
WebSocketTap::WebSocketTap(WebSocketTap&&) noexcept = default;
WebSocketTap& WebSocketTap::operator=(WebSocketTap&&) noexcept = default;

void WebSocketTap::feed(std::string_view bytes, double at_ms, std::vector<WsFrame>& out) {
  if (broken() || reader_->stopped()) return;
  reader_->feed(bytes);
  for (;;) {
    const ws::WsEvent event = reader_->next();
    switch (event.kind) {
      case ws::WsEvent::Kind::NeedMore:
        return;
      case ws::WsEvent::Kind::Message: {
        WsFrame frame;
        frame.at_ms = at_ms;
        frame.sent = sent_;
        frame.binary = event.opcode == ws::Opcode::Binary;
        if (event.compressed) {
          std::string why;
          if (!inflater_ || inflater_->decompress(event.payload, frame.data, why) != ws::Inflater::Result::Ok) {
            error_ = "a compressed message could not be inflated" + (why.empty() ? std::string() : ": " + why);
            return;
          }
          if (!frame.binary && !ws::is_valid_utf8(frame.data)) {
            error_ = "a compressed text message is not UTF-8";
            return;
          }
        } else {
          frame.data = reader_->take_payload(event);
        }
        out.push_back(std::move(frame));
        break;
      }
      case ws::WsEvent::Kind::Ping:
      case ws::WsEvent::Kind::Pong:
        break;
      case ws::WsEvent::Kind::Close:
        return;  // the reader reads nothing after it
      case ws::WsEvent::Kind::Error:
        error_ = event.error;
        return;
    }
  }
}

std::optional<ws::DeflateParams> negotiated_deflate(const std::vector<Header>& response_headers,
                                                    std::string& error) {
  std::vector<ws::Extension> extensions;
  for (const auto& header : response_headers) {
    if (!proto::http_text::iequals(header.name, "sec-websocket-extensions")) continue;
    if (!ws::parse_extensions(header.value, extensions)) {
      error = "the app's Sec-WebSocket-Extensions cannot be read: " + header.value;
      return std::nullopt;
    }
  }
  std::optional<ws::DeflateParams> params;
  for (const auto& extension : extensions) {
    if (extension.name != ws::kDeflateExtension || params) {
      error = "the app accepted the WebSocket extension " + extension.name + ", which the recorder cannot read";
      return std::nullopt;
    }
    params = ws::deflate_params_from_response(extension, error);
    if (!params) return std::nullopt;
  }
  return params;
}

}  // namespace stampede::record
