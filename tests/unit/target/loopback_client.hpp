#pragma once
// A deliberately plain HTTP/1.1 client for the loopback tests: one Asio socket, requests
// written as raw bytes, responses read with Content-Length or chunked framing. Reads time
// out after a few seconds so a broken server fails the test instead of hanging it.
#include <poll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::target::testing {

struct ClientResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lowercased
  std::string body;                                          // de-chunked

  std::string header(std::string_view name) const {
    for (const auto& [n, v] : headers) {
      if (n == name) return v;
    }
    return {};
  }
  bool has_header(std::string_view name) const {
    for (const auto& h : headers) {
      if (h.first == name) return true;
    }
    return false;
  }
};

class LoopbackClient {
 public:
  explicit LoopbackClient(std::uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    socket_.set_option(boost::asio::ip::tcp::no_delay(true));
  }

  void send(std::string_view bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size())); }

  ClientResponse get(std::string_view path, std::string_view extra_headers = "") {
    send("GET " + std::string(path) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + std::string(extra_headers) + "\r\n");
    return read_response();
  }

  ClientResponse read_response(bool head_request = false) {
    std::size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) fill();
    const std::string head = buffer_.substr(0, head_end + 2);
    buffer_.erase(0, head_end + 4);

    ClientResponse r;
    std::size_t line_end = head.find("\r\n");
    const std::string status_line = head.substr(0, line_end);
    if (status_line.rfind("HTTP/1.1 ", 0) != 0) throw std::runtime_error("bad status line: " + status_line);
    r.status = std::stoi(status_line.substr(9, 3));
    for (std::size_t at = line_end + 2; at < head.size(); at = line_end + 2) {
      line_end = head.find("\r\n", at);
      const auto line = head.substr(at, line_end - at);
      const auto colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      auto value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers.emplace_back(std::move(name), std::move(value));
    }
    if (head_request || r.status / 100 == 1 || r.status == 204 || r.status == 304) return r;

    if (r.header("transfer-encoding") == "chunked") {
      while (true) {
        const auto size_end = wait_for("\r\n");
        const auto size = std::stoul(buffer_.substr(0, size_end), nullptr, 16);
        buffer_.erase(0, size_end + 2);
        while (buffer_.size() < size + 2) fill();
        r.body += buffer_.substr(0, size);
        buffer_.erase(0, size + 2);
        if (size == 0) break;
      }
      return r;
    }
    const auto length = std::stoul(r.header("content-length"));
    while (buffer_.size() < length) fill();
    r.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return r;
  }

  // True when the server closes the connection within `timeout` (EOF or reset).
  bool closed_by_server(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!readable(std::chrono::milliseconds(50))) continue;
      char byte;
      boost::system::error_code ec;
      const auto n = socket_.read_some(boost::asio::buffer(&byte, 1), ec);
      if (ec) return true;
      buffer_.append(&byte, n);
    }
    return false;
  }

  boost::asio::ip::tcp::socket& socket() { return socket_; }

 private:
  bool readable(std::chrono::milliseconds timeout) {
    pollfd fd{socket_.native_handle(), POLLIN, 0};
    return ::poll(&fd, 1, static_cast<int>(timeout.count())) > 0;
  }

  void fill() {
    if (!readable(std::chrono::milliseconds(5000))) throw std::runtime_error("timed out waiting for the server");
    char chunk[16384];
    boost::system::error_code ec;
    const auto n = socket_.read_some(boost::asio::buffer(chunk), ec);
    if (ec) throw std::runtime_error("connection ended: " + ec.message());
    buffer_.append(chunk, n);
  }

  std::size_t wait_for(std::string_view marker) {
    std::size_t at;
    while ((at = buffer_.find(marker)) == std::string::npos) fill();
    return at;
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string buffer_;
};

}  // namespace stampede::target::testing
