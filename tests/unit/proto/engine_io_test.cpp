#include "proto/engine_io.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>


namespace stampede::proto::eio {
namespace {

using namespace std::string_literals;

Packet decoded(std::string_view frame, bool binary) {
  Decoded d = decode_frame(frame, binary);
  if (const auto* error = std::get_if<std::string>(&d)) throw std::runtime_error(*error);
  return std::get<Packet>(std::move(d));
}

std::string error_of(std::string_view frame) {
  Decoded d = decode_frame(frame, false);
  const auto* error = std::get_if<std::string>(&d);
  return error ? *error : std::string();
}

std::string error_of_handshake(std::string_view data) {
  auto h = parse_handshake(data);
  const auto* error = std::get_if<std::string>(&h);
  return error ? *error : std::string();
}

// ---- Vectors from engine.io-parser 5.2.3 (tests/vectors/socket-io/generate.cjs) ----------

struct PacketVector {
  Packet packet;
  std::string websocket;
  bool websocket_binary;
  std::string polling;
};

const std::vector<PacketVector>& packet_vectors() {
  static const std::vector<PacketVector> v = {
      {{PacketType::Open, R"({"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000})", false},
       R"(0{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000})",
       false,
       R"(0{"sid":"abc","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000})"},
      {{PacketType::Close, "", false}, "1", false, "1"},
      {{PacketType::Ping, "", false}, "2", false, "2"},
      {{PacketType::Ping, "probe", false}, "2probe", false, "2probe"},
      {{PacketType::Pong, "probe", false}, "3probe", false, "3probe"},
      {{PacketType::Message, "hello \xC3\xA9", false}, "4hello \xC3\xA9", false, "4hello \xC3\xA9"},
      {{PacketType::Message, "", false}, "4", false, "4"},
      {{PacketType::Upgrade, "", false}, "5", false, "5"},
      {{PacketType::Noop, "", false}, "6", false, "6"},
      {{PacketType::Message, "\x01\x02\x03\xff", true}, "\x01\x02\x03\xff", true, "bAQID/w=="},
  };
  return v;
}

TEST(EngineIo, EncodesEachPacketAsEngineIoParserDoes) {
  for (const PacketVector& v : packet_vectors()) {
    const Frame frame = encode_frame(v.packet);
    EXPECT_EQ(frame.data, v.websocket) << packet_type_name(v.packet.type);
    EXPECT_EQ(frame.binary_frame, v.websocket_binary);
    EXPECT_EQ(encode_payload(std::vector<Packet>{v.packet}), v.polling);
  }
}

TEST(EngineIo, DecodesEachPacketBackFromBothTransports) {
  for (const PacketVector& v : packet_vectors()) {
    for (const auto& [frame, binary] : {std::pair{v.websocket, v.websocket_binary}, std::pair{v.polling, false}}) {
      const Packet p = decoded(frame, binary);
      EXPECT_EQ(p.type, v.packet.type) << frame;
      EXPECT_EQ(p.data, v.packet.data) << frame;
      EXPECT_EQ(p.binary, v.packet.binary) << frame;
    }
  }
}

TEST(EngineIo, PollingPayloadJoinsPacketsWithTheRecordSeparator) {
  // engine.io-parser 5.2.3 encodePayload of these four packets.
  const std::vector<Packet> packets = {{PacketType::Message, "hello", false},
                                       {PacketType::Message, "\x01\x02\x03\x04", true},
                                       {PacketType::Ping, "", false},
                                       {PacketType::Message, R"(42["chat","hi"])", false}};
  const std::string payload = "4hello\x1e" "bAQIDBA==\x1e" "2\x1e" R"(442["chat","hi"])";
  EXPECT_EQ(encode_payload(packets), payload);
  std::vector<Packet> back;
  ASSERT_EQ(decode_payload(payload, back), "");
  ASSERT_EQ(back.size(), 4u);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].type, packets[i].type);
    EXPECT_EQ(back[i].data, packets[i].data);
    EXPECT_EQ(back[i].binary, packets[i].binary);
  }
}

