#include "proto/graphql_ws.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"

namespace stampede::proto::gql {
namespace {

namespace json = boost::json;
using Type = ServerMessage::Type;
constexpr Subprotocol kTransport = Subprotocol::GraphqlTransportWs;
constexpr Subprotocol kLegacy = Subprotocol::GraphqlWs;

ServerMessage decoded(Subprotocol subprotocol, std::string_view frame) {
  Decoded d = decode_server_message(subprotocol, frame);
  if (const auto* error = std::get_if<std::string>(&d)) throw std::runtime_error(*error);
  return std::get<ServerMessage>(std::move(d));
}

std::string error_of(Subprotocol subprotocol, std::string_view frame) {
  Decoded d = decode_server_message(subprotocol, frame);
  const auto* error = std::get_if<std::string>(&d);
  return error ? *error : std::string("(decoded)");
}

// Frames recorded between the real clients and servers (tests/vectors/graphql-ws/generate.cjs):
// graphql-ws 6.4.2 client and server (graphql-transport-ws), subscriptions-transport-ws 0.11.0
// client and server (graphql-ws), graphql 16.15.0.

TEST(GraphqlTransportWs, ClientMessagesAsGraphqlWsWritesThem) {
  EXPECT_EQ(encode_connection_init(kTransport, R"({"authToken":"secret"})"),
            R"({"type":"connection_init","payload":{"authToken":"secret"}})");
  EXPECT_EQ(encode_connection_init(kTransport), R"({"type":"connection_init"})");
  EXPECT_EQ(encode_subscribe(kTransport, "35a9760e-638d-4ae1-ad30-ff58ce6bd36c",
                             {"subscription Count($to: Int) { count(to: $to) }", R"({"to":2})", "Count", ""}),
            R"({"id":"35a9760e-638d-4ae1-ad30-ff58ce6bd36c","type":"subscribe","payload":{"query":"subscription Count($to: Int) { count(to: $to) }","variables":{"to":2},"operationName":"Count"}})");
  EXPECT_EQ(encode_subscribe(kTransport, "6b26cec2-375e-4210-b74b-514cbaee859b", {"{ hello(name: \"\xC3\xA9\") }"}),
            "{\"id\":\"6b26cec2-375e-4210-b74b-514cbaee859b\",\"type\":\"subscribe\",\"payload\":{\"query\":\"{ hello(name: "
            "\\\"\xC3\xA9\\\") }\"}}");
  EXPECT_EQ(encode_ping(kTransport), R"({"type":"ping"})");
  EXPECT_EQ(encode_pong(kTransport), R"({"type":"pong"})");
  EXPECT_EQ(encode_pong(kTransport, R"({"t": 1})"), R"({"type":"pong","payload":{"t": 1}})");
  EXPECT_EQ(encode_complete(kTransport, "7174d3de-bc5f-4b88-9b8d-434fab269efa"),
            R"({"id":"7174d3de-bc5f-4b88-9b8d-434fab269efa","type":"complete"})");
  // Extensions, in the order the PROTOCOL.md interface lists the fields after query.
  EXPECT_EQ(encode_subscribe(kTransport, "1", {"{ a }", "", "", R"({"persistedQuery":{"version":1}})"}),
            R"({"id":"1","type":"subscribe","payload":{"query":"{ a }","extensions":{"persistedQuery":{"version":1}}}})");
}

TEST(GraphqlTransportWs, ServerMessagesFromGraphqlWs) {
  ServerMessage m = decoded(kTransport, R"({"type":"connection_ack"})");
  EXPECT_EQ(m.type, Type::ConnectionAck);
  EXPECT_EQ(m.id, "");
  EXPECT_EQ(m.payload, "");

  m = decoded(kTransport, R"({"id":"35a9760e-638d-4ae1-ad30-ff58ce6bd36c","type":"next","payload":{"data":{"count":1}}})");
  EXPECT_EQ(m.type, Type::Next);
  EXPECT_EQ(m.id, "35a9760e-638d-4ae1-ad30-ff58ce6bd36c");
  EXPECT_EQ(m.payload, R"({"data":{"count":1}})");

  m = decoded(kTransport,
              R"({"id":"3b1b638d-2057-4cb3-912a-196fd88b7168","type":"next","payload":{"data":{"boom":null},"errors":[{"message":"boom","locations":[{"line":1,"column":3}],"path":["boom"]}]}})");
  EXPECT_EQ(m.type, Type::Next);
  EXPECT_EQ(m.payload, R"({"data":{"boom":null},"errors":[{"message":"boom","locations":[{"line":1,"column":3}],"path":["boom"]}]})");

  m = decoded(kTransport,
              R"({"id":"7b5ae982-6877-472e-8322-113c421aff13","type":"error","payload":[{"message":"Cannot query field \"nope\" on type \"Query\".","locations":[{"line":1,"column":3}]}]})");
  EXPECT_EQ(m.type, Type::Error);
  EXPECT_EQ(m.id, "7b5ae982-6877-472e-8322-113c421aff13");
  EXPECT_EQ(m.payload, R"([{"message":"Cannot query field \"nope\" on type \"Query\".","locations":[{"line":1,"column":3}]}])");

  EXPECT_EQ(decoded(kTransport, R"({"id":"a","type":"complete"})").type, Type::Complete);
  EXPECT_EQ(decoded(kTransport, R"({"type":"pong"})").type, Type::Pong);
  EXPECT_EQ(decoded(kTransport, R"({"type":"ping","payload":null})").payload, "");
  EXPECT_EQ(decoded(kTransport, R"( { "payload" : { "x" : [1] } , "type" : "ping" } )").payload, R"({ "x" : [1] })");
  // Unknown keys are ignored; the id is unescaped.
  m = decoded(kTransport, R"({"type":"complete","id":"a\u00e9\"b","extra":{"deep":[1,2]}})");
  EXPECT_EQ(m.id, "a\xC3\xA9\"b");
}

