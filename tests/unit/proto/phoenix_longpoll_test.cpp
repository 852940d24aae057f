#include "proto/phoenix_longpoll.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace stampede::proto::phx::longpoll {
namespace {

// A session of the official phoenix.js LongPoll (npm phoenix 1.8.16 and 1.7.23 wrote the same
// URLs and bodies; 1.7.23 sends "Content-Type: application/json" on GETs where 1.8.16 sends
// "Accept"), recorded by tests/vectors/phoenix-longpoll/generate.cjs for
//   new Socket("ws://example.com:4000/socket", {transport: LongPoll,
//              params: {user_token: "abc 1/2", "a[b]": "ü"}})
constexpr std::string_view kEndpoint = "http://example.com:4000/socket/longpoll?user_token=abc%201%2F2&a%5Bb%5D=%C3%BC&vsn=2.0.0";
constexpr std::string_view kToken = "SFMyNTY.g2gDbQ";

Response decoded(std::string_view body) {
  auto r = decode_response(body);
  if (const auto* error = std::get_if<std::string>(&r)) throw std::runtime_error(*error);
  return std::get<Response>(std::move(r));
}

std::string error_of(std::string_view body) {
  auto r = decode_response(body);
  const auto* error = std::get_if<std::string>(&r);
  return error ? *error : std::string("(decoded)");
}

TEST(LongPoll, UrlsAsPhoenixJsBuildsThem) {
  const std::vector<QueryParam> params = {{"user_token", "abc 1/2"}, {"a[b]", "\xC3\xBC"}};
  const std::string endpoint = endpoint_url("ws://example.com:4000/socket", params);
  EXPECT_EQ(endpoint, kEndpoint);
  // The first GET, before any token: phoenix.js leaves a bare "&".
  EXPECT_EQ(request_url(endpoint, std::nullopt), std::string(kEndpoint) + "&");
  EXPECT_EQ(request_url(endpoint, kToken), std::string(kEndpoint) + "&token=SFMyNTY.g2gDbQ");

  EXPECT_EQ(endpoint_url("wss://h/live", {}), "https://h/live/longpoll?vsn=2.0.0");
  EXPECT_EQ(endpoint_url("https://h/live", {}, "1.0.0"), "https://h/live/longpoll?vsn=1.0.0");
  EXPECT_EQ(endpoint_url("http://h:80/socket", {}), "http://h:80/socket/longpoll?vsn=2.0.0");
  EXPECT_THROW(endpoint_url("/socket", {}), std::invalid_argument);
  EXPECT_THROW(endpoint_url("ftp://h/socket", {}), std::invalid_argument);
  EXPECT_THROW(endpoint_url("ws://h/socket?x=1", {}), std::invalid_argument);
  EXPECT_THROW(endpoint_url("ws://h/socket#f", {}), std::invalid_argument);

  std::string component;
  append_uri_component(component, "AZaz09-_.!~*'() /?&=+#%\x01");
  EXPECT_EQ(component, "AZaz09-_.!~*'()%20%2F%3F%26%3D%2B%23%25%01");
}

TEST(LongPoll, EndpointFromTheWebSocketUrlAsNormalizeEndpointMakesIt) {
  EXPECT_EQ(endpoint_from_websocket_url("ws://h:4000/socket/websocket?user_id=a&vsn=2.0.0"),
            "http://h:4000/socket/longpoll?user_id=a&vsn=2.0.0");
  EXPECT_EQ(endpoint_from_websocket_url("wss://h/live/websocket?_csrf_token=x%2Fwebsocket&vsn=2.0.0"),
            "https://h/live/longpoll?_csrf_token=x%2Fwebsocket&vsn=2.0.0");
  // The regex is greedy: the last "/websocket" is the one replaced.
  EXPECT_EQ(endpoint_from_websocket_url("ws://h/websocket/socket/websocket?vsn=2.0.0"),
            "http://h/websocket/socket/longpoll?vsn=2.0.0");
  EXPECT_EQ(endpoint_from_websocket_url("http://h/socket/websocket"), "http://h/socket/longpoll");
}

TEST(LongPoll, PollResponsesOfASession) {
  // 1. the first GET opens a session
  Response r = decoded(R"({"messages":[],"status":410,"token":"SFMyNTY.g2gDbQ"})");
  EXPECT_EQ(r.status, 410);
  EXPECT_EQ(r.token, kToken);
  EXPECT_TRUE(r.messages.empty());
  EXPECT_EQ(poll_outcome(r.status, false), PollOutcome::Opened);

  // 2. the join's reply and a broadcast, each message one serialized V2 frame
  r = decoded(R"({"messages":["[\"3\",\"3\",\"room:lobby\",\"phx_reply\",{\"response\":{},\"status\":\"ok\"}]","[\"3\",null,\"room:lobby\",\"new_msg\",{\"body\":\"hi\"}]"],"status":200,"token":"SFMyNTY.g2gDbQ"})");
  EXPECT_EQ(poll_outcome(r.status, true), PollOutcome::Messages);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0], R"(["3","3","room:lobby","phx_reply",{"response":{},"status":"ok"}])");
  std::vector<Message> messages;
  ASSERT_EQ(decode_messages(r, Serializer::V2, messages), "");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].event, "phx_reply");
  EXPECT_EQ(messages[0].status, "ok");
  EXPECT_EQ(messages[0].ref, "3");
  EXPECT_EQ(reply_response(messages[0]), "{}");
  EXPECT_EQ(messages[1].event, "new_msg");
  EXPECT_FALSE(messages[1].ref);
  EXPECT_EQ(messages[1].payload, R"({"body":"hi"})");

  // 3. nothing within the window
  r = decoded(R"({"messages":[],"status":204,"token":"SFMyNTY.g2gDbQ"})");
  EXPECT_EQ(poll_outcome(r.status, true), PollOutcome::NoMessages);
  // A POST's answer carries the status only.
  r = decoded(R"({"status":200})");
  EXPECT_EQ(r.status, 200);
  EXPECT_FALSE(r.token);
  EXPECT_TRUE(r.messages.empty());
  // The session is gone (the token outlived its server process).
  EXPECT_EQ(poll_outcome(decoded(R"({"status":410})").status, true), PollOutcome::SessionGone);
  EXPECT_EQ(poll_outcome(403, true), PollOutcome::Forbidden);
  EXPECT_EQ(poll_outcome(500, false), PollOutcome::ServerError);
  EXPECT_EQ(poll_outcome(408, true), PollOutcome::Unhandled);
}

