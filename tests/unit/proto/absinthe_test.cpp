#include "proto/absinthe.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <stdexcept>
#include <string>

#include "proto/phoenix_message.hpp"

namespace stampede::proto::phx::absinthe {
namespace {

namespace json = boost::json;
using Outcome = DocReply::Outcome;

constexpr std::string_view kSubscription = "subscription($postId: ID!) { commentAdded(postId: $postId) { id body } }";
constexpr std::string_view kSubscriptionId =
    "__absinthe__:doc:-576460752303422911:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08";

Message decoded_from_server(std::string_view frame) {
  Decoded d = decode(frame, false, Serializer::V2, Direction::ServerToClient);
  if (auto* error = std::get_if<std::string>(&d)) throw std::runtime_error(*error);
  return std::get<Message>(std::move(d));
}

TEST(AbsintheDoc, PushOnTheControlTopicAsInTheSpec) {
  Message m;
  m.join_ref = "1";
  m.ref = "2";
  m.topic = kControlTopic;
  m.event = kDocEvent;
  m.payload = doc_payload(kSubscription, R"({"postId":"42"})");
  const Frame frame = encode(m, Serializer::V2, Direction::ClientToServer);
  EXPECT_EQ(json::parse(frame.data),
            json::parse(R"(["1","2","__absinthe__:control","doc",{"query":"subscription($postId: ID!) { commentAdded(postId: $postId) { id body } }","variables":{"postId":"42"}}])"));
}

TEST(AbsintheDoc, VariablesDefaultToAnEmptyObjectAndAreKeptAsWritten) {
  EXPECT_EQ(doc_payload("{ posts { id } }"), R"({"query":"{ posts { id } }","variables":{}})");
  EXPECT_EQ(doc_payload("q", " {\"n\": 1.0} "), R"({"query":"q","variables":{"n": 1.0}})");
}

TEST(AbsintheDoc, QueryIsEscaped) {
  const std::string query = "query {\n  post(title: \"a \\\"b\\\"\") { id }\n}";
  const json::value payload = json::parse(doc_payload(query));
  EXPECT_EQ(payload.at("query").as_string(), query);
}

TEST(AbsintheDoc, RefusesVariablesThatAreNotAnObjectAndQueriesThatAreNotUtf8) {
  for (const char* variables : {"[]", "null", "nope", "", "{\"a\":}"}) {
    EXPECT_THROW(doc_payload("q", variables), std::invalid_argument) << variables;
  }
  EXPECT_THROW(doc_payload("q \xff"), std::invalid_argument);
}

TEST(AbsintheDoc, UnsubscribePayload) {
  EXPECT_EQ(json::parse(subscription_id_payload(kSubscriptionId)),
            json::parse(std::string(R"({"subscriptionId":")") + std::string(kSubscriptionId) + "\"}"));
}

TEST(AbsintheReply, SubscriptionIdFromTheDocReply) {
  const Message m = decoded_from_server(
      std::string(R"(["1","2","__absinthe__:control","phx_reply",{"status":"ok","response":{"subscriptionId":")") +
      std::string(kSubscriptionId) + "\"}}]");
  const auto reply = read_doc_reply(m.status, reply_response(m));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->outcome, Outcome::Subscribed);
  EXPECT_EQ(reply->subscription_id, kSubscriptionId);
}

TEST(AbsintheReply, QueriesAnswerAtOnceAndErrorsAreErrors) {
  const auto result = read_doc_reply("ok", R"({"data":{"posts":[{"id":"1"}]}})");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->outcome, Outcome::Result);
  EXPECT_EQ(result->subscription_id, "");
  EXPECT_EQ(result->response_json, R"({"data":{"posts":[{"id":"1"}]}})");

  const auto error = read_doc_reply("error", R"({"errors":[{"message":"Cannot query field \"x\"","locations":[]}]})");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->outcome, Outcome::Error);

  const auto bad_variables = read_doc_reply("error", R"({"error":"Could not parse variables as map"})");
  ASSERT_TRUE(bad_variables);
  EXPECT_EQ(bad_variables->outcome, Outcome::Error);

  EXPECT_FALSE(read_doc_reply("ok", "[]"));
  EXPECT_FALSE(read_doc_reply("ok", "not json"));
  // A subscriptionId that is not a string is not a subscription.
  EXPECT_EQ(read_doc_reply("ok", R"({"subscriptionId":7})")->outcome, Outcome::Result);
}

