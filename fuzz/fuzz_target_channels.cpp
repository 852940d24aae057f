// libFuzzer target for the target's Phoenix channel server (target/channels_session): three
// sockets (V2, V1, V2) on one bus, fed arbitrary frame sequences, with time passing and
// sockets going away in between. Whatever arrives, the server must not crash, must only send
// frames a Phoenix client can decode, must stay within its limits, and must send nothing
// after it has closed a socket.
//
// Input: a sequence of records. The first byte of each says what happens:
//   bits 0-2  op: 0-3 a frame (a length byte, then that many bytes), 4 time passes (next
//             byte x 7 ms), 5 the socket disconnects (a fresh one takes its place), 6-7 one
//             of the well-formed frames below (next byte chooses), so short inputs go deep
//   bits 3-4  which socket (0-2, 3 wraps to 0)
//   bit  6    the frame is binary
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"
#include "target/channels_bus.hpp"
#include "target/channels_session.hpp"
#include "target/presence_registry.hpp"

namespace {

namespace phx = stampede::proto::phx;
using stampede::Nanos;
using stampede::target::ChannelsBus;
using stampede::target::ChannelsSession;
using stampede::target::ChannelsSink;
using stampede::target::PresenceRegistry;

void check(bool condition) {
  if (!condition) std::abort();
}

// Checks each frame as a client would read it.
class CheckingSink final : public ChannelsSink {
 public:
  explicit CheckingSink(phx::Serializer serializer) : serializer_(serializer) {}

  void send(std::string_view data, bool binary) override {
    check(!closed_);
    check(serializer_ == phx::Serializer::V2 || !binary);
    check(phx::decode_into(data, binary, serializer_, phx::Direction::ServerToClient, scratch_).empty());
  }
  void close(std::uint16_t code, std::string_view reason) override {
    check(code == 1011);
    check(!reason.empty());
    closed_ = true;
  }

 private:
  phx::Serializer serializer_;
  phx::Message scratch_;
  bool closed_ = false;
};

struct Socket {
  Socket(ChannelsBus& bus, phx::Serializer serializer, std::string user)
      : sink(serializer), session(serializer, std::move(user), bus, sink) {}
  CheckingSink sink;
  ChannelsSession session;
};

// Frames that reach past decoding, joins and routing at once.
constexpr std::string_view kV2Frames[] = {
    R"(["1","1","room:lobby","phx_join",{}])",
    R"(["1","2","room:lobby","new_msg",{"body":"hi"}])",
    R"(["1","3","room:lobby","shout",{"a":[1,{"b":null}]}])",
    R"(["1","4","room:lobby","ping",{"n":42}])",
    R"(["1","5","room:lobby","crash",{}])",
    R"(["1","6","room:lobby","phx_leave",{}])",
    R"(["2","2","room:private","phx_join",{}])",
    R"(["3","3","presence:lobby","phx_join",{"user_id":"ann"}])",
    R"(["3","4","presence:lobby","phx_leave",{}])",
    R"(["4","4","__absinthe__:control","phx_join",{}])",
    R"(["4","5","__absinthe__:control","doc",{"query":"subscription { t { n } }","variables":{"interval_ms":10}}])",
    R"(["4","6","__absinthe__:control","unsubscribe",{"subscriptionId":"__absinthe__:doc:1:00"}])",
    R"([null,"7","phoenix","heartbeat",{}])",
    R"(["9","9","room:lobby","phx_join",{}])",
    R"([null,"8","room:other","new_msg",{}])",
};
constexpr std::string_view kV1Frames[] = {
    R"({"topic":"room:lobby","event":"phx_join","payload":{},"ref":"1"})",
    R"({"topic":"room:lobby","event":"new_msg","payload":{"body":"hi"},"ref":"2"})",
    R"({"topic":"presence:lobby","event":"phx_join","payload":{},"ref":"3","join_ref":"3"})",
    R"({"topic":"__absinthe__:control","event":"phx_join","payload":{},"ref":"4"})",
    R"({"topic":"__absinthe__:control","event":"doc","payload":{"query":"subscription { u }"},"ref":"5"})",
    R"({"topic":"phoenix","event":"heartbeat","payload":{},"ref":"6"})",
    R"({"topic":"room:lobby","event":"phx_leave","payload":{},"ref":"7"})",
};

phx::Serializer serializer_of(std::size_t index) { return index == 1 ? phx::Serializer::V1 : phx::Serializer::V2; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  PresenceRegistry presence;
  ChannelsBus bus(presence, 0, 1, 1);
  std::unique_ptr<Socket> sockets[3];
  for (std::size_t i = 0; i < 3; ++i) sockets[i] = std::make_unique<Socket>(bus, serializer_of(i), "user-" + std::to_string(i));

  std::string_view input(reinterpret_cast<const char*>(data), size);
  Nanos now = 0;
  while (!input.empty()) {
    const auto record = static_cast<std::uint8_t>(input.front());
    input.remove_prefix(1);
    const unsigned op = record & 0x07;
    const std::size_t who = ((record >> 3) & 0x03) % 3;
    const bool binary = (record & 0x40) != 0;
    auto& socket = *sockets[who];

    if (op <= 3) {
      if (input.empty()) break;
      const std::size_t length = std::min<std::size_t>(static_cast<std::uint8_t>(input.front()), input.size() - 1);
      const auto frame = input.substr(1, length);
      input.remove_prefix(1 + length);
      socket.session.handle_frame(frame, binary, now);
    } else if (op == 4) {
      if (input.empty()) break;
      now += static_cast<Nanos>(static_cast<std::uint8_t>(input.front())) * 7 * stampede::kMilli;
      input.remove_prefix(1);
      for (auto& s : sockets) {
        s->session.handle_time(now);
        const auto due = s->session.next_due();
        check(!due || *due > now);
      }
    } else if (op == 5) {
      socket.session.handle_disconnect();
      check(socket.session.channel_count() == 0);
      sockets[who] = std::make_unique<Socket>(bus, serializer_of(who), "user-" + std::to_string(who));
    } else {
      if (input.empty()) break;
      const auto choice = static_cast<std::uint8_t>(input.front());
      input.remove_prefix(1);
      const auto frame = serializer_of(who) == phx::Serializer::V1 ? kV1Frames[choice % std::size(kV1Frames)]
                                                                   : kV2Frames[choice % std::size(kV2Frames)];
      socket.session.handle_frame(frame, false, now);
    }
    const auto& current = sockets[who]->session;  // op 5 replaced `socket`
    check(current.channel_count() <= ChannelsSession::kMaxChannels);
    check(current.subscription_count() <= ChannelsSession::kMaxSubscriptions);
  }
  // Everyone leaves: the presence registry must be empty again on every topic they used.
  for (auto& s : sockets) s->session.handle_disconnect();
  check(presence.state_json("presence:lobby") == "{}");
  return 0;
}