TEST(LongPoll, V1MessagesAreObjects) {
  // vsn=1.0.0 (or no vsn) picks the V1 serializer for the LongPoll transport too.
  const Response r = decoded(
      R"({"messages":["{\"event\":\"new_msg\",\"payload\":{\"body\":\"hi\"},\"ref\":null,\"topic\":\"room:lobby\"}"],"status":200,"token":"t"})");
  std::vector<Message> messages;
  ASSERT_EQ(decode_messages(r, Serializer::V1, messages), "");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].topic, "room:lobby");
  EXPECT_EQ(messages[0].payload, R"({"body":"hi"})");
  // The same text is no V2 frame.
  EXPECT_EQ(decode_messages(r, Serializer::V2, messages).substr(0, 19), "longpoll message 0:");
  EXPECT_TRUE(messages.empty());
}

TEST(LongPoll, PublishBodiesAsPhoenixJsPostsThem) {
  // The join alone.
  const MessageView join{"3", "3", "room:lobby", "phx_join", R"({"name":"x"})"};
  EXPECT_EQ(publish_body(std::vector{join}, Serializer::V2), R"(["3","3","room:lobby","phx_join",{"name":"x"}])");
  // Three pushes of one tick: a JSON one, a binary one (posted as the base64 of its binary
  // frame) and another JSON one, joined by "\n".
  const std::string bytes("\x00\x01\x02\xfa", 4);
  const std::vector<MessageView> pushes = {
      {"3", "4", "room:lobby", "new_msg", R"({"body":"line\nbreak"})"},
      {"3", "5", "room:lobby", "bin", bytes, true},
      {"3", "6", "room:lobby", "new_msg", R"({"body":"third"})"},
  };
  const std::string body = publish_body(pushes, Serializer::V2);
  EXPECT_EQ(body,
            "[\"3\",\"4\",\"room:lobby\",\"new_msg\",{\"body\":\"line\\nbreak\"}]\n"
            "AAEBCgMzNXJvb206bG9iYnliaW4AAQL6\n"
            "[\"3\",\"6\",\"room:lobby\",\"new_msg\",{\"body\":\"third\"}]");
  // What the server makes of it (long_poll.ex: Content-Type exactly application/x-ndjson).
  const auto lines = split_publish_body(body, kBatchContentType);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], "AAEBCgMzNXJvb206bG9iYnliaW4AAQL6");
}

TEST(LongPoll, PublishBodiesRefuseWhatTheServerWouldSplit) {
  const MessageView ok{"1", "1", "t", "e", "{}"};
  EXPECT_THROW(publish_body(std::vector<MessageView>{}, Serializer::V2), std::invalid_argument);
  EXPECT_THROW(publish_body(std::vector<MessageView>(kMaxBatchMessages + 1, ok), Serializer::V2), std::invalid_argument);
  EXPECT_NO_THROW(publish_body(std::vector<MessageView>(kMaxBatchMessages, ok), Serializer::V2));
  // A payload pretty-printed with raw newlines would arrive as two broken messages.
  const MessageView pretty{"1", "1", "t", "e", "{\n  \"a\": 1\n}"};
  EXPECT_THROW(publish_body(std::vector{pretty}, Serializer::V2), std::invalid_argument);
  const MessageView cr{"1", "1", "t", "e", "{\"a\":\r1}"};
  EXPECT_THROW(publish_body(std::vector{cr}, Serializer::V2), std::invalid_argument);
  // V1 bodies are objects, one per line all the same.
  EXPECT_EQ(publish_body(std::vector{ok}, Serializer::V1), R"({"topic":"t","event":"e","payload":{},"ref":"1","join_ref":"1"})");
}

