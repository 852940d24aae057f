#include "proto/phoenix_message.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bytes.hpp"
#include "test_paths.hpp"

namespace stampede::proto::phx {
namespace {

namespace json = boost::json;

// Recorded from phoenix 1.7.24 and the official phoenix JS client (npm 1.8.16); a copy of
// ../shared/phoenix-captures/frames_channels.json, so the tests never read outside the repo.
std::filesystem::path captures_file() {
  return stampede::testing::tests_dir() / "vectors/phoenix-captures/frames_channels.json";
}

using stampede::testing::bytes;

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

Message decoded(std::string_view frame, bool binary, Serializer serializer, Direction direction) {
  Decoded d = decode(frame, binary, serializer, direction);
  if (const auto* error = std::get_if<std::string>(&d)) throw std::runtime_error("decode failed: " + *error);
  return std::get<Message>(std::move(d));
}

std::string error_of(std::string_view frame, bool binary, Serializer serializer, Direction direction) {
  Decoded d = decode(frame, binary, serializer, direction);
  const auto* error = std::get_if<std::string>(&d);
  return error ? *error : std::string();
}

json::value parsed(std::string_view text) { return json::parse(text); }

std::optional<std::string> nullable(const json::value& v) {
  if (v.is_null()) return std::nullopt;
  return std::string(v.as_string());
}

// Field by field: JSON payloads as values (key order and spacing are not part of the protocol).
void expect_same(const Message& a, const Message& b) {
  EXPECT_EQ(a.join_ref, b.join_ref);
  EXPECT_EQ(a.ref, b.ref);
  EXPECT_EQ(a.topic, b.topic);
  EXPECT_EQ(a.event, b.event);
  EXPECT_EQ(a.binary, b.binary);
  EXPECT_EQ(a.status, b.status);
  if (a.binary) {
    EXPECT_EQ(a.payload, b.payload);
  } else {
    EXPECT_EQ(parsed(a.payload), parsed(b.payload));
  }
  EXPECT_EQ(reply_response(a), reply_response(b));
}

struct CapturedFrame {
  std::string label;
  Serializer serializer;
  Direction direction;
  bool binary;
  std::string data;  // the frame's bytes (binary frames decoded from hex)
};

// The serializer of each frame comes from the URL its label connected with (vsn=...): the same
// label ("client") connects twice, once per serializer, so the latest URL entry decides.
std::vector<CapturedFrame> load_captured_frames() {
  std::ifstream in(captures_file());
  if (!in) throw std::runtime_error("cannot open " + captures_file().string());
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, Serializer> serializer_of_label;
  std::vector<CapturedFrame> frames;
  const json::value entries = parsed(text.str());
  for (const json::value& v : entries.as_array()) {
    const json::object& entry = v.as_object();
    const std::string label(entry.at("label").as_string());
    const std::string kind(entry.at("kind").as_string());
    const std::string data(entry.at("data").as_string());
    if (kind == "url") {
      if (data.find("vsn=2.0.0") != std::string::npos) {
        serializer_of_label[label] = Serializer::V2;
      } else if (data.find("vsn=1.0.0") != std::string::npos || data.find("vsn=") == std::string::npos) {
        serializer_of_label[label] = Serializer::V1;  // no vsn means V1 (§8.10)
      } else {
        throw std::runtime_error("unknown vsn in " + data);
      }
      continue;
    }
    const auto serializer = serializer_of_label.find(label);
    if (serializer == serializer_of_label.end()) throw std::runtime_error("frame before any URL for " + label);
    const std::string dir(entry.at("dir").as_string());
    const bool binary = kind == "binary";
    frames.push_back(CapturedFrame{label, serializer->second,
                                   dir == "out" ? Direction::ClientToServer : Direction::ServerToClient, binary,
                                   binary ? from_hex(data) : data});
    // The recorder also wrote the vsn on each entry: it must agree with the URL.
    EXPECT_EQ(std::string(entry.at("vsn").as_string()), serializer->second == Serializer::V2 ? "2.0.0" : "1.0.0")
        << data;
  }
  return frames;
}

std::string describe(const CapturedFrame& f) {
  return f.label + (f.direction == Direction::ClientToServer ? " out " : " in ") + (f.binary ? "<binary>" : f.data);
}

// What an independent reading of the JSON text says the fields are.
void expect_fields_of_text_frame(const CapturedFrame& f, const Message& m) {
  const json::value original = parsed(f.data);
  if (f.serializer == Serializer::V2) {
    const json::array& a = original.as_array();
    EXPECT_EQ(m.join_ref, nullable(a.at(0)));
    EXPECT_EQ(m.ref, nullable(a.at(1)));
    EXPECT_EQ(m.topic, a.at(2).as_string());
    EXPECT_EQ(m.event, a.at(3).as_string());
    EXPECT_EQ(parsed(m.payload), a.at(4));
  } else {
    const json::object& o = original.as_object();
    EXPECT_EQ(m.topic, o.at("topic").as_string());
    EXPECT_EQ(m.event, o.at("event").as_string());
    EXPECT_EQ(m.ref, nullable(o.at("ref")));
    EXPECT_EQ(parsed(m.payload), o.at("payload"));
    if (f.direction == Direction::ClientToServer && o.contains("join_ref")) {
      EXPECT_EQ(m.join_ref, nullable(o.at("join_ref")));
    } else {
      EXPECT_FALSE(m.join_ref);
    }
  }
  EXPECT_FALSE(m.binary);
  if (f.direction == Direction::ServerToClient && m.event == "phx_reply") {
    const json::value payload = parsed(m.payload);
    EXPECT_EQ(m.status, payload.at("status").as_string());
    EXPECT_EQ(parsed(reply_response(m)), payload.at("response"));
  } else {
    EXPECT_EQ(m.status, "");
  }
}

TEST(PhoenixCaptures, DecodesEveryFrameWithItsSerializerAndDirection) {
  const std::vector<CapturedFrame> frames = load_captured_frames();
  std::map<std::tuple<Serializer, Direction, bool>, int> count;
  for (const CapturedFrame& f : frames) {
    SCOPED_TRACE(describe(f));
    const Decoded d = decode(f.data, f.binary, f.serializer, f.direction);
    ASSERT_TRUE(std::holds_alternative<Message>(d)) << std::get<std::string>(d);
    const Message& m = std::get<Message>(d);
    ++count[{f.serializer, f.direction, f.binary}];
    if (!f.binary) {
      expect_fields_of_text_frame(f, m);
    } else {
      EXPECT_TRUE(m.binary);
      EXPECT_EQ(m.join_ref, "4");
      EXPECT_EQ(m.ref, "8");
      EXPECT_EQ(m.topic, "room:lobby");
      EXPECT_EQ(m.payload, bytes({0x00, 0x01, 0x02, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff}));
      if (f.direction == Direction::ClientToServer) {
        EXPECT_EQ(m.event, "binary");
      } else {
        EXPECT_EQ(m.event, "phx_reply");
        EXPECT_EQ(m.status, "ok");
        EXPECT_EQ(reply_response(m), m.payload);
      }
    }
    // The same frame read with the other serializer is refused, never misread.
    const Serializer other = f.serializer == Serializer::V1 ? Serializer::V2 : Serializer::V1;
    EXPECT_NE(error_of(f.data, f.binary, other, f.direction), "");
  }
  EXPECT_EQ(frames.size(), 98u);
  const auto n = [&](Serializer s, Direction d, bool b) { return count[{s, d, b}]; };
  EXPECT_EQ(n(Serializer::V1, Direction::ClientToServer, false), 20);
  EXPECT_EQ(n(Serializer::V1, Direction::ServerToClient, false), 28);
  EXPECT_EQ(n(Serializer::V2, Direction::ClientToServer, false), 20);
  EXPECT_EQ(n(Serializer::V2, Direction::ServerToClient, false), 28);
  EXPECT_EQ(n(Serializer::V2, Direction::ClientToServer, true), 1);
  EXPECT_EQ(n(Serializer::V2, Direction::ServerToClient, true), 1);
}

TEST(PhoenixCaptures, ReencodesEveryClientFrame) {
  int encoded = 0;
  for (const CapturedFrame& f : load_captured_frames()) {
    if (f.direction != Direction::ClientToServer) continue;
    SCOPED_TRACE(describe(f));
    const Message m = decoded(f.data, f.binary, f.serializer, f.direction);
    const Frame frame = encode(m, f.serializer, Direction::ClientToServer);
    EXPECT_EQ(frame.binary_frame, f.binary);
    expect_same(decoded(frame.data, frame.binary_frame, f.serializer, Direction::ClientToServer), m);
    if (f.binary) {
      EXPECT_EQ(frame.data, f.data);  // binary frames have one possible encoding
    } else {
      EXPECT_EQ(parsed(frame.data), parsed(f.data));  // the same JSON, field by field
    }
    ++encoded;
  }
  EXPECT_EQ(encoded, 41);
}

// The built-in target encodes what a Phoenix server sends: the same fields must come back.
TEST(PhoenixCaptures, ReencodesEveryServerFrame) {
  for (const CapturedFrame& f : load_captured_frames()) {
    if (f.direction != Direction::ServerToClient) continue;
    SCOPED_TRACE(describe(f));
    const Message m = decoded(f.data, f.binary, f.serializer, f.direction);
    const Frame frame = encode(m, f.serializer, Direction::ServerToClient);
    EXPECT_EQ(frame.binary_frame, f.binary);
    expect_same(decoded(frame.data, frame.binary_frame, f.serializer, Direction::ServerToClient), m);
    if (f.binary) {
      EXPECT_EQ(frame.data, f.data);
    } else {
      EXPECT_EQ(parsed(frame.data), parsed(f.data));
    }
  }
}

// --- V2 binary: the byte examples of phoenix-protocol.md §2.3 ---

TEST(PhoenixBinary, ClientPushHasAFiveByteHeaderWithRef) {
  const std::string frame = bytes({0x00, 0x02, 0x02, 0x05, 0x05, 0x31, 0x32, 0x31, 0x33, 0x6c, 0x76, 0x75, 0x3a, 0x30,
                                   0x63, 0x68, 0x75, 0x6e, 0x6b, 0x68, 0x65, 0x6c, 0x6c, 0x6f});
  const Message m = decoded(frame, true, Serializer::V2, Direction::ClientToServer);
  EXPECT_EQ(m.join_ref, "12");
  EXPECT_EQ(m.ref, "13");
  EXPECT_EQ(m.topic, "lvu:0");
  EXPECT_EQ(m.event, "chunk");
  EXPECT_EQ(m.payload, "hello");
  EXPECT_TRUE(m.binary);
  const Frame again = encode(m, Serializer::V2, Direction::ClientToServer);
  EXPECT_TRUE(again.binary_frame);
  EXPECT_EQ(again.data, frame);
}

TEST(PhoenixBinary, ServerPushHasAFourByteHeaderWithoutRef) {
  const std::string frame =
      bytes({0x00, 0x02, 0x06, 0x03, 0x31, 0x32, 0x72, 0x6f, 0x6f, 0x6d, 0x3a, 0x31, 0x69, 0x6d, 0x67, 0x89, 0x50, 0x00});
  const Message m = decoded(frame, true, Serializer::V2, Direction::ServerToClient);
  EXPECT_EQ(m.join_ref, "12");
  EXPECT_FALSE(m.ref);
  EXPECT_EQ(m.topic, "room:1");
  EXPECT_EQ(m.event, "img");
  EXPECT_EQ(m.payload, bytes({0x89, 0x50, 0x00}));
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, frame);
  // Read with the client layout, the same bytes claim more than there is: refused.
  EXPECT_NE(error_of(frame, true, Serializer::V2, Direction::ClientToServer), "");
}

TEST(PhoenixBinary, ReplyIsKindOneWithStatus) {
  const std::string frame = bytes({0x01, 0x02, 0x02, 0x06, 0x02, 0x31, 0x32, 0x31, 0x33, 0x72, 0x6f, 0x6f, 0x6d, 0x3a,
                                   0x31, 0x6f, 0x6b, 0xde, 0xad});
  const Message m = decoded(frame, true, Serializer::V2, Direction::ServerToClient);
  EXPECT_EQ(m.join_ref, "12");
  EXPECT_EQ(m.ref, "13");
  EXPECT_EQ(m.topic, "room:1");
  EXPECT_EQ(m.event, "phx_reply");
  EXPECT_EQ(m.status, "ok");
  EXPECT_EQ(m.payload, bytes({0xde, 0xad}));
  EXPECT_EQ(reply_response(m), bytes({0xde, 0xad}));
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, frame);
}

