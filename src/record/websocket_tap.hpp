#pragma once
// Reads a copy of one direction of a WebSocket the recording proxy relays, and turns it into
// the recording's messages (recording.hpp WsFrame): frames joined, control frames left out,
// permessage-deflate messages inflated. The bytes themselves are relayed untouched by the
// proxy; the tap only reads along, so what it cannot read (a message over the size limit, an
// extension it does not know, a broken stream) stops the recording of that direction, never
// the connection. Pure: no sockets, no clock (the caller says when bytes arrived).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/permessage_deflate.hpp"
#include "proto/websocket_frame.hpp"
#include "record/recording.hpp"

namespace stampede::record {

class WebSocketTap {
 public:
  // `sent`: the browser's direction (its frames are masked: read as a server reads them).
  // `deflate`: the permessage-deflate parameters the handshake agreed on, if any.
  WebSocketTap(bool sent, const std::optional<proto::ws::DeflateParams>& deflate, std::size_t max_message_bytes);
  ~WebSocketTap();
  WebSocketTap(WebSocketTap&&) noexcept;
  WebSocketTap& operator=(WebSocketTap&&) noexcept;

  // Reads `bytes` (as they passed, any split) and appends the messages they completed to
  // `out`, stamped `at_ms`. Nothing once broken().
  void feed(std::string_view bytes, double at_ms, std::vector<WsFrame>& out);

  // The tap stopped reading: why ("" while it reads).
  const std::string& error() const { return error_; }
  bool broken() const { return !error_.empty(); }

 private:
  bool sent_;
  std::unique_ptr<proto::ws::WebSocketReader> reader_;
  std::unique_ptr<proto::ws::Inflater> inflater_;
  std::string error_;
};

// The permessage-deflate parameters of a 101 answer's Sec-WebSocket-Extensions (nullopt when
// it accepted none). `error` says why an extension makes the frames unreadable: one other
// than permessage-deflate, or an answer RFC 7692 forbids.
std::optional<proto::ws::DeflateParams> negotiated_deflate(const std::vector<Header>& response_headers,
                                                           std::string& error);

}  // namespace stampede::record