TEST(GraphqlTransportWs, BadServerMessagesAreErrors) {
  // What graphql-ws 6's validateMessage refuses, and JSON that is not a message at all.
  EXPECT_EQ(error_of(kTransport, "{"), "graphql-transport-ws: invalid JSON at byte 1 (truncated)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next"} x)"), "graphql-transport-ws: invalid JSON at byte 16");
  EXPECT_EQ(error_of(kTransport, "[1]"), "graphql-transport-ws: the message is not a JSON object");
  EXPECT_EQ(error_of(kTransport, "{}"), R"(graphql-transport-ws: the message has no "type")");
  EXPECT_EQ(error_of(kTransport, R"({"type":""})"), R"(graphql-transport-ws: the message has no "type")");
  EXPECT_EQ(error_of(kTransport, R"({"type":1})"), R"(graphql-transport-ws: "type" is not a string)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"ka"})"), R"(graphql-transport-ws: unknown message type "ka")");
  EXPECT_EQ(error_of(kTransport, R"({"type":"subscribe","id":"1","payload":{"query":"{a}"}})"),
            R"(graphql-transport-ws: "subscribe" is a client message, not one a server sends)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next","payload":{}})"),
            R"(graphql-transport-ws: "next" message: needs a non-empty string "id")");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next","id":"","payload":{}})"),
            R"(graphql-transport-ws: "next" message: needs a non-empty string "id")");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next","id":7,"payload":{}})"),
            R"(graphql-transport-ws: "next" message: "id" is not a string)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next","id":"1","payload":[]})"),
            R"(graphql-transport-ws: "next" message: the payload must be an object, not an array)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"next","id":"1"})"),
            R"(graphql-transport-ws: "next" message: the payload must be an object, not missing)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"error","id":"1","payload":[]})"),
            R"(graphql-transport-ws: "error" message: the payload must be a non-empty array of GraphQL errors (objects with "message"))");
  EXPECT_EQ(error_of(kTransport, R"({"type":"error","id":"1","payload":[{"msg":"x"}]})"),
            R"(graphql-transport-ws: "error" message: the payload must be a non-empty array of GraphQL errors (objects with "message"))");
  EXPECT_EQ(error_of(kTransport, R"({"type":"error","id":"1","payload":{"message":"x"}})"),
            R"(graphql-transport-ws: "error" message: the payload must be a non-empty array of GraphQL errors (objects with "message"))");
  EXPECT_EQ(error_of(kTransport, R"({"type":"connection_ack","payload":"yes"})"),
            R"(graphql-transport-ws: "connection_ack" message: the payload must be an object, null or absent, not a string)");
  EXPECT_EQ(error_of(kTransport, R"({"type":"complete"})"),
            R"(graphql-transport-ws: "complete" message: needs a non-empty string "id")");
  // Huge numbers are just JSON numbers in a payload.
  EXPECT_EQ(decoded(kTransport, R"({"type":"next","id":"1","payload":{"n":1e999999}})").type, Type::Next);
}