TEST(PhoenixBinary, BroadcastIsKindTwoWithoutRefs) {
  const std::string frame = bytes({0x02, 0x06, 0x03, 0x72, 0x6f, 0x6f, 0x6d, 0x3a, 0x31, 0x69, 0x6d, 0x67, 0x01, 0x02});
  const Message m = decoded(frame, true, Serializer::V2, Direction::ServerToClient);
  EXPECT_FALSE(m.join_ref);
  EXPECT_FALSE(m.ref);
  EXPECT_EQ(m.topic, "room:1");
  EXPECT_EQ(m.event, "img");
  EXPECT_EQ(m.payload, bytes({0x01, 0x02}));
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, frame);
}

TEST(PhoenixBinary, EmptyPayloadRunsToTheEndOfTheFrame) {
  const Message m = decoded(bytes({0x02, 0x01, 0x01, 'a', 'b'}), true, Serializer::V2, Direction::ServerToClient);
  EXPECT_EQ(m.topic, "a");
  EXPECT_EQ(m.event, "b");
  EXPECT_EQ(m.payload, "");
}

// §2.3/§3.1: the server sees an empty join_ref field as "", not null; a server writes its nil
// join_ref as an empty field, which phoenix.js routes as null.
TEST(PhoenixBinary, EmptyJoinRefIsEmptyFromAClientAndNullFromTheServer) {
  const std::string from_client = bytes({0x00, 0x00, 0x01, 0x01, 0x01, '7', 't', 'e', 'x'});
  const Message c = decoded(from_client, true, Serializer::V2, Direction::ClientToServer);
  EXPECT_EQ(c.join_ref, "");
  EXPECT_EQ(c.ref, "7");
  const std::string from_server = bytes({0x01, 0x00, 0x01, 0x01, 0x02, '7', 't', 'o', 'k'});
  const Message s = decoded(from_server, true, Serializer::V2, Direction::ServerToClient);
  EXPECT_FALSE(s.join_ref);
  EXPECT_EQ(s.ref, "7");
  EXPECT_EQ(encode(s, Serializer::V2, Direction::ServerToClient).data, from_server);
}