TEST(LongPoll, ServerSplitsOnlyNdjsonBodies) {
  EXPECT_EQ(split_publish_body("a\nb\r\nc", kBatchContentType), (std::vector<std::string_view>{"a", "b", "c"}));
  // Elixir's String.split keeps the empty pieces.
  EXPECT_EQ(split_publish_body("a\n", kBatchContentType), (std::vector<std::string_view>{"a", ""}));
  EXPECT_EQ(split_publish_body("", kBatchContentType), (std::vector<std::string_view>{""}));
  EXPECT_EQ(split_publish_body("a\r\r\nb", kBatchContentType), (std::vector<std::string_view>{"a\r", "b"}));
  // Any other Content-Type, even with a charset, is one message (Phoenix 1.6 and older
  // clients posted a single JSON message).
  EXPECT_EQ(split_publish_body("a\nb", "application/json"), (std::vector<std::string_view>{"a\nb"}));
  EXPECT_EQ(split_publish_body("a\nb", "application/x-ndjson; charset=utf-8"), (std::vector<std::string_view>{"a\nb"}));
}

TEST(LongPoll, ResponsesRoundTripThroughTheServerEncoding) {
  Response r;
  r.status = 200;
  r.token = std::string(kToken);
  r.messages = {R"(["3","3","room:lobby","phx_reply",{"response":{},"status":"ok"}])", "\"quoted\"\n"};
  const std::string body = encode_response(r);
  EXPECT_EQ(body, R"({"messages":["[\"3\",\"3\",\"room:lobby\",\"phx_reply\",{\"response\":{},\"status\":\"ok\"}]","\"quoted\"\n"],"status":200,"token":"SFMyNTY.g2gDbQ"})");
  const Response back = decoded(body);
  EXPECT_EQ(back.messages, r.messages);
  EXPECT_EQ(back.token, r.token);
  EXPECT_EQ(encode_response(Response{408, std::nullopt, {}}), R"({"status":408})");
}

TEST(LongPoll, BadResponsesAreErrors) {
  EXPECT_EQ(error_of(""), "longpoll response: invalid JSON at byte 0 (truncated)");
  EXPECT_EQ(error_of("<html>"), "longpoll response: invalid JSON at byte 0 (syntax error)");
  EXPECT_EQ(error_of("[]"), "longpoll response: not a JSON object");
  EXPECT_EQ(error_of(R"({"token":"t"})"), R"(longpoll response: no "status")");
  EXPECT_EQ(error_of(R"({"status":"200"})"), R"(longpoll response: "status" is not an HTTP status code (100-599): "200")");
  EXPECT_EQ(error_of(R"({"status":200.0})"), R"(longpoll response: "status" is not an HTTP status code (100-599): 200.0)");
  EXPECT_EQ(error_of(R"({"status":99999999999999999999999})"),
            R"(longpoll response: "status" is not an HTTP status code (100-599): 99999999999999999999999)");
  EXPECT_EQ(error_of(R"({"status":-200})"), R"(longpoll response: "status" is not an HTTP status code (100-599): -200)");
  EXPECT_EQ(error_of(R"({"status":200,"token":5})"), R"(longpoll response: "token" is not a string)");
  EXPECT_EQ(error_of(R"({"status":200,"messages":{}})"), R"(longpoll response: "messages" is not an array)");
  EXPECT_EQ(error_of(R"({"status":200,"messages":["a",["b"]]})"),
            "longpoll response: message 1 is not a string (Phoenix sends each message as one serialized frame)");
  EXPECT_EQ(error_of(R"({"status":200,"messages":["a")"), "longpoll response: invalid JSON at byte 29");
  EXPECT_EQ(error_of(R"({"status":200} {})"), "longpoll response: invalid JSON at byte 15");
  // null messages and token read as absent; unknown keys are ignored.
  const Response r = decoded(R"({"status":200,"token":null,"messages":null,"extra":[1,{"a":2}]})");
  EXPECT_FALSE(r.token);
  EXPECT_TRUE(r.messages.empty());
  // A message that is no Phoenix frame.
  std::vector<Message> messages;
  EXPECT_EQ(decode_messages(decoded(R"({"status":200,"messages":["[\"1\",\"1\",\"t\",\"e\",{}]","nope"]})"), Serializer::V2, messages)
                .substr(0, 19),
            "longpoll message 1:");
  EXPECT_EQ(messages.size(), 1u);
}

}  // namespace
}  // namespace stampede::proto::phx::longpoll
