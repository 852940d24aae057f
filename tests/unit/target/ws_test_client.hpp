#pragma once
// A plain blocking WebSocket client for the target's loopback tests: the handshake written
// by hand (so tests can also send broken ones), frames masked with write_frame, frames read
// with WebSocketReader, permessage-deflate when the server accepts it. Reads time out after
// a few seconds so a broken server fails the test instead of hanging it.
#include <poll.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include "proto/permessage_deflate.hpp"
#include "proto/websocket_frame.hpp"
#include "proto/websocket_handshake.hpp"

namespace stampede::target::testing {

namespace ws = proto::ws;

struct HandshakeAnswer {
  int status = 0;
  std::string head;  // the whole response head, lowercased header names not guaranteed
  std::string body;
  bool has_header_line(std::string_view line) const { return head.find(line) != std::string::npos; }
};

struct Received {
  enum class Kind { Message, Ping, Pong, Close, Error, Timeout, Eof };
  Kind kind = Kind::Timeout;
  bool binary = false;
  std::string payload;
  std::uint16_t close_code = 0;
};

class WsTestClient {
 public:
  explicit WsTestClient(std::uint16_t port) : socket_(io_) {
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    socket_.set_option(boost::asio::ip::tcp::no_delay(true));
  }

  // Sends a request head as given and reads the answer head (and a refusal's body).
  HandshakeAnswer raw_handshake(std::string_view request) {
    send_raw(request);
    return read_answer();
  }

  // Reads one HTTP response: its head, and its body unless it is the 101.
  HandshakeAnswer read_answer() {
    std::size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) fill();
    HandshakeAnswer answer;
    answer.head = buffer_.substr(0, end + 4);
    buffer_.erase(0, end + 4);
    answer.status = std::stoi(answer.head.substr(9, 3));
    if (answer.status == 101) {
      if (answer.head.find("permessage-deflate") != std::string::npos) {
        std::vector<ws::Extension> extensions;
        const auto at = answer.head.find("permessage-deflate");
        ws::parse_extensions(answer.head.substr(at, answer.head.find("\r\n", at) - at), extensions);
        std::string error;
        const auto params = ws::deflate_params_from_response(extensions.at(0), error);
        if (!params) throw std::runtime_error("bad deflate answer: " + error);
        deflater_ = std::make_unique<ws::Deflater>(*params, ws::Role::Client);
        inflater_ = std::make_unique<ws::Inflater>(*params, ws::Role::Client, 16 << 20);
        reader_.set_limits({16 << 20, true});
      }
      return answer;
    }
    const auto length_at = lowercase(answer.head).find("content-length: ");
    if (length_at != std::string::npos) {
      const auto length = std::stoul(answer.head.substr(length_at + 16));
      while (buffer_.size() < length) fill();
      answer.body = buffer_.substr(0, length);
      buffer_.erase(0, length);
    }
    return answer;
  }

  // GET `target` with a valid upgrade; `extra` adds header lines.
  HandshakeAnswer handshake(std::string_view target, std::string_view extra = "") {
    return raw_handshake("GET " + std::string(target) +
                         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" +
                         std::string(extra) + "\r\n");
  }

  // Connects to `target` and insists on a 101.
  void open(std::string_view target, std::string_view extra = "") {
    const auto answer = handshake(target, extra);
    if (answer.status != 101) throw std::runtime_error("handshake refused: " + answer.head + answer.body);
  }

  void send_raw(std::string_view bytes) {
    boost::asio::write(socket_, boost::asio::buffer(bytes.data(), bytes.size()));
  }

  void send_frame(ws::Opcode opcode, std::string_view payload, bool fin = true) {
    std::string frame;
    const bool data = opcode == ws::Opcode::Text || opcode == ws::Opcode::Binary;
    if (deflater_ && data) {
      std::string compressed;
      deflater_->compress(payload, compressed);
      ws::write_frame(frame, opcode, compressed, fin, next_mask(), true);
    } else {
      ws::write_frame(frame, opcode, payload, fin, next_mask());
    }
    send_raw(frame);
  }
  void send_text(std::string_view text) { send_frame(ws::Opcode::Text, text); }
  void send_binary(std::string_view bytes) { send_frame(ws::Opcode::Binary, bytes); }
  void send_close(std::uint16_t code) { send_frame(ws::Opcode::Close, ws::close_payload(code, "bye")); }

  // The next frame or message from the server, or Timeout/Eof.
  Received next(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      // The reader is only asked when it was given something since its last NeedMore.
      const auto event = fed_unread_ ? reader_.next() : ws::WsEvent{};
      switch (event.kind) {
        case ws::WsEvent::Kind::Message: {
          Received r{Received::Kind::Message, event.opcode == ws::Opcode::Binary, std::string(event.payload), 0};
          if (event.compressed) {
            std::string plain;
            std::string error;
            if (inflater_->decompress(event.payload, plain, error) != ws::Inflater::Result::Ok) {
              throw std::runtime_error("cannot inflate: " + error);
            }
            r.payload = plain;
            ++compressed_messages;
          }
          return r;
        }
        case ws::WsEvent::Kind::Ping:
          return {Received::Kind::Ping, false, std::string(event.payload), 0};
        case ws::WsEvent::Kind::Pong:
          return {Received::Kind::Pong, false, std::string(event.payload), 0};
        case ws::WsEvent::Kind::Close:
          return {Received::Kind::Close, false, std::string(event.reason), event.close_code};
        case ws::WsEvent::Kind::Error:
          return {Received::Kind::Error, false, event.error, event.error_code};
        case ws::WsEvent::Kind::NeedMore:
          fed_unread_ = false;
          break;
      }
      // NeedMore: the reader is done with fed_, which may now be replaced.
      if (!buffer_.empty()) {
        fed_ = std::move(buffer_);
        buffer_.clear();
        reader_.feed(fed_);
        fed_unread_ = true;
        continue;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !readable(left)) return {Received::Kind::Timeout, false, {}, 0};
      char chunk[65536];
      boost::system::error_code ec;
      const auto n = socket_.read_some(boost::asio::buffer(chunk), ec);
      if (ec) return {Received::Kind::Eof, false, ec.message(), 0};
      fed_.assign(chunk, n);
      reader_.feed(fed_);
      fed_unread_ = true;
    }
  }

  // The next message's text (fails when something else comes).
  std::string next_text(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    auto r = next(timeout);
    if (r.kind != Received::Kind::Message || r.binary) {
      throw std::runtime_error("expected a text message, got kind " + std::to_string(static_cast<int>(r.kind)) +
                               ": " + r.payload);
    }
    return r.payload;
  }

  // True when the server closes the TCP connection within `timeout`.
  bool sees_eof(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto r = next(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
      if (r.kind == Received::Kind::Eof) return true;
      if (r.kind == Received::Kind::Timeout) return false;
    }
    return false;
  }

  int compressed_messages = 0;

 private:
  static std::string lowercase(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

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

  std::uint32_t next_mask() { return static_cast<std::uint32_t>(random_()); }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string buffer_;  // read with the handshake, not yet given to the reader
  std::string fed_;     // given to the reader: must stay put until it says NeedMore
  bool fed_unread_ = false;
  ws::WebSocketReader reader_{ws::Role::Client};
  std::unique_ptr<ws::Deflater> deflater_;
  std::unique_ptr<ws::Inflater> inflater_;
  std::mt19937 random_{7};
};

}  // namespace stampede::target::testing