TEST(PhoenixBinary, NullRefsAreWrittenAsEmptyFields) {
  Message m;
  m.topic = "t";
  m.event = "e";
  m.payload = "x";
  m.binary = true;
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ClientToServer).data, bytes({0, 0, 0, 1, 1, 't', 'e', 'x'}));
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, bytes({2, 1, 1, 't', 'e', 'x'}));
  m.join_ref = "3";
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, bytes({0, 1, 1, 1, '3', 't', 'e', 'x'}));
}

TEST(PhoenixBinary, ServerPushesAndBroadcastsHaveNoRoomForARef) {
  Message m;
  m.topic = "t";
  m.event = "e";
  m.ref = "9";
  m.binary = true;
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ServerToClient), std::invalid_argument);
  m.join_ref = "3";
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ServerToClient), std::invalid_argument);
  m.event = "phx_reply";  // a reply has one
  EXPECT_NO_THROW(encode(m, Serializer::V2, Direction::ServerToClient));
}

TEST(PhoenixBinary, StringsOfMoreThan255BytesCannotBeEncoded) {
  Message m;
  m.topic = std::string(256, 't');
  m.event = "e";
  m.binary = true;
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ClientToServer), std::invalid_argument);
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ServerToClient), std::invalid_argument);
  m.topic = std::string(255, 't');
  const Frame ok = encode(m, Serializer::V2, Direction::ClientToServer);
  EXPECT_EQ(decoded(ok.data, true, Serializer::V2, Direction::ClientToServer).topic, m.topic);
  m.event = "phx_reply";
  m.status = std::string(256, 's');
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ServerToClient), std::invalid_argument);
  // JSON has no such limit.
  m.binary = false;
  m.payload = "{}";
  m.topic = std::string(256, 't');
  EXPECT_EQ(decoded(encode(m, Serializer::V2, Direction::ClientToServer).data, false, Serializer::V2,
                    Direction::ClientToServer)
                .topic,
            m.topic);
}

