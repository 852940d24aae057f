#include "clients/websocket_test_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <stdexcept>

#include "proto/websocket_handshake.hpp"

namespace stampede::testing {

namespace ws = proto::ws;

std::string upgrade_response(const proto::HttpRequest& request, std::string_view extra_headers) {
  const std::string* key = request.header("sec-websocket-key");
  std::string out = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n";
  out += "Sec-WebSocket-Accept: " + ws::accept_value(key ? *key : "") + "\r\n";
  out += extra_headers;
  out += "\r\n";
  return out;
}

long WsServerConnection::receive(char* into, std::size_t size, std::chrono::milliseconds limit) {
  if (closed_) return 0;
  if (ssl_ == nullptr || SSL_pending(ssl_) == 0) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(limit.count())) <= 0) return -1;
  }
  if (ssl_ != nullptr) return SSL_read(ssl_, into, static_cast<int>(size));
  return ::recv(fd_, into, size, 0);
}

std::optional<proto::HttpRequest> WsServerConnection::read_request() {
  proto::HttpRequestParser parser;
  char chunk[16 * 1024];
  for (;;) {
    const std::size_t used = parser.feed(pending_);
    pending_.erase(0, used);
    if (parser.done()) break;
    if (parser.failed()) return std::nullopt;
    const long n = receive(chunk, sizeof chunk, std::chrono::seconds(10));
    if (n <= 0) return std::nullopt;
    pending_.append(chunk, static_cast<std::size_t>(n));
  }
  std::lock_guard lock(server_.mutex_);
  server_.requests_.push_back(parser.request());
  return parser.request();
}

void WsServerConnection::accept(const proto::HttpRequest& request, std::string_view extra_headers,
                                std::optional<ws::DeflateParams> deflate) {
  std::string extra(extra_headers);
  if (deflate) {
    extra += "Sec-WebSocket-Extensions: " + ws::deflate_response(*deflate) + "\r\n";
    deflate_ = deflate;
    deflater_ = std::make_unique<ws::Deflater>(*deflate, ws::Role::Server);
    inflater_ = std::make_unique<ws::Inflater>(*deflate, ws::Role::Server, 64 * 1024 * 1024);
    reader_.set_limits(ws::ReaderLimits{64 * 1024 * 1024, true});
  }
  send(upgrade_response(request, extra));
}

bool WsServerConnection::handshake(std::string_view extra_headers) {
  const auto request = read_request();
  if (!request) return false;
  accept(*request, extra_headers);
  return true;
}

void WsServerConnection::send(std::string_view bytes) {
  while (!bytes.empty() && !closed_) {
    const long n = ssl_ != nullptr ? SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()))
                                   : ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void WsServerConnection::send_frame(ws::Opcode opcode, std::string_view payload, bool fin) {
  std::string frame;
  ws::write_frame(frame, opcode, payload, fin);
  send(frame);
}

void WsServerConnection::send_message(ws::Opcode opcode, std::string_view payload, bool compress) {
  std::string frame;
  if (deflater_ && compress) {
    std::string compressed;
    deflater_->compress(payload, compressed);
    ws::write_frame(frame, opcode, compressed, true, std::nullopt, /*rsv1=*/true);
  } else {
    ws::write_frame(frame, opcode, payload);
  }
  send(frame);
}

void WsServerConnection::send_close(std::uint16_t code, std::string_view reason) {
  send_frame(ws::Opcode::Close, ws::close_payload(code, reason));
}

