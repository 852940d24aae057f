#include "clients/h2_test_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "proto/http2_server_codec.hpp"

namespace stampede::testing {

namespace {


struct H2Connection : proto::Http2ServerCodec::Listener {
  explicit H2Connection(std::atomic<int>& resets, std::atomic<int>& requests) : resets(resets), requests(requests) {}

  struct Owed {
    std::int32_t stream;
    std::chrono::steady_clock::time_point due;
  };

  void on_request(std::int32_t stream, proto::HttpRequest& request) override {
    ++requests;
    if (request.target == "/ok") {
      codec->respond(stream, 200, {}, "ok", false);
      answered.push_back(stream);
    } else if (request.target == "/slow") {
      owed.push_back({stream, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)});
    }
  }
  void on_response_sent(std::int32_t) override {}
  void on_stream_closed(std::int32_t stream) override {
    for (std::int32_t s : answered) {
      if (s == stream) return;
    }
    ++resets;  // closed before we answered: the client reset it
  }

  void answer_due() {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = owed.begin(); it != owed.end();) {
      if (it->due > now) {
        ++it;
        continue;
      }
      codec->respond(it->stream, 200, {}, "slow", false);
      answered.push_back(it->stream);
      it = owed.erase(it);
    }
  }

  std::atomic<int>& resets;
  std::atomic<int>& requests;
  proto::Http2ServerCodec* codec = nullptr;
  std::vector<Owed> owed;
  std::vector<std::int32_t> answered;
};

bool send_all(int fd, const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

H2TestServer::H2TestServer() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    throw std::runtime_error("H2TestServer: cannot listen");
  }
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

H2TestServer::~H2TestServer() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  ::close(listen_fd_);
  acceptor_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
}

std::string H2TestServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void H2TestServer::accept_loop() {
  while (!stopping_) {
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    ++accepted_;
    std::lock_guard lock(mutex_);
    fds_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void H2TestServer::serve(int fd) {
  H2Connection connection(resets_, requests_);
  proto::Http2ServerCodec codec(connection);
  connection.codec = &codec;
  char buffer[16 * 1024];
  bool open = true;
  while (open && !stopping_) {
    std::string out;
    codec.take_output(out);
    if (!out.empty() && !send_all(fd, out)) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10) > 0) {
      const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) {
        if (!stopping_) ++closed_by_client_;
        open = false;
      } else if (!codec.feed(std::string_view(buffer, static_cast<std::size_t>(n)))) {
        open = false;
      }
    }
    connection.answer_due();
  }
  {
    std::lock_guard lock(mutex_);
    std::erase(fds_, fd);
  }
  ::close(fd);
}

}  // namespace stampede::testing