TEST(PhoenixBinary, V1HasNoBinaryFrames) {
  Message m;
  m.binary = true;
  EXPECT_THROW(encode(m, Serializer::V1, Direction::ClientToServer), std::invalid_argument);
  EXPECT_NE(error_of(bytes({2, 1, 1, 't', 'e'}), true, Serializer::V1, Direction::ServerToClient), "");
}

// --- V1 JSON ---

TEST(PhoenixV1, ServerPushesAndBroadcastsHaveANullRef) {
  const Message m = decoded(R"({"event":"new_msg","payload":{"body":"hi"},"ref":null,"topic":"room:lobby"})", false,
                            Serializer::V1, Direction::ServerToClient);
  EXPECT_FALSE(m.ref);
  EXPECT_FALSE(m.join_ref);
  EXPECT_EQ(m.event, "new_msg");
  EXPECT_EQ(m.payload, R"({"body":"hi"})");
  const std::string text = encode(m, Serializer::V1, Direction::ServerToClient).data;
  EXPECT_EQ(parsed(text), parsed(R"({"topic":"room:lobby","event":"new_msg","payload":{"body":"hi"},"ref":null})"));
}

TEST(PhoenixV1, ClientRefMayBeNullButNotMissing) {
  const Message m = decoded(R"({"topic":"phoenix","event":"heartbeat","payload":{},"ref":null})", false,
                            Serializer::V1, Direction::ClientToServer);
  EXPECT_FALSE(m.ref);
  EXPECT_FALSE(m.join_ref);
  EXPECT_NE(error_of(R"({"topic":"phoenix","event":"heartbeat","payload":{}})", false, Serializer::V1,
                     Direction::ClientToServer),
            "");
  for (const char* missing : {R"({"event":"e","payload":{},"ref":"1"})", R"({"topic":"t","payload":{},"ref":"1"})",
                              R"({"topic":"t","event":"e","ref":"1"})"}) {
    EXPECT_NE(error_of(missing, false, Serializer::V1, Direction::ClientToServer), "") << missing;
  }
}

