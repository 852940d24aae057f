#pragma once
// permessage-deflate (RFC 7692): negotiating its parameters, and compressing and
// decompressing whole messages with zlib. Role-neutral: each side compresses with its own
// parameters and decompresses with its peer's, so the same classes serve the client and
// the built-in target (a server constructs them with Role::Server).
//
// Memory: zlib state is made on the first message, not at construction. With context
// takeover (the default) it then lives as long as the object: about 256 KiB for a Deflater
// (window 15, memLevel 8) and about 39 KiB for an Inflater (32 KiB window + state). With
// no_context_takeover for that direction the state is freed after every message, so an
// idle connection holds none.
//
// Server use: deflate_accept_offer(offer.extensions) picks the parameters (nullopt: answer
// without the extension), deflate_response(params) is the header value to send, then
// Deflater(params, Role::Server) and Inflater(params, Role::Server, limit).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/websocket_frame.hpp"
#include "proto/websocket_handshake.hpp"

namespace stampede::proto::ws {

inline constexpr std::string_view kDeflateExtension = "permessage-deflate";

struct DeflateParams {
  bool server_no_context_takeover = false;
  bool client_no_context_takeover = false;
  int server_max_window_bits = 15;  // 8..15
  int client_max_window_bits = 15;  // 8..15
  bool operator==(const DeflateParams&) const = default;
};

// Client: the offer, "permessage-deflate; client_max_window_bits" (the server may then
// limit the client's window as well as its own).
std::string deflate_offer();
// Client: the parameters of the server's answer to deflate_offer(), or nullopt with
// `error` when RFC 7692 forbids the answer (unknown or repeated parameter, bad value).
std::optional<DeflateParams> deflate_params_from_response(const Extension& response, std::string& error);

// Server: the first acceptable permessage-deflate offer among the client's extensions, with
// the server's own wishes applied: `server_limits` may ask for no context takeover on
// either side and smaller windows. An offer that is invalid or that the server cannot
// honour is declined (RFC 7692 5), not an error. nullopt: nothing acceptable was offered.
std::optional<DeflateParams> deflate_accept_offer(const std::vector<Extension>& offers,
                                                  const DeflateParams& server_limits = {});
// Server: the Sec-WebSocket-Extensions value that accepts `params`.
std::string deflate_response(const DeflateParams& params);

// Compresses the messages one side sends.
class Deflater {
 public:
  // `role`: the side this endpoint plays (a client compresses with client_max_window_bits
  // and client_no_context_takeover). level and mem_level are zlib's (-1: its default).
  Deflater(const DeflateParams& params, Role role, int level = -1, int mem_level = 8);
  ~Deflater();
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  // Appends `message` compressed to `out`: a sync-flushed DEFLATE stream without its final
  // 00 00 ff ff (RFC 7692 7.2.1). Throws std::bad_alloc when zlib cannot get memory.
  void compress(std::string_view message, std::string& out);
  // Whether zlib state is held now (between messages only with context takeover).
  bool holds_state() const { return stream_ != nullptr; }

 private:
  struct Stream;
  int window_bits_;
  bool keep_context_;
  int level_;
  int mem_level_;
  std::unique_ptr<Stream> stream_;
};

// Decompresses the messages the peer sends.
class Inflater {
 public:
  enum class Result { Ok, TooBig, Corrupt };

  // `role`: the side this endpoint plays (a client inflates with the server's parameters).
  // Messages that would inflate beyond max_message_bytes are refused: a small compressed
  // message ("zip bomb") never makes it allocate more than the limit.
  Inflater(const DeflateParams& params, Role role, std::size_t max_message_bytes);
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // Appends the decompressed message to `out`. On TooBig or Corrupt, `out` is back to its
  // size before the call and `error` says what happened; the connection must then be failed
  // (the shared context is lost).
  Result decompress(std::string_view compressed, std::string& out, std::string& error);
  bool holds_state() const { return stream_ != nullptr; }
  std::size_t max_message_bytes() const { return max_message_bytes_; }

 private:
  struct Stream;
  int window_bits_;
  bool keep_context_;
  std::size_t max_message_bytes_;
  std::unique_ptr<Stream> stream_;
};

}  // namespace stampede::proto::ws
