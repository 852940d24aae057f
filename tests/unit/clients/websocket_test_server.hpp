#pragma once
// A loopback WebSocket server for the client tests, scripted per connection like
// ScriptedServer: each accepted connection runs the test's script on its own thread with
// blocking sockets (OpenSSL when TLS is on), so a script reads as the conversation it
// expects ("read the upgrade, accept it, echo one message, close"). It parses with our own
// proto codecs (the server side of them); tests/js/ws_echo_server.js is the independent peer.
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/permessage_deflate.hpp"
#include "proto/websocket_frame.hpp"

namespace stampede::testing {

// What the client sent: a message, a control frame, or how its stream ended.
struct ClientFrame {
  enum class Kind { Message, Ping, Pong, Close, Error, Eof };
  Kind kind = Kind::Eof;
  proto::ws::Opcode opcode = proto::ws::Opcode::Text;
  bool compressed = false;  // the message had RSV1 (already inflated in `payload`)
  std::string payload;
  std::uint16_t close_code = 0;
  std::string reason;  // Close: the reason; Error: what was wrong
};

class WsTestServer;

class WsServerConnection {
 public:
  // The client's upgrade request, or nullopt when it went away first.
  std::optional<proto::HttpRequest> read_request();
  // Answers `request` with 101 and its accept value; `extra_headers` each end with "\r\n".
  // With `deflate`, also accepts permessage-deflate with those parameters and inflates and
  // deflates from then on.
  void accept(const proto::HttpRequest& request, std::string_view extra_headers = "",
              std::optional<proto::ws::DeflateParams> deflate = std::nullopt);
  // read_request() + accept(); false when the client went away.
  bool handshake(std::string_view extra_headers = "");

  void send(std::string_view bytes);
  // An unmasked server frame (compressed when permessage-deflate was accepted and `compress`).
  void send_frame(proto::ws::Opcode opcode, std::string_view payload, bool fin = true);
  void send_message(proto::ws::Opcode opcode, std::string_view payload, bool compress = true);
  void send_close(std::uint16_t code, std::string_view reason = "");

  // The next frame event from the client, waiting up to `limit`.
  ClientFrame read_frame(std::chrono::milliseconds limit = std::chrono::seconds(10));
  // Every byte the next read() returns, raw (for checking that writes were coalesced).
  std::string read_raw(std::chrono::milliseconds limit = std::chrono::seconds(10));

  void close();  // orderly: the client sees EOF
  void reset();  // abortive: the client sees a reset
  // Blocks until the client closes the connection; returns whether it did within `limit`.
  bool wait_for_close(std::chrono::milliseconds limit = std::chrono::seconds(10));

  // The connection's OpenSSL handle (null without TLS), for scripts that drive TLS itself:
  // a key update, a renegotiation.
  SSL* tls() const { return ssl_; }

 private:
  friend class WsTestServer;
  WsServerConnection(WsTestServer& server, int fd, SSL* ssl) : server_(server), fd_(fd), ssl_(ssl) {}
  // Waits up to `limit` for bytes; <= 0 on EOF, error or timeout.
  long receive(char* into, std::size_t size, std::chrono::milliseconds limit);

  WsTestServer& server_;
  int fd_;
  SSL* ssl_;
  std::string pending_;  // bytes read past the upgrade request
  std::string held_;     // the bytes the frame reader parses (kept until it wants more)
  proto::ws::WebSocketReader reader_{proto::ws::Role::Server, proto::ws::ReaderLimits{64 * 1024 * 1024, false}};
  std::optional<proto::ws::DeflateParams> deflate_;
  std::unique_ptr<proto::ws::Deflater> deflater_;
  std::unique_ptr<proto::ws::Inflater> inflater_;
  bool closed_ = false;
};

class WsTestServer {
 public:
  using Script = std::function<void(WsServerConnection&)>;

  // Listens on 127.0.0.1, port 0; with `tls`, every connection is TLS with that context.
  explicit WsTestServer(Script script, SSL_CTX* tls = nullptr);
  // Stops accepting, cuts every open connection, joins the threads.
  ~WsTestServer();
  WsTestServer(const WsTestServer&) = delete;
  WsTestServer& operator=(const WsTestServer&) = delete;

  std::uint16_t port() const { return port_; }
  // "ws://127.0.0.1:<port><path>" (wss with TLS); `host` replaces 127.0.0.1.
  std::string url(std::string_view path = "/", std::string_view host = "127.0.0.1") const;
  int accepted() const { return accepted_.load(); }
  // Upgrade requests received so far (each connection's first).
  std::vector<proto::HttpRequest> requests() const;

 private:
  friend class WsServerConnection;
  void accept_loop();
  void serve(int fd);

  Script script_;
  SSL_CTX* tls_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<int> open_fds_;
  std::vector<proto::HttpRequest> requests_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// The 101 answer to an upgrade request, for scripts that send it their own way.
std::string upgrade_response(const proto::HttpRequest& request, std::string_view extra_headers = "");

}  // namespace stampede::testing