TEST(PhoenixV1, JoinRefTravelsFromClientToServerOnly) {
  const char* text = R"({"topic":"t","event":"e","payload":{},"ref":"5","join_ref":"4"})";
  const Message from_client = decoded(text, false, Serializer::V1, Direction::ClientToServer);
  EXPECT_EQ(from_client.join_ref, "4");
  EXPECT_TRUE(parsed(encode(from_client, Serializer::V1, Direction::ClientToServer).data).as_object().contains("join_ref"));
  // Phoenix never sends join_ref to a V1 client: neither read nor written that way.
  const Message from_server = decoded(text, false, Serializer::V1, Direction::ServerToClient);
  EXPECT_FALSE(from_server.join_ref);
  EXPECT_FALSE(parsed(encode(from_client, Serializer::V1, Direction::ServerToClient).data).as_object().contains("join_ref"));
}

TEST(PhoenixV1, KeysInAnyOrderUnknownKeysIgnoredLastDuplicateWins) {
  const Message m = decoded(R"( { "ref" : "1" , "x" : [1, {"y": null}], "payload" : [ 1 , 2 ] ,
                                 "event":"a", "event":"b", "topic":"t\u00e9" } )",
                            false, Serializer::V1, Direction::ClientToServer);
  EXPECT_EQ(m.ref, "1");
  EXPECT_EQ(m.event, "b");
  EXPECT_EQ(m.topic, "t\xc3\xa9");
  EXPECT_EQ(m.payload, "[ 1 , 2 ]");
}

TEST(PhoenixV1, ServerReplyStatusAndResponseAreReadWhateverTheKeyOrder) {
  const Message m = decoded(R"({"payload":{"response":{"n":42},"status":"ok"},"ref":"6","topic":"t","event":"phx_reply"})",
                            false, Serializer::V1, Direction::ServerToClient);
  EXPECT_EQ(m.status, "ok");
  EXPECT_EQ(reply_response(m), R"({"n":42})");
}

TEST(PhoenixV1, ServerPayloadMustBeAnObject) {
  EXPECT_NE(error_of(R"({"topic":"t","event":"e","payload":[],"ref":null})", false, Serializer::V1,
                     Direction::ServerToClient),
            "");
  EXPECT_EQ(error_of(R"({"topic":"t","event":"e","payload":[],"ref":null})", false, Serializer::V1,
                     Direction::ClientToServer),
            "");
}

// --- V2 JSON ---

TEST(PhoenixV2, UnmatchedTopicReplyHasANullJoinRef) {
  const Message m = decoded(R"([null,"21","room:other","phx_reply",{"status":"error","response":{"reason":"unmatched topic"}}])",
                            false, Serializer::V2, Direction::ServerToClient);
  EXPECT_FALSE(m.join_ref);
  EXPECT_EQ(m.ref, "21");
  EXPECT_EQ(m.topic, "room:other");
  EXPECT_EQ(m.event, "phx_reply");
  EXPECT_EQ(m.status, "error");
  EXPECT_EQ(reply_response(m), R"({"reason":"unmatched topic"})");
}

TEST(PhoenixV2, PhxCloseAndErrorCarryTheJoinRefAsRef) {
  const Message m =
      decoded(R"(["3","3","room:lobby","phx_error",{"reason":"channel_crash"}])", false, Serializer::V2,
              Direction::ServerToClient);
  EXPECT_EQ(m.join_ref, "3");
  EXPECT_EQ(m.ref, "3");
  EXPECT_EQ(m.status, "");
  EXPECT_EQ(reply_response(m), "");
}