TEST(GraphqlWsLegacy, ClientMessagesAsSubscriptionsTransportWsWritesThem) {
  EXPECT_EQ(encode_connection_init(kLegacy, R"({"authToken":"secret"})"),
            R"({"type":"connection_init","payload":{"authToken":"secret"}})");
  // SubscriptionClient's connectionParams default to {}.
  EXPECT_EQ(encode_connection_init(kLegacy), R"({"type":"connection_init","payload":{}})");
  EXPECT_EQ(encode_subscribe(kLegacy, "1", {"subscription Count($to: Int) { count(to: $to) }", R"({"to":2})", "Count"}),
            R"({"id":"1","type":"start","payload":{"query":"subscription Count($to: Int) { count(to: $to) }","variables":{"to":2},"operationName":"Count"}})");
  EXPECT_EQ(encode_subscribe(kLegacy, "4", {"{ nope }"}), R"({"id":"4","type":"start","payload":{"query":"{ nope }"}})");
  EXPECT_EQ(encode_complete(kLegacy, "5"), R"({"id":"5","type":"stop"})");
  EXPECT_EQ(encode_connection_terminate(kLegacy), R"({"type":"connection_terminate","payload":null})");
}

TEST(GraphqlWsLegacy, ServerMessagesFromSubscriptionsTransportWs) {
  EXPECT_EQ(decoded(kLegacy, R"({"type":"connection_ack"})").type, Type::ConnectionAck);
  EXPECT_EQ(decoded(kLegacy, R"({"type":"ka"})").type, Type::KeepAlive);
  ServerMessage m = decoded(kLegacy, R"({"type":"data","id":"1","payload":{"data":{"count":1}}})");
  EXPECT_EQ(m.type, Type::Next);
  EXPECT_EQ(m.id, "1");
  EXPECT_EQ(m.payload, R"({"data":{"count":1}})");
  m = decoded(kLegacy, R"({"type":"complete","id":"1","payload":null})");
  EXPECT_EQ(m.type, Type::Complete);
  EXPECT_EQ(m.payload, "");
  m = decoded(kLegacy, R"({"type":"connection_error","payload":{"message":"bad token"}})");
  EXPECT_EQ(m.type, Type::ConnectionError);
  EXPECT_EQ(m.payload, R"({"message":"bad token"})");
  // sendError(ctx, opId, {message}) writes type, id, payload; a connection-level one has no id.
  m = decoded(kLegacy, R"({"type":"error","id":"3","payload":{"message":"Invalid message type!"}})");
  EXPECT_EQ(m.type, Type::Error);
  EXPECT_EQ(m.id, "3");
  EXPECT_EQ(decoded(kLegacy, R"({"type":"error","payload":{"message":"x"}})").id, "");
  EXPECT_EQ(decoded(kLegacy, R"({"type":"error","id":null,"payload":{"message":"x"}})").id, "");
}

