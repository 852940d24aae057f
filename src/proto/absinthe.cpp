#include "proto/absinthe.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <stdexcept>

namespace stampede::proto::phx::absinthe {
namespace {

namespace json = boost::json;

// GraphQL results nest one level per selection; Boost's default limit of 32 is too tight.
json::value parse_deep(std::string_view text, json::error_code& ec) {
  json::parse_options options;
  options.max_depth = 256;
  return json::parse(text, ec, {}, options);
}

// `s` as a JSON string literal. Boost's serializer escapes but copies bytes above 0x7F as
// they are, so the literal is parsed back once to refuse invalid UTF-8 (rare pushes, not a
// hot path) rather than hand a server text that is not JSON.
std::string quoted(std::string_view s, const char* what) {
  std::string literal = json::serialize(json::string(s));
  json::error_code ec;
  json::parse(literal, ec);
  if (ec) throw std::invalid_argument(std::string(what) + " is not valid UTF-8");
  return literal;
}

std::string_view trim_json_space(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

}  // namespace

std::string doc_payload(std::string_view query, std::string_view variables_json) {
  json::error_code ec;
  const json::value variables = parse_deep(variables_json, ec);
  if (ec || !variables.is_object()) throw std::invalid_argument("GraphQL variables must be a JSON object");
  // The variables are spliced as given: re-serializing could rewrite numbers (1.0 -> 1E0).
  return "{\"query\":" + quoted(query, "the GraphQL query") + ",\"variables\":" +
         std::string(trim_json_space(variables_json)) + "}";
}

std::string unsubscribe_payload(std::string_view subscription_id) {
  return "{\"subscriptionId\":" + quoted(subscription_id, "the subscription id") + "}";
}

std::optional<DocReply> read_doc_reply(std::string_view status, std::string_view response_json) {
  json::error_code ec;
  const json::value response = parse_deep(response_json, ec);
  if (ec || !response.is_object()) return std::nullopt;
  DocReply reply;
  reply.response_json.assign(response_json);
  if (status != "ok") {
    reply.outcome = DocReply::Outcome::Error;
    return reply;
  }
  const json::value* id = response.get_object().if_contains("subscriptionId");
  if (id && id->is_string()) {
    reply.outcome = DocReply::Outcome::Subscribed;
    reply.subscription_id.assign(id->get_string().data(), id->get_string().size());
  } else {
    reply.outcome = DocReply::Outcome::Result;
  }
  return reply;
}

std::optional<SubscriptionData> read_subscription_data(const Message& message) {
  if (message.binary || message.event != kDataEvent) return std::nullopt;
  json::error_code ec;
  const json::value payload = parse_deep(message.payload, ec);
  if (ec || !payload.is_object()) return std::nullopt;
  const json::value* id = payload.get_object().if_contains("subscriptionId");
  const json::value* result = payload.get_object().if_contains("result");
  if (!id || !id->is_string() || !result) return std::nullopt;
  SubscriptionData data;
  data.subscription_id.assign(id->get_string().data(), id->get_string().size());
  data.result_json = json::serialize(*result);
  return data;
}

}  // namespace stampede::proto::phx::absinthe