TEST(PhoenixV2, PayloadTextIsKeptExactly) {
  const char* frame = "[ \"1\" , null ,\"t\",\"e\" ,\n {\"b\" : 1.50e2, \"a\":[true , false]}\t]\n";
  const Message m = decoded(frame, false, Serializer::V2, Direction::ServerToClient);
  EXPECT_EQ(m.payload, "{\"b\" : 1.50e2, \"a\":[true , false]}");
  EXPECT_EQ(m.join_ref, "1");
  EXPECT_FALSE(m.ref);
}

TEST(PhoenixV2, ClientPayloadMayBeAnyJsonValueServerPayloadIsAnObject) {
  for (const char* payload : {"42", "\"x\"", "null", "[1,[2]]", "true", "-0.5e-3"}) {
    const std::string frame = std::string(R"(["1","2","t","e",)") + payload + "]";
    const Message m = decoded(frame, false, Serializer::V2, Direction::ClientToServer);
    EXPECT_EQ(m.payload, payload);
    EXPECT_NE(error_of(frame, false, Serializer::V2, Direction::ServerToClient), "") << frame;
  }
}

TEST(PhoenixV2, ElementsAfterTheFifthAreIgnoredButMustBeJson) {
  const Message m = decoded(R"(["1","2","t","e",{},"extra",[1]])", false, Serializer::V2, Direction::ClientToServer);
  EXPECT_EQ(m.payload, "{}");
  EXPECT_NE(error_of(R"(["1","2","t","e",{},nope])", false, Serializer::V2, Direction::ClientToServer), "");
}

TEST(PhoenixV2, EscapedHeaderStringsAreUnescaped) {
  const Message m = decoded(R"(["\u0031","a\"b","t\\x\n","\ud83d\ude00",{}])", false, Serializer::V2,
                            Direction::ClientToServer);
  EXPECT_EQ(m.join_ref, "1");
  EXPECT_EQ(m.ref, "a\"b");
  EXPECT_EQ(m.topic, "t\\x\n");
  EXPECT_EQ(m.event, "\xf0\x9f\x98\x80");
  expect_same(decoded(encode(m, Serializer::V2, Direction::ClientToServer).data, false, Serializer::V2,
                      Direction::ClientToServer),
              m);
}

TEST(PhoenixV2, EncodingSplicesThePayloadAndEscapesHeaderStrings) {
  Message m{.join_ref = "4",
            .ref = "5",
            .topic = "room:\"lobby\"",
            .event = std::string("tab\there\x01", 9),
            .payload = R"({"body" : "hi"})"};
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ClientToServer).data,
            R"(["4","5","room:\"lobby\"","tab\there\u0001",{"body" : "hi"}])");
  m.join_ref.reset();
  m.ref.reset();
  m.topic = "t";
  m.event = "e";
  m.payload = "{}";
  EXPECT_EQ(encode(m, Serializer::V2, Direction::ServerToClient).data, R"([null,null,"t","e",{}])");
}

TEST(PhoenixV2, EncodingRefusesWhatCannotBeValidJson) {
  Message m;
  m.topic = "t";
  m.event = "e";
  m.payload = "";
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ClientToServer), std::invalid_argument);
  m.payload = "  ";
  EXPECT_THROW(encode(m, Serializer::V1, Direction::ClientToServer), std::invalid_argument);
  m.payload = "[1]";
  EXPECT_NO_THROW(encode(m, Serializer::V2, Direction::ClientToServer));
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ServerToClient), std::invalid_argument);
  m.payload = "{}";
  m.topic = "bad \xff utf-8";
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ClientToServer), std::invalid_argument);
  m.topic = "surrogate \xed\xa0\x80";
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ClientToServer), std::invalid_argument);
  m.topic = "cut \xe2\x82";
  EXPECT_THROW(encode(m, Serializer::V2, Direction::ClientToServer), std::invalid_argument);
}