ClientFrame WsServerConnection::read_frame(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    ws::WsEvent event = reader_.next();
    ClientFrame frame;
    switch (event.kind) {
      case ws::WsEvent::Kind::NeedMore: {
        if (!pending_.empty()) {
          held_ = std::move(pending_);
          pending_.clear();
          reader_.feed(held_);
          continue;
        }
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        char chunk[64 * 1024];
        const long n = left.count() > 0 ? receive(chunk, sizeof chunk, left) : -1;
        if (n <= 0) return frame;  // Eof (or nothing within the limit)
        held_.assign(chunk, static_cast<std::size_t>(n));
        reader_.feed(held_);
        continue;
      }
      case ws::WsEvent::Kind::Message:
        frame.kind = ClientFrame::Kind::Message;
        frame.opcode = event.opcode;
        frame.compressed = event.compressed;
        if (event.compressed) {
          std::string why;
          if (inflater_ == nullptr || inflater_->decompress(event.payload, frame.payload, why) != ws::Inflater::Result::Ok) {
            frame.kind = ClientFrame::Kind::Error;
            frame.reason = "cannot inflate: " + why;
          }
        } else {
          frame.payload = std::string(event.payload);
        }
        return frame;
      case ws::WsEvent::Kind::Ping:
      case ws::WsEvent::Kind::Pong:
        frame.kind = event.kind == ws::WsEvent::Kind::Ping ? ClientFrame::Kind::Ping : ClientFrame::Kind::Pong;
        frame.payload = std::string(event.payload);
        return frame;
      case ws::WsEvent::Kind::Close:
        frame.kind = ClientFrame::Kind::Close;
        frame.close_code = event.close_code;
        frame.reason = std::string(event.reason);
        return frame;
      case ws::WsEvent::Kind::Error:
        frame.kind = ClientFrame::Kind::Error;
        frame.close_code = event.error_code;
        frame.reason = event.error;
        return frame;
    }
  }
}

std::string WsServerConnection::read_raw(std::chrono::milliseconds limit) {
  if (!pending_.empty()) return std::exchange(pending_, {});
  char chunk[64 * 1024];
  const long n = receive(chunk, sizeof chunk, limit);
  return n > 0 ? std::string(chunk, static_cast<std::size_t>(n)) : std::string();
}

void WsServerConnection::close() {
  if (closed_) return;
  closed_ = true;
  ::shutdown(fd_, SHUT_RDWR);
}

void WsServerConnection::reset() {
  if (closed_) return;
  closed_ = true;
  const linger abortive{1, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  ::shutdown(fd_, SHUT_RD);
  {
    std::lock_guard lock(server_.mutex_);
    std::erase(server_.open_fds_, fd_);
  }
  ::close(fd_);
  fd_ = -1;
}

bool WsServerConnection::wait_for_close(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char chunk[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const long n = receive(chunk, sizeof chunk, left);
    if (n == 0) return true;
    if (n < 0) {
      // A poll timeout, or an error: the latter means the client is gone too.
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 0) > 0) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
    }
  }
}

WsTestServer::WsTestServer(Script script, SSL_CTX* tls) : script_(std::move(script)), tls_(tls) {
  std::signal(SIGPIPE, SIG_IGN);  // OpenSSL writes alerts with write()
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("test server: socket() failed");
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 512) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("test server: cannot listen on 127.0.0.1");
  }
  socklen_t size = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

WsTestServer::~WsTestServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
}

std::string WsTestServer::url(std::string_view path, std::string_view host) const {
  return std::string(tls_ != nullptr ? "wss://" : "ws://") + std::string(host) + ":" + std::to_string(port_) +
         std::string(path);
}

std::vector<proto::HttpRequest> WsTestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void WsTestServer::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ++accepted_;
    std::lock_guard lock(mutex_);
    open_fds_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void WsTestServer::serve(int fd) {
  SSL* ssl = nullptr;
  bool ready = true;
  if (tls_ != nullptr) {
    ssl = SSL_new(tls_);
    SSL_set_fd(ssl, fd);
    ready = SSL_accept(ssl) == 1;  // fails when the client rejects our certificate
  }
  WsServerConnection conn(*this, fd, ssl);
  if (ready) script_(conn);
  if (ssl != nullptr) SSL_free(ssl);
  if (conn.fd_ >= 0) {
    {
      std::lock_guard lock(mutex_);
      std::erase(open_fds_, conn.fd_);
    }
    ::close(conn.fd_);
  }
}

}  // namespace stampede::testing
