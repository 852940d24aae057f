#include "proto/socket_io.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace stampede::proto::sio {
namespace {

namespace json = boost::json;

json::value parsed(std::string_view text) { return json::parse(text); }

std::string error_of(std::string_view text) {
  PacketDecoder decoder;
  EXPECT_EQ(decoder.add_text(text), PacketDecoder::Step::Error) << text;
  return decoder.error();
}

Packet decoded(std::string_view text) {
  PacketDecoder decoder;
  const auto step = decoder.add_text(text);
  if (step != PacketDecoder::Step::Packet) throw std::runtime_error(decoder.error());
  return std::move(decoder.packet());
}

// ---- Vectors from socket.io-parser 4.2.7 (tests/vectors/socket-io/generate.cjs) ---------

struct Vector {
  Packet packet;
  std::string text;
};

Packet make(PacketType type, std::string nsp, std::optional<std::uint64_t> id, std::optional<std::string_view> data_json,
            std::vector<std::string> attachments = {}) {
  Packet p;
  p.type = type;
  p.nsp = std::move(nsp);
  p.id = id;
  if (data_json) p.data = parsed(*data_json);
  p.attachments = std::move(attachments);
  return p;
}

const std::vector<Vector>& vectors() {
  static const std::vector<Vector> v = {
      {make(PacketType::Connect, "/", {}, {}), "0"},
      {make(PacketType::Connect, "/admin", {}, R"({"token":"123"})"), R"(0/admin,{"token":"123"})"},
      {make(PacketType::Connect, "/", {}, R"({"sid":"oSO0OpakMV_3jnilAAAA"})"), R"(0{"sid":"oSO0OpakMV_3jnilAAAA"})"},
      {make(PacketType::Disconnect, "/admin", {}, {}), "1/admin,"},
      {make(PacketType::Event, "/", {}, R"(["chat message","hi"])"), R"(2["chat message","hi"])"},
      {make(PacketType::Event, "/chat", {}, R"(["join",{"room":42,"tags":["a","b"]}])"),
       R"(2/chat,["join",{"room":42,"tags":["a","b"]}])"},
      {make(PacketType::Event, "/", 12, R"(["ping",1,true,null])"), R"(212["ping",1,true,null])"},
      {make(PacketType::Event, "/", {}, R"([7,"numeric event"])"), R"(2[7,"numeric event"])"},
      {make(PacketType::Ack, "/", 12, R"(["pong"])"), R"(312["pong"])"},
      {make(PacketType::Ack, "/chat", 3, "[]"), "3/chat,3[]"},
      {make(PacketType::ConnectError, "/", {}, R"({"message":"Not authorized"})"), R"(4{"message":"Not authorized"})"},
      {make(PacketType::ConnectError, "/admin", {}, R"("Invalid namespace")"), R"(4/admin,"Invalid namespace")"},
  };
  return v;
}

TEST(SocketIo, EncodesAsSocketIoParser) {
  for (const Vector& v : vectors()) EXPECT_EQ(encode(v.packet), v.text);
}

TEST(SocketIo, DecodesWhatSocketIoParserEncodes) {
  for (const Vector& v : vectors()) {
    const Packet p = decoded(v.text);
    EXPECT_EQ(p.type, v.packet.type) << v.text;
    EXPECT_EQ(p.nsp, v.packet.nsp) << v.text;
    EXPECT_EQ(p.id, v.packet.id) << v.text;
    EXPECT_EQ(p.data, v.packet.data) << v.text;
    EXPECT_TRUE(p.attachments.empty());
  }
}

TEST(SocketIo, BinaryEventsAsSocketIoParserWritesThem) {
  // emit("upload", Buffer<de ad be ef>)
  Packet upload = make(PacketType::Event, "/", {}, {}, {"\xde\xad\xbe\xef"});
  upload.data = json::array{"upload", placeholder(0)};
  EXPECT_EQ(encode(upload), R"(51-["upload",{"_placeholder":true,"num":0}])");

  // emit on /files with an ack: ["two", {a: Buffer("first"), b: [Buffer<00 01 02>]}]
  Packet two = make(PacketType::Event, "/files", 9, {}, {"first", std::string("\x00\x01\x02", 3)});
  two.data = json::array{"two", json::object{{"a", placeholder(0)}, {"b", json::array{placeholder(1)}}}};
  EXPECT_EQ(encode(two), R"(52-/files,9["two",{"a":{"_placeholder":true,"num":0},"b":[{"_placeholder":true,"num":1}]}])");

  // an ack answered with a buffer
  Packet ack = make(PacketType::Ack, "/", 5, {}, {"\x09\x08\x07"});
  ack.data = json::array{placeholder(0)};
  EXPECT_EQ(encode(ack), R"(61-5[{"_placeholder":true,"num":0}])");
}

TEST(SocketIo, ReassemblesABinaryEventFromItsAttachments) {
  PacketDecoder decoder;
  ASSERT_EQ(decoder.add_text(R"(52-/files,9["two",{"a":{"_placeholder":true,"num":0},"b":[{"_placeholder":true,"num":1}]}])"),
            PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.attachments_missing(), 2u);
  ASSERT_EQ(decoder.add_binary("first"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.attachments_missing(), 1u);
  ASSERT_EQ(decoder.add_binary(std::string("\x00\x01\x02", 3)), PacketDecoder::Step::Packet);
  EXPECT_EQ(decoder.attachments_missing(), 0u);

  // socket.io-parser hands this to the application as type 2 (EVENT), nsp /files, id 9.
  const Packet& p = decoder.packet();
  EXPECT_EQ(p.type, PacketType::Event);
  EXPECT_EQ(p.nsp, "/files");
  EXPECT_EQ(p.id, 9u);
  ASSERT_TRUE(p.data);
  const json::array& args = p.data->as_array();
  const std::string* a = attachment_of(p, args[1].as_object().at("a"));
  const std::string* b = attachment_of(p, args[1].as_object().at("b").as_array()[0]);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, "first");
  EXPECT_EQ(*b, std::string("\x00\x01\x02", 3));
  EXPECT_EQ(attachment_of(p, args[0]), nullptr);

  // The decoder is ready for the next packet.
  EXPECT_EQ(decoder.add_text(R"(2["next"])"), PacketDecoder::Step::Packet);
  EXPECT_TRUE(decoder.packet().attachments.empty());
}

TEST(SocketIo, ReassemblerErrorsAreSocketIoParsers) {
  PacketDecoder decoder;
  // socket.io-parser: "illegal attachments"
  ASSERT_EQ(decoder.add_text(R"(51-["x",{"_placeholder":true,"num":1}])"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.add_binary("\x01"), PacketDecoder::Step::Error);
  EXPECT_EQ(decoder.error(), "socket.io: illegal attachments: a placeholder names no attachment");
  // "got plaintext data when reconstructing a packet"
  ASSERT_EQ(decoder.add_text(R"(52-["x"])"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.add_text(R"(2["y"])"), PacketDecoder::Step::Error);
  EXPECT_EQ(decoder.error(), "socket.io: got text while 2 attachment(s) were awaited");
  // "got binary data when not reconstructing a packet"
  EXPECT_EQ(decoder.add_binary("x"), PacketDecoder::Step::Error);
  EXPECT_EQ(decoder.error(), "socket.io: got binary data while no packet awaited attachments");
  // After an error the decoder starts afresh.
  EXPECT_EQ(decoder.add_text(R"(2["ok"])"), PacketDecoder::Step::Packet);
  // A placeholder whose num is not an integer.
  ASSERT_EQ(decoder.add_text(R"(61-[{"_placeholder":true,"num":"0"}])"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.add_binary("x"), PacketDecoder::Step::Error);
  ASSERT_EQ(decoder.add_text(R"(61-[{"_placeholder":true,"num":-1}])"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.add_binary("x"), PacketDecoder::Step::Error);
  // {"_placeholder": false} is ordinary data.
  ASSERT_EQ(decoder.add_text(R"(51-["e",{"_placeholder":false,"num":5}])"), PacketDecoder::Step::NeedAttachments);
  EXPECT_EQ(decoder.add_binary("x"), PacketDecoder::Step::Packet);
}

TEST(SocketIo, BadPacketsAreErrorsAsInSocketIoParser) {
  // Each of these makes socket.io-parser 4.2.7 throw (generate.cjs records which message).
  EXPECT_EQ(error_of("7"), "socket.io: unknown packet type '7'");                  // unknown packet type 7
  EXPECT_EQ(error_of(R"(2chat,["a"])"), "socket.io: invalid payload: not JSON (syntax error)");  // invalid payload
  EXPECT_EQ(error_of(R"(2["connect"])"), R"(socket.io: invalid payload: "connect" is a reserved event name)");
  EXPECT_EQ(error_of("2{}"), "socket.io: invalid payload: EVENT data must be an array starting with the event name");
  EXPECT_EQ(error_of("2[]"), "socket.io: invalid payload: EVENT data must be an array starting with the event name");
  EXPECT_EQ(error_of("2[null]"), "socket.io: invalid payload: the event name must be a string or a number");
  EXPECT_EQ(error_of("0[]"), "socket.io: invalid payload: CONNECT data must be an object");
  EXPECT_EQ(error_of("1{}"), "socket.io: invalid payload: DISCONNECT carries no data");
  EXPECT_EQ(error_of("3{}"), "socket.io: invalid payload: ACK data must be an array");
  EXPECT_EQ(error_of("4[1]"), "socket.io: invalid payload: CONNECT_ERROR data must be a string or an object");
  EXPECT_EQ(error_of(R"(5-["a"])"), "socket.io: illegal attachments: no '<count>-' after the type");  // Illegal attachments
  EXPECT_EQ(error_of(R"(5["a"])"), "socket.io: illegal attachments: no '<count>-' after the type");
  EXPECT_EQ(error_of("51"), "socket.io: illegal attachments: no '<count>-' after the type");
  EXPECT_EQ(error_of(R"(50-["a"])"), "socket.io: illegal attachments: the count must be at least 1");
  EXPECT_EQ(error_of(R"(511-["a"])"), "socket.io: too many attachments (the limit is 10)");  // too many attachments
  EXPECT_EQ(error_of(R"(599999999999999999999999-["a"])"), "socket.io: too many attachments (the limit is 10)");
  EXPECT_EQ(error_of(R"(2["a")"), "socket.io: invalid payload: not JSON (incomplete JSON)");
  EXPECT_EQ(error_of("2/chat,x"), "socket.io: invalid payload: not JSON (syntax error)");
  EXPECT_EQ(error_of("29007199254740992[\"a\"]"), "socket.io: the ack id is above 2^53-1");
  EXPECT_EQ(error_of("2123456789012345678901234567890[\"a\"]"), "socket.io: the ack id is above 2^53-1");
  // socket.io-parser reads "" as CONNECT to "/" (Number("") is 0); nothing sends it, so here it
  // is an error.
  EXPECT_EQ(error_of(""), "socket.io: empty packet");
}

TEST(SocketIo, ALimitBelowNineAttachmentsHolds) {
  // Found by fuzz_engine_io: with a limit of 3, "14" went through (3 - 4 wrapped around).
  for (const char* text : {R"(54-["a"])", R"(514-["a"])", R"(59-["a"])", R"(530-["a"])"}) {
    PacketDecoder decoder(3);
    EXPECT_EQ(decoder.add_text(text), PacketDecoder::Step::Error) << text;
    EXPECT_EQ(decoder.error(), "socket.io: too many attachments (the limit is 3)") << text;
  }
  PacketDecoder decoder(3);
  EXPECT_EQ(decoder.add_text(R"(53-["a"])"), PacketDecoder::Step::NeedAttachments);
  PacketDecoder none(0);
  EXPECT_EQ(none.add_text(R"(51-["a"])"), PacketDecoder::Step::Error);
}

TEST(SocketIo, HeaderCornersFollowSocketIoParser) {
  // The largest exact ack id.
  EXPECT_EQ(decoded("29007199254740991[\"a\"]").id, 9007199254740991u);
  // A namespace ends at the comma or at the end of the text.
  EXPECT_EQ(decoded("0/chat").nsp, "/chat");
  EXPECT_FALSE(decoded("0/chat").data);
  EXPECT_EQ(decoded("1/chat,").nsp, "/chat");
  // An EVENT without data decodes (socket.io-client then emits nothing useful).
  EXPECT_FALSE(decoded("2").data);
  // socket.io-parser reads a space where an ack id could start as id 0 (Number(" ") is 0);
  // here the space is the JSON's leading whitespace and there is no ack id.
  const Packet spaced = decoded("2 [\"a\"]");
  EXPECT_FALSE(spaced.id);
  EXPECT_EQ(spaced.data, parsed(R"(["a"])"));
}

TEST(SocketIo, EncodingRefusesPacketsNoPeerAccepts) {
  const auto with = [](PacketType type, std::string_view data, std::vector<std::string> attachments = {}) {
    return make(type, "/", {}, data, std::move(attachments));
  };
  EXPECT_THROW(encode(with(PacketType::Event, "{}")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::Event, R"(["disconnect"])")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::Connect, "[]")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::Disconnect, "{}")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::Ack, "{}")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::ConnectError, "[1]")), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::Connect, "{}", {"x"})), std::invalid_argument);
  EXPECT_THROW(encode(with(PacketType::BinaryEvent, R"(["a"])")), std::invalid_argument);
  Packet dangling = with(PacketType::Event, R"(["a",{"_placeholder":true,"num":1}])", {"x"});
  EXPECT_THROW(encode(dangling), std::invalid_argument);
  Packet bad_nsp = with(PacketType::Event, R"(["a"])");
  bad_nsp.nsp = "chat";
  EXPECT_THROW(encode(bad_nsp), std::invalid_argument);
  bad_nsp.nsp = "/a,b";
  EXPECT_THROW(encode(bad_nsp), std::invalid_argument);
  Packet huge_id = with(PacketType::Event, R"(["a"])");
  huge_id.id = kMaxAckId + 1;
  EXPECT_THROW(encode(huge_id), std::invalid_argument);
  // Outside a binary packet a placeholder is plain data.
  EXPECT_EQ(encode(with(PacketType::Event, R"(["a",{"_placeholder":true,"num":1}])")), R"(2["a",{"_placeholder":true,"num":1}])");
  // An explicit BINARY_EVENT with attachments is written as one.
  Packet binary = with(PacketType::BinaryEvent, R"(["a",{"_placeholder":true,"num":0}])", {"x"});
  EXPECT_EQ(encode(binary), R"(51-["a",{"_placeholder":true,"num":0}])");
}

TEST(SocketIo, NumbersTooLargeForADoubleAreWrittenAsJsonStringifyDoes) {
  // JSON.parse reads 1e999 as Infinity, JSON.stringify writes it as null.
  const Packet p = decoded(R"(2["n",1e999,[-1e999],{"x":1e999}])");
  EXPECT_EQ(encode(p), R"(2["n",null,[null],{"x":null}])");
}

TEST(SocketIo, EncodedPacketsDecodeToThemselves) {
  for (const Vector& v : vectors()) {
    const Packet p = decoded(encode(v.packet));
    EXPECT_EQ(p.data, v.packet.data);
  }
}

}  // namespace
}  // namespace stampede::proto::sio