TEST(PhoenixV2, BuffersAreReusedAcrossCalls) {
  std::string out;
  MessageView v;
  v.join_ref = "1";
  v.ref = "2";
  v.topic = "a-rather-long-topic-name:12345";
  v.event = "new_msg";
  v.payload = R"({"body":"a payload long enough to need the heap"})";
  EXPECT_FALSE(encode_into(v, Serializer::V2, Direction::ClientToServer, out));
  const std::string first = out;
  v.payload = "{}";
  encode_into(v, Serializer::V2, Direction::ClientToServer, out);
  EXPECT_EQ(out, R"(["1","2","a-rather-long-topic-name:12345","new_msg",{}])");

  Message m;
  EXPECT_EQ(decode_into(R"(["1","2","t","phx_reply",{"status":"ok","response":{"a":1}}])", false, Serializer::V2,
                        Direction::ServerToClient, m),
            "");
  EXPECT_EQ(m.status, "ok");
  EXPECT_EQ(decode_into(first, false, Serializer::V2, Direction::ServerToClient, m), "");
  EXPECT_EQ(m.status, "");
  EXPECT_EQ(reply_response(m), "");
  EXPECT_EQ(m.topic, "a-rather-long-topic-name:12345");
  EXPECT_EQ(decode_into(bytes({2, 1, 1, 't', 'e'}), true, Serializer::V2, Direction::ServerToClient, m), "");
  EXPECT_TRUE(m.binary);
  EXPECT_EQ(decode_into(R"([null,null,"t","e",{}])", false, Serializer::V2, Direction::ServerToClient, m), "");
  EXPECT_FALSE(m.binary);
  EXPECT_FALSE(m.join_ref);
}

TEST(PhoenixV2, ReplyWithoutTheUsualShapeStillDecodes) {
  const Message m = decoded(R"(["1","2","t","phx_reply",{"status":7}])", false, Serializer::V2, Direction::ServerToClient);
  EXPECT_EQ(m.status, "");
  EXPECT_EQ(reply_response(m), "");
}

// --- Errors: a sentence, never a crash ---

TEST(PhoenixErrors, ShortBinaryHeaders) {
  for (const Direction d : {Direction::ClientToServer, Direction::ServerToClient}) {
    EXPECT_NE(error_of("", true, Serializer::V2, d), "");
    EXPECT_NE(error_of(bytes({0}), true, Serializer::V2, d), "");
    EXPECT_NE(error_of(bytes({0, 1, 1}), true, Serializer::V2, d), "");
  }
  // Lengths that run past the end of the frame.
  EXPECT_NE(error_of(bytes({0, 2, 2, 5, 5, '1', '2', '1', '3'}), true, Serializer::V2, Direction::ClientToServer), "");
  EXPECT_NE(error_of(bytes({0, 0, 0, 0, 255}), true, Serializer::V2, Direction::ClientToServer), "");
  EXPECT_NE(error_of(bytes({0, 2, 6, 3, '1', '2'}), true, Serializer::V2, Direction::ServerToClient), "");
  EXPECT_NE(error_of(bytes({1, 0, 0, 0, 2, 'o'}), true, Serializer::V2, Direction::ServerToClient), "");
  EXPECT_NE(error_of(bytes({1, 0, 0, 0}), true, Serializer::V2, Direction::ServerToClient), "");
  EXPECT_NE(error_of(bytes({2, 1, 1, 't'}), true, Serializer::V2, Direction::ServerToClient), "");
  EXPECT_NE(error_of(bytes({2, 1}), true, Serializer::V2, Direction::ServerToClient), "");
  // Exactly long enough is fine.
  EXPECT_EQ(error_of(bytes({0, 0, 0, 0, 0}), true, Serializer::V2, Direction::ClientToServer), "");
}

TEST(PhoenixErrors, UnknownBinaryKinds) {
  EXPECT_EQ(error_of(bytes({7, 0, 0, 0, 0}), true, Serializer::V2, Direction::ServerToClient),
            "unknown binary frame kind 7");
  EXPECT_NE(error_of(bytes({7, 0, 0, 0, 0}), true, Serializer::V2, Direction::ClientToServer), "");
  // The server accepts only kind 0 from a client.
  EXPECT_NE(error_of(bytes({1, 0, 0, 0, 0}), true, Serializer::V2, Direction::ClientToServer), "");
  EXPECT_NE(error_of(bytes({2, 0, 0}), true, Serializer::V2, Direction::ClientToServer), "");
}

TEST(PhoenixErrors, V2TextThatIsNotAFiveElementArray) {
  for (const Direction d : {Direction::ClientToServer, Direction::ServerToClient}) {
    EXPECT_NE(error_of(R"({"topic":"t","event":"e","payload":{},"ref":"1"})", false, Serializer::V2, d), "");
    EXPECT_NE(error_of(R"("just a string")", false, Serializer::V2, d), "");
    EXPECT_EQ(error_of(R"(["1","2","t","e"])", false, Serializer::V2, d),
              "a V2 frame is [join_ref, ref, topic, event, payload]: this one has 4 elements");
    EXPECT_NE(error_of("[]", false, Serializer::V2, d), "");
    EXPECT_NE(error_of(R"(["1"])", false, Serializer::V2, d), "");
  }
}

