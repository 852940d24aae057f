#pragma once
// Absinthe GraphQL subscriptions over Phoenix channels (../shared/phoenix-protocol.md §7):
// the payloads of the control channel's `doc` and `unsubscribe` pushes, their replies, and the
// `subscription:data` pushes that arrive on a topic the socket never joined. Both sides: the
// client (clients/absinthe_client.hpp) writes pushes and reads replies and data; the built-in
// target reads pushes and writes replies and data with the same functions. Pure.
#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "proto/phoenix_message.hpp"

namespace stampede::proto::phx::absinthe {

inline constexpr std::string_view kControlTopic = "__absinthe__:control";
inline constexpr std::string_view kDocEvent = "doc";
inline constexpr std::string_view kUnsubscribeEvent = "unsubscribe";
inline constexpr std::string_view kDataEvent = "subscription:data";

// {"query": query, "variables": variables}, the payload of a `doc` push on kControlTopic.
// absinthe_phoenix reads no operationName, so send one operation per document. Throws
// std::invalid_argument when variables_json is not a JSON object or query is not UTF-8.
std::string doc_payload(std::string_view query, std::string_view variables_json = "{}");

// {"subscriptionId": id}: the payload of an `unsubscribe` push on kControlTopic, and the
// response of the ok reply to it and to a `doc` that starts a subscription. Throws
// std::invalid_argument when the id is not UTF-8.
std::string subscription_id_payload(std::string_view subscription_id);

// What the reply to a `doc` push says.
struct DocReply {
  enum class Outcome {
    Subscribed,  // ok with a subscriptionId: data will come as subscription:data pushes
    Result,      // ok without one: a query or mutation answered at once ({"data": ...})
    Error,       // any other status: {"errors": [...]} or {"error": "..."}
  };
  Outcome outcome = Outcome::Error;
  std::string subscription_id;  // Subscribed only
  std::string response_json;    // the reply's response, as the server sent it
};
// Reads a phx_reply to a `doc` push (status and response, as decode() gives them: a decoded
// JSON reply's `status` and reply_response()). nullopt when response_json is not a JSON object.
std::optional<DocReply> read_doc_reply(std::string_view status, std::string_view response_json);

// A subscription:data push. Like @absinthe/socket, it is recognised by its event and routed
// by the payload's subscriptionId; the topic (the same id) is not needed.
struct SubscriptionData {
  std::string subscription_id;
  std::string result_json;  // the GraphQL response map {"data": ..., "errors": ...}, re-serialized
};
std::optional<SubscriptionData> read_subscription_data(const Message& message);

// ---- the server's side ---------------------------------------------------------------------

// A `doc` push as Absinthe.Phoenix.Channel reads it.
struct DocRequest {
  std::optional<std::string> query;  // nullopt: missing or not a string
  bool variables_are_a_map = true;   // false: "variables" is there, not null, and not an object
  boost::json::object variables;     // {} when absent or null
};
// nullopt when the payload is not a JSON object (no handle_in clause matches it).
std::optional<DocRequest> read_doc(std::string_view payload_json);
// The id of an `unsubscribe` push; nullopt when it has no string subscriptionId.
std::optional<std::string> read_unsubscribe(std::string_view payload_json);

// The error replies Absinthe writes: {"errors":[{"message": message}]} for a document it cannot
// run, and kVariablesNotAMap when "variables" is not a map.
std::string errors_response(std::string_view message);
inline constexpr std::string_view kVariablesNotAMap = R"({"error":"Could not parse variables as map"})";

// {"result": result_json, "subscriptionId": id}: a subscription:data push's payload.
std::string subscription_data_payload(std::string_view subscription_id, std::string_view result_json);

}  // namespace stampede::proto::phx::absinthe
