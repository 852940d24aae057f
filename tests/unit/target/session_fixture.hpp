#pragma once
// ChannelsSession without sockets: each Peer is one Phoenix socket with a sink that records
// what the session sends, all on one ChannelsBus (one worker), on a time the test chooses.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "target/channels_bus.hpp"
#include "target/channels_session.hpp"
#include "target/presence_registry.hpp"

namespace stampede::target::testing {

struct SentFrame {
  std::string data;
  bool binary = false;
};

class RecordingSink final : public ChannelsSink {
 public:
  void send(std::string_view data, bool binary) override { frames.push_back({std::string(data), binary}); }
  void close(std::uint16_t code, std::string_view reason) override {
    close_code = code;
    close_reason = std::string(reason);
  }

  std::deque<SentFrame> frames;
  std::optional<std::uint16_t> close_code;
  std::string close_reason;
};

class Peer {
 public:
  Peer(ChannelsBus& bus, proto::phx::Serializer serializer, std::string user_id = "")
      : session(serializer, std::move(user_id), bus, sink) {}

  void send(std::string_view text, Nanos now = 0) { session.handle_frame(text, false, now); }
  void send_binary(std::string_view bytes, Nanos now = 0) { session.handle_frame(bytes, true, now); }

  // The oldest frame not taken yet (fails the test when there is none).
  SentFrame take() {
    if (sink.frames.empty()) {
      ADD_FAILURE() << "no frame was sent";
      return {};
    }
    auto frame = std::move(sink.frames.front());
    sink.frames.pop_front();
    return frame;
  }
  std::string take_text() {
    auto frame = take();
    EXPECT_FALSE(frame.binary);
    return frame.data;
  }
  bool idle() const { return sink.frames.empty(); }

  RecordingSink sink;
  ChannelsSession session;
};

// One worker's bus and the presence registry behind it.
struct SessionWorld {
  PresenceRegistry presence;
  ChannelsBus bus{presence, 0, 1, 42};

  std::unique_ptr<Peer> v2(std::string user_id = "") {
    return std::make_unique<Peer>(bus, proto::phx::Serializer::V2, std::move(user_id));
  }
  std::unique_ptr<Peer> v1(std::string user_id = "") {
    return std::make_unique<Peer>(bus, proto::phx::Serializer::V1, std::move(user_id));
  }
};

inline boost::json::value parse_json(std::string_view text) {
  boost::json::error_code ec;
  auto value = boost::json::parse(text, ec);
  if (ec) ADD_FAILURE() << "not JSON: " << text;
  return value;
}

// Frames compare as JSON values: key order is not part of the protocol.
#define EXPECT_FRAME(actual, expected) EXPECT_EQ(::stampede::target::testing::parse_json(actual), \
                                                 ::stampede::target::testing::parse_json(expected)) \
                                           << "actual: " << (actual)

}  // namespace stampede::target::testing
