#include "clients/scripted_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <stdexcept>

#include "wait_until.hpp"

namespace stampede::testing {

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return std::string(text);
}

std::string reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 404: return "Not Found";
    case 500: return "Internal Server Error";
    default: return "Status";
  }
}

}  // namespace

std::string ReceivedRequest::header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return "";
}

bool ReceivedRequest::has_header(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(), [&](const auto& h) { return h.first == name; });
}

std::string http_response(int status, std::string_view body, std::string_view extra_headers) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
         "\r\ncontent-length: " + std::to_string(body.size()) + "\r\n" + std::string(extra_headers) + "\r\n" +
         std::string(body);
}

void echo_target(ServerConnection& conn) {
  while (auto req = conn.read_request()) conn.send(http_response(200, req->target));
}

long ServerConnection::receive(char* into, std::size_t size) {
  if (closed_) return 0;
  if (ssl_ != nullptr) return SSL_read(ssl_, into, static_cast<int>(size));
  return ::recv(fd_, into, size, 0);
}

std::optional<ReceivedRequest> ServerConnection::read_request() {
  char chunk[16 * 1024];
  std::size_t head_end;
  while ((head_end = pending_.find("\r\n\r\n")) == std::string::npos) {
    const long n = receive(chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    pending_.append(chunk, static_cast<std::size_t>(n));
  }
  ReceivedRequest request;
  request.connection = number_;
  const std::string head = pending_.substr(0, head_end);
  pending_.erase(0, head_end + 4);

  std::size_t line_end = head.find("\r\n");
  const std::string request_line = head.substr(0, line_end);
  const std::size_t sp1 = request_line.find(' ');
  const std::size_t sp2 = request_line.find(' ', sp1 + 1);
  request.method = request_line.substr(0, sp1);
  request.target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
  while (line_end != std::string::npos) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line = head.substr(start, line_end == std::string::npos ? std::string::npos : line_end - start);
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    request.headers.emplace_back(lowercase(line.substr(0, colon)), trim(std::string_view(line).substr(colon + 1)));
  }
  const std::string length = request.header("content-length");
  const std::size_t body_size = length.empty() ? 0 : std::stoul(length);
  while (pending_.size() < body_size) {
    const long n = receive(chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    pending_.append(chunk, static_cast<std::size_t>(n));
  }
  request.body = pending_.substr(0, body_size);
  pending_.erase(0, body_size);
  server_.record(request);
  return request;
}

void ServerConnection::send(std::string_view bytes) {
  while (!bytes.empty() && !closed_) {
    const long n = ssl_ != nullptr ? SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()))
                                   : ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void ServerConnection::close() {
  if (closed_) return;
  closed_ = true;
  ::shutdown(fd_, SHUT_RDWR);
}

void ServerConnection::reset() {
  if (closed_) return;
  closed_ = true;
  const linger abortive{1, 0};
  ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  server_.forget_fd(fd_);
  ::close(fd_);
  fd_ = -1;
}

void ServerConnection::wait_for_close() {
  char chunk[4096];
  while (receive(chunk, sizeof chunk) > 0) {
  }
}

bool ServerConnection::delivered() const { return fd_ >= 0 && unacknowledged_bytes(fd_) == 0; }

bool ServerConnection::read_by_client() const {
  if (!delivered()) return false;
  const int client = other_end_in_this_process(fd_);
  return client >= 0 && unread_bytes(client) == 0;
}

ScriptedServer::ScriptedServer(Script script, SSL_CTX* tls) : script_(std::move(script)), tls_(tls) {
  // OpenSSL writes alerts with write(), which raises SIGPIPE when the client has gone: a
  // test server must survive the clients it tests. (The client sends with MSG_NOSIGNAL.)
  std::signal(SIGPIPE, SIG_IGN);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw std::runtime_error("test server: socket() failed");
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
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

ScriptedServer::~ScriptedServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  ::close(listen_fd_);
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);  // wakes scripts blocked in recv()
  }
  for (auto& t : threads_) t.join();
}

std::string ScriptedServer::url(std::string_view path, std::string_view host) const {
  return std::string(tls_ != nullptr ? "https://" : "http://") + std::string(host) + ":" + std::to_string(port_) +
         std::string(path);
}

std::vector<ReceivedRequest> ScriptedServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<std::string> ScriptedServer::peers() const {
  std::lock_guard lock(mutex_);
  return peers_;
}

void ScriptedServer::record(const ReceivedRequest& request) {
  std::lock_guard lock(mutex_);
  requests_.push_back(request);
}

void ScriptedServer::forget_fd(int fd) {
  std::lock_guard lock(mutex_);
  std::erase(open_fds_, fd);
}

void ScriptedServer::accept_loop() {
  while (!stopping_) {
    sockaddr_in peer{};
    socklen_t size = sizeof peer;
    const int fd = ::accept(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &size);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
    const int number = ++accepted_;
    std::lock_guard lock(mutex_);
    open_fds_.push_back(fd);
    peers_.emplace_back(text);
    threads_.emplace_back([this, fd, number, address = std::string(text)] { serve(fd, number, address); });
  }
}

void ScriptedServer::serve(int fd, int number, std::string peer) {
  SSL* ssl = nullptr;
  bool ready = true;
  if (tls_ != nullptr) {
    ssl = SSL_new(tls_);
    SSL_set_fd(ssl, fd);
    ready = SSL_accept(ssl) == 1;  // fails when the client rejects our certificate
  }
  ServerConnection conn(*this, fd, ssl, number, std::move(peer));
  if (ready) script_(conn);
  if (ssl != nullptr) SSL_free(ssl);
  if (conn.fd_ >= 0) {
    forget_fd(conn.fd_);
    ::close(conn.fd_);
  }
}

}  // namespace stampede::testing