TEST(AbsintheData, RecognisesSubscriptionDataOnAnUnjoinedTopic) {
  const Message m = decoded_from_server(std::string(R"([null,null,")") + std::string(kSubscriptionId) +
                                        R"(","subscription:data",{"result":{"data":{"commentAdded":{"id":"9","body":"hi"}}},"subscriptionId":")" +
                                        std::string(kSubscriptionId) + "\"}]");
  const auto data = read_subscription_data(m);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->subscription_id, kSubscriptionId);
  EXPECT_EQ(json::parse(data->result_json), json::parse(R"({"data":{"commentAdded":{"id":"9","body":"hi"}}})"));
}

TEST(AbsintheData, IgnoresEverythingElse) {
  Message m;
  m.topic = kSubscriptionId;
  m.event = "new_msg";
  m.payload = R"({"result":{},"subscriptionId":"x"})";
  EXPECT_FALSE(read_subscription_data(m));
  m.event = kDataEvent;
  for (const char* payload : {R"({"subscriptionId":"x"})", R"({"result":{}})", R"({"result":{},"subscriptionId":1})",
                              "[]", "{"}) {
    m.payload = payload;
    EXPECT_FALSE(read_subscription_data(m)) << payload;
  }
  m.payload = R"({"result":{},"subscriptionId":"x"})";
  m.binary = true;
  EXPECT_FALSE(read_subscription_data(m));
}

// The server's side (the built-in target) reads what the client writes and writes what it reads.
TEST(AbsintheServer, ReadsTheDocTheClientWrites) {
  const auto doc = read_doc(doc_payload(kSubscription, R"({"postId":"42"})"));
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->query, std::string(kSubscription));
  EXPECT_TRUE(doc->variables_are_a_map);
  EXPECT_EQ(doc->variables, json::parse(R"({"postId":"42"})").as_object());

  EXPECT_FALSE(read_doc("[]"));
  EXPECT_FALSE(read_doc("{"));
  EXPECT_FALSE(read_doc(R"({"variables":{}})")->query);  // no query document supplied
  EXPECT_FALSE(read_doc(R"({"query":7})")->query);
  EXPECT_FALSE(read_doc(R"({"query":"q","variables":[1]})")->variables_are_a_map);
  const auto null_variables = read_doc(R"({"query":"q","variables":null})");
  EXPECT_TRUE(null_variables->variables_are_a_map);
  EXPECT_TRUE(null_variables->variables.empty());
}

TEST(AbsintheServer, UnsubscribeRoundTrips) {
  EXPECT_EQ(read_unsubscribe(subscription_id_payload(kSubscriptionId)), std::string(kSubscriptionId));
  EXPECT_FALSE(read_unsubscribe(R"({"subscriptionId":1})"));
  EXPECT_FALSE(read_unsubscribe("[]"));
}

TEST(AbsintheServer, RepliesAndDataReadBackOnTheClientsSide) {
  const auto subscribed = read_doc_reply("ok", subscription_id_payload(kSubscriptionId));
  ASSERT_TRUE(subscribed);
  EXPECT_EQ(subscribed->outcome, Outcome::Subscribed);
  EXPECT_EQ(subscribed->subscription_id, kSubscriptionId);

  const std::string errors = errors_response("No query document supplied");
  EXPECT_EQ(json::parse(errors), json::parse(R"({"errors":[{"message":"No query document supplied"}]})"));
  EXPECT_EQ(read_doc_reply("error", errors)->outcome, Outcome::Error);
  EXPECT_EQ(read_doc_reply("error", kVariablesNotAMap)->outcome, Outcome::Error);

  Message m;
  m.topic = kSubscriptionId;
  m.event = kDataEvent;
  m.payload = subscription_data_payload(kSubscriptionId, R"( {"data":{"commentAdded":{"seq":1}}} )");
  EXPECT_EQ(json::parse(m.payload), json::parse(std::string(R"({"result":{"data":{"commentAdded":{"seq":1}}},"subscriptionId":")") +
                                                std::string(kSubscriptionId) + "\"}"));
  const auto data = read_subscription_data(m);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->subscription_id, kSubscriptionId);
  EXPECT_EQ(data->result_json, R"({"data":{"commentAdded":{"seq":1}}})");
}

}  // namespace
}  // namespace stampede::proto::phx::absinthe
