#pragma once
// A loopback server for the client tests, scripted per connection. Each accepted connection
// runs the test's script on its own thread with plain blocking sockets (and OpenSSL when
// TLS is on), so a script reads as the conversation it expects: "read a request, answer
// this, close". It knows just enough HTTP to read what our client sends (a head and a
// Content-Length body).
#include <openssl/ssl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace stampede::testing {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;
  int connection = 0;  // which accepted connection it came on (1, 2, ...)

  // The first header with that lowercase name, or "" (tests assert on values).
  std::string header(std::string_view name) const;
  bool has_header(std::string_view name) const;
};

class ScriptedServer;

class ServerConnection {
 public:
  // The next request, or nullopt once the client closed the connection.
  std::optional<ReceivedRequest> read_request();
  void send(std::string_view bytes);
  void close();  // orderly: the client sees EOF
  void reset();  // abortive: the client sees a reset
  // Blocks until the client closes the connection (a server that never answers).
  void wait_for_close();
  // Whether the client's kernel has acknowledged every byte sent, and the FIN after close():
  // what the client will read is all there (for wait_until, wait_until.hpp).
  bool delivered() const;
  // Whether the client has read every byte sent: delivered, and nothing left unread on its
  // socket (the other end of this one, in this process).
  bool read_by_client() const;
  int number() const { return number_; }
  std::string peer_address() const { return peer_; }
  // The connection's OpenSSL handle (null without TLS), for scripts that drive TLS itself.
  SSL* tls() const { return ssl_; }

 private:
  friend class ScriptedServer;
  ServerConnection(ScriptedServer& server, int fd, SSL* ssl, int number, std::string peer)
      : server_(server), fd_(fd), ssl_(ssl), number_(number), peer_(std::move(peer)) {}
  long receive(char* into, std::size_t size);

  ScriptedServer& server_;
  int fd_;
  SSL* ssl_;
  int number_;
  std::string peer_;
  std::string pending_;
  bool closed_ = false;
};

class ScriptedServer {
 public:
  using Script = std::function<void(ServerConnection&)>;

  // Listens on 127.0.0.1, port 0. With `tls`, every connection is TLS with that context.
  explicit ScriptedServer(Script script, SSL_CTX* tls = nullptr);
  // Stops accepting, cuts every open connection, and joins the threads.
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::uint16_t port() const { return port_; }
  // "http://127.0.0.1:<port><path>" (https with TLS); `host` replaces 127.0.0.1.
  std::string url(std::string_view path = "/", std::string_view host = "127.0.0.1") const;
  int accepted() const { return accepted_.load(); }
  std::vector<ReceivedRequest> requests() const;
  std::vector<std::string> peers() const;

 private:
  friend class ServerConnection;
  void accept_loop();
  void serve(int fd, int number, std::string peer);
  void record(const ReceivedRequest& request);
  void forget_fd(int fd);

  Script script_;
  SSL_CTX* tls_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<int> accepted_{0};
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<int> open_fds_;
  std::vector<ReceivedRequest> requests_;
  std::vector<std::string> peers_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// "HTTP/1.1 <status> X\r\ncontent-length: N\r\n<extra_headers>\r\n<body>"; extra headers
// each end with "\r\n".
std::string http_response(int status, std::string_view body = "", std::string_view extra_headers = "");

// A Script: answers every request on the connection with 200 and the request's target as the body.
void echo_target(ServerConnection& conn);

}  // namespace stampede::testing