TEST(EngineIo, RealServerHandshakeAndPoll) {
  // A real engine.io 6.6.13 server on loopback (generate.cjs): the body of the first polling
  // GET, and of the next one after the server sent a text and a binary message.
  const std::string open =
      R"(0{"sid":"OhglmjGyV7fLwVdNAAAA","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000})";
  std::vector<Packet> packets;
  ASSERT_EQ(decode_payload(open, packets), "");
  ASSERT_EQ(packets.size(), 1u);
  ASSERT_EQ(packets[0].type, PacketType::Open);
  auto h = parse_handshake(packets[0].data);
  ASSERT_TRUE(std::holds_alternative<Handshake>(h)) << std::get<std::string>(h);
  const Handshake& hs = std::get<Handshake>(h);
  EXPECT_EQ(hs.sid, "OhglmjGyV7fLwVdNAAAA");
  EXPECT_EQ(hs.upgrades, std::vector<std::string>{"websocket"});
  EXPECT_EQ(hs.ping_interval_ms, 25000u);
  EXPECT_EQ(hs.ping_timeout_ms, 20000u);
  EXPECT_EQ(hs.max_payload, 1000000u);
  EXPECT_EQ(handshake_data(hs), open.substr(1));

  ASSERT_EQ(decode_payload("4hello from the server\x1e" "bAQID", packets), "");
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[0].data, "hello from the server");
  EXPECT_FALSE(packets[0].binary);
  EXPECT_EQ(packets[1].data, "\x01\x02\x03");
  EXPECT_TRUE(packets[1].binary);
}

TEST(EngineIo, BadPacketsAreErrorsWithTheirPlace) {
  EXPECT_EQ(error_of(""), "engine.io: empty packet");
  EXPECT_EQ(error_of("7"), "engine.io: unknown packet type '7'");
  EXPECT_EQ(error_of("x"), "engine.io: unknown packet type 'x'");
  EXPECT_EQ(error_of("b!!!"), "engine.io: binary packet is not valid base64");
  std::vector<Packet> packets;
  // engine.io-parser stops at the first error packet too; those before it are kept.
  EXPECT_EQ(decode_payload("4a\x1e" "9x\x1e" "4b", packets), "packet 1 of the payload: engine.io: unknown packet type '9'");
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0].data, "a");
  EXPECT_EQ(decode_payload("", packets), "packet 0 of the payload: engine.io: empty packet");
  EXPECT_EQ(decode_payload("4a\x1e", packets), "packet 1 of the payload: engine.io: empty packet");
}

TEST(EngineIo, EncodingRefusesWhatCannotTravel) {
  EXPECT_THROW(encode_frame({PacketType::Ping, "x", true}), std::invalid_argument);
  EXPECT_THROW(encode_payload(std::vector<Packet>{}), std::invalid_argument);
  EXPECT_THROW(encode_payload(std::vector<Packet>{{PacketType::Message, "a\x1e" "b", false}}), std::invalid_argument);
  // Binary data may hold the separator: it travels as base64.
  EXPECT_EQ(encode_payload(std::vector<Packet>{{PacketType::Message, "\x1e", true}}), "bHg==");
}

TEST(EngineIo, HandshakeFieldsAreChecked) {
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":2})"), "");
  auto minimal = std::get<Handshake>(parse_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":2,"extra":[1]})"));
  EXPECT_TRUE(minimal.upgrades.empty());
  EXPECT_EQ(minimal.max_payload, 0u);
  EXPECT_EQ(error_of_handshake("{"), "engine.io handshake: invalid JSON (incomplete JSON)");
  EXPECT_EQ(error_of_handshake("[]"), "engine.io handshake: not a JSON object");
  EXPECT_EQ(error_of_handshake(R"({"pingInterval":1,"pingTimeout":2})"), R"(engine.io handshake: "sid" is missing)");
  EXPECT_EQ(error_of_handshake(R"({"sid":7,"pingInterval":1,"pingTimeout":2})"),
            R"(engine.io handshake: "sid" is not a non-empty string)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingTimeout":2})"), R"(engine.io handshake: "pingInterval" is missing)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":"1","pingTimeout":2})"),
            R"(engine.io handshake: "pingInterval" is not an integer from 0 to 2^53-1)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":-1,"pingTimeout":2})"),
            R"(engine.io handshake: "pingInterval" is not an integer from 0 to 2^53-1)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1.5,"pingTimeout":2})"),
            R"(engine.io handshake: "pingInterval" is not an integer from 0 to 2^53-1)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":99999999999999999999})"),
            R"(engine.io handshake: "pingTimeout" is not an integer from 0 to 2^53-1)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":9007199254740992})"),
            R"(engine.io handshake: "pingTimeout" is not an integer from 0 to 2^53-1)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":9007199254740991})"), "");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":2,"upgrades":"websocket"})"),
            R"(engine.io handshake: "upgrades" is not an array)");
  EXPECT_EQ(error_of_handshake(R"({"sid":"a","pingInterval":1,"pingTimeout":2,"upgrades":[1]})"),
            R"(engine.io handshake: "upgrades" holds something other than strings)");
}

}  // namespace
}  // namespace stampede::proto::eio