TEST(GraphqlWsLegacy, BadServerMessagesAreErrors) {
  // SubscriptionClient throws 'Invalid message type!' for these.
  EXPECT_EQ(error_of(kLegacy, R"({"type":"next","id":"1","payload":{}})"), R"(graphql-ws: unknown message type "next")");
  EXPECT_EQ(error_of(kLegacy, R"({"type":"pong"})"), R"(graphql-ws: unknown message type "pong")");
  EXPECT_EQ(error_of(kLegacy, R"({"type":"subscription_data","id":"1"})"),
            R"(graphql-ws: unknown message type "subscription_data")");
  // data is routed by id and read as an object.
  EXPECT_EQ(error_of(kLegacy, R"({"type":"data","payload":{}})"), R"(graphql-ws: "data" message: needs a non-empty string "id")");
  EXPECT_EQ(error_of(kLegacy, R"({"type":"data","id":"1","payload":null})"),
            R"(graphql-ws: "data" message: the payload must be an object, not null)");
  EXPECT_EQ(error_of(kLegacy, R"({"type":"complete"})"), R"(graphql-ws: "complete" message: needs a non-empty string "id")");
  EXPECT_EQ(error_of(kLegacy, "not json"), "graphql-ws: invalid JSON at byte 0 (syntax error)");
}

TEST(GraphqlWs, EncodingRefusesWhatNoServerAccepts) {
  for (const Subprotocol sp : {kTransport, kLegacy}) {
    EXPECT_THROW(encode_connection_init(sp, "[1]"), std::invalid_argument);
    EXPECT_THROW(encode_connection_init(sp, "{"), std::invalid_argument);
    EXPECT_THROW(encode_subscribe(sp, "", {"{ a }"}), std::invalid_argument);
    EXPECT_THROW(encode_subscribe(sp, "1", {"{ a }", "[]"}), std::invalid_argument);
    EXPECT_THROW(encode_subscribe(sp, "1", {"{ a }", "", "", "5"}), std::invalid_argument);
    EXPECT_THROW(encode_subscribe(sp, "1", {"\xff"}), std::invalid_argument);
    EXPECT_THROW(encode_complete(sp, ""), std::invalid_argument);
  }
  EXPECT_THROW(encode_ping(kLegacy), std::invalid_argument);
  EXPECT_THROW(encode_pong(kLegacy), std::invalid_argument);
  EXPECT_THROW(encode_connection_terminate(kTransport), std::invalid_argument);
  EXPECT_EQ(subprotocol_name(kTransport), "graphql-transport-ws");
  EXPECT_EQ(subprotocol_name(kLegacy), "graphql-ws");
}

// Every frame of the recorded sessions: each server frame decodes; each client frame is
// what the encoder writes for the same message.
TEST(GraphqlWs, EveryRecordedFrame) {
  const auto path = stampede::testing::tests_dir() / "vectors/graphql-ws/vectors.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  int server_frames = 0, client_frames = 0;
  while (std::getline(in, line)) {
    const json::object record = json::parse(line).as_object();
    const Subprotocol sp = record.at("protocol").as_string() == "graphql-transport-ws" ? kTransport : kLegacy;
    const std::string frame(record.at("frame").as_string());
    if (record.at("dir").as_string() == "server") {
      Decoded d = decode_server_message(sp, frame);
      EXPECT_TRUE(std::holds_alternative<ServerMessage>(d)) << frame << ": " << std::get<std::string>(d);
      ++server_frames;
      continue;
    }
    const json::object msg = json::parse(frame).as_object();
    const std::string type(msg.at("type").as_string());
    const std::string id = msg.contains("id") ? std::string(msg.at("id").as_string()) : "";
    const std::string payload = msg.contains("payload") ? json::serialize(msg.at("payload")) : "";
    std::string encoded;
    if (type == "connection_init") {
      encoded = encode_connection_init(sp, payload);
    } else if (type == "subscribe" || type == "start") {
      const json::object& p = msg.at("payload").as_object();
      const std::string query(p.at("query").as_string());
      const std::string variables = p.contains("variables") ? json::serialize(p.at("variables")) : "";
      const std::string name = p.contains("operationName") ? std::string(p.at("operationName").as_string()) : "";
      encoded = encode_subscribe(sp, id, {query, variables, name});
    } else if (type == "complete" || type == "stop") {
      encoded = encode_complete(sp, id);
    } else if (type == "ping") {
      encoded = encode_ping(sp, payload);
    } else if (type == "connection_terminate") {
      encoded = encode_connection_terminate(sp);
    }
    EXPECT_EQ(encoded, frame);
    ++client_frames;
  }
  EXPECT_GT(server_frames, 25);
  EXPECT_GT(client_frames, 15);
}

}  // namespace
}  // namespace stampede::proto::gql