TEST(PhoenixErrors, WrongTypesInTheHeader) {
  for (const char* frame : {R"([1,"2","t","e",{}])", R"(["1",2,"t","e",{}])", R"(["1","2",null,"e",{}])",
                            R"(["1","2","t",["e"],{}])", R"(["1",{},"t","e",{}])"}) {
    EXPECT_NE(error_of(frame, false, Serializer::V2, Direction::ClientToServer), "") << frame;
  }
  EXPECT_NE(error_of(R"({"topic":1,"event":"e","payload":{},"ref":"1"})", false, Serializer::V1,
                     Direction::ClientToServer),
            "");
  EXPECT_NE(error_of(R"({"topic":"t","event":"e","payload":{},"ref":1})", false, Serializer::V1,
                     Direction::ClientToServer),
            "");
}

TEST(PhoenixErrors, InvalidJson) {
  for (const char* frame :
       {"", "   ", "[", R"(["1","2","t","e",{])", R"(["1","2","t","e",{})", R"(["1","2","t","e",{}]x)",
        R"(["1","2","t","e",{}],)", R"(["1" "2","t","e",{}])", R"(["1","2","t","e",{"a":}])",
        R"(["1","2","t","e",42)", R"(["\ud800","2","t","e",{}])", "[\"1\",\"2\",\"t\",\"e\",\"\xff\"]",
        R"(["1","2","t","e",{},])", "nul", R"(["1","2","t","e",tru])"}) {
    EXPECT_NE(error_of(frame, false, Serializer::V2, Direction::ClientToServer), "") << frame;
    EXPECT_NE(error_of(frame, false, Serializer::V2, Direction::ServerToClient), "") << frame;
  }
  for (const char* frame : {"{", R"({"topic":"t","event":"e","payload":{},"ref":"1")", R"({"topic" "t"})",
                            R"({"topic":"t",})", R"({"topic":"t","event":"e","payload":{},"ref":"1"} {})",
                            R"({1:"t"})"}) {
    EXPECT_NE(error_of(frame, false, Serializer::V1, Direction::ClientToServer), "") << frame;
    EXPECT_NE(error_of(frame, false, Serializer::V1, Direction::ServerToClient), "") << frame;
  }
}

TEST(PhoenixErrors, NestingIsBoundedButGenerous) {
  const auto nested = [](int depth) {
    return std::string(R"(["1","2","t","e",)") + std::string(depth - 1, '[') + "{}" + std::string(depth - 1, ']') +
           "]";
  };
  EXPECT_EQ(error_of(nested(200), false, Serializer::V2, Direction::ClientToServer), "");
  EXPECT_NE(error_of(nested(100000), false, Serializer::V2, Direction::ClientToServer), "");
}

// --- Replies ---

TEST(PhoenixReply, SplitsStatusAndResponse) {
  std::string status, response;
  ASSERT_TRUE(split_reply(R"( {"response": {"n": 42, "s": "x"}, "status": "ok"} )", status, response));
  EXPECT_EQ(status, "ok");
  EXPECT_EQ(response, R"({"n": 42, "s": "x"})");
  ASSERT_TRUE(split_reply(R"({"status":"error","response":{"reason":"unauthorized"},"extra":1})", status, response));
  EXPECT_EQ(status, "error");
  EXPECT_EQ(response, R"({"reason":"unauthorized"})");
}

TEST(PhoenixReply, RefusesOtherShapes) {
  std::string status = "unchanged", response = "unchanged";
  for (const char* payload : {"", "{}", "[]", R"({"status":"ok"})", R"({"response":{}})", R"({"status":1,"response":{}})",
                              R"({"status":"ok","response":{})", R"({"status":"ok","response":{}} x)", "nope"}) {
    EXPECT_FALSE(split_reply(payload, status, response)) << payload;
  }
  EXPECT_EQ(status, "unchanged");
  EXPECT_EQ(response, "unchanged");
}

TEST(PhoenixReply, ServerBuildsTheReplyPayload) {
  const std::string payload = reply_payload("ok", R"({"n":42})");
  EXPECT_EQ(payload, R"({"status":"ok","response":{"n":42}})");
  std::string status, response;
  ASSERT_TRUE(split_reply(payload, status, response));
  EXPECT_EQ(status, "ok");
  EXPECT_EQ(response, R"({"n":42})");
  EXPECT_THROW(reply_payload("ok", ""), std::invalid_argument);
  EXPECT_THROW(reply_payload("\xc0\xaf", "{}"), std::invalid_argument);
}

}  // namespace
}  // namespace stampede::proto::phx
