#include "proto/absinthe.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>
#include <boost/json/value.hpp>
#include <stdexcept>

#include "proto/json_string.hpp"

namespace stampede::proto::phx::absinthe {
namespace {

namespace json = boost::json;

// GraphQL results nest one level per selection; Boost's default limit of 32 is too tight.
json::value parse_deep(std::string_view text, json::error_code& ec) {
  json::parse_options options;
  options.max_depth = 256;
  return json::parse(text, ec, {}, options);
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
  return "{\"query\":" + json_string(query, "the GraphQL query") + ",\"variables\":" +
         std::string(trim_json_space(variables_json)) + "}";
}

std::string subscription_id_payload(std::string_view subscription_id) {
  return "{\"subscriptionId\":" + json_string(subscription_id, "the subscription id") + "}";
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

std::optional<DocRequest> read_doc(std::string_view payload_json) {
  json::error_code ec;
  json::value payload = parse_deep(payload_json, ec);
  if (ec || !payload.is_object()) return std::nullopt;
  json::object& object = payload.get_object();
  DocRequest doc;
  if (const json::value* query = object.if_contains("query"); query && query->is_string()) {
    doc.query.emplace(query->get_string().data(), query->get_string().size());
  }
  if (json::value* variables = object.if_contains("variables"); variables && !variables->is_null()) {
    if (variables->is_object()) {
      doc.variables = std::move(variables->get_object());
    } else {
      doc.variables_are_a_map = false;
    }
  }
  return doc;
}

std::optional<std::string> read_unsubscribe(std::string_view payload_json) {
  json::error_code ec;
  const json::value payload = parse_deep(payload_json, ec);
  if (ec || !payload.is_object()) return std::nullopt;
  const json::value* id = payload.get_object().if_contains("subscriptionId");
  if (!id || !id->is_string()) return std::nullopt;
  return std::string(id->get_string().data(), id->get_string().size());
}

std::string errors_response(std::string_view message) {
  return R"({"errors":[{"message":)" + json_string(message, "the error message") + "}]}";
}

std::string subscription_data_payload(std::string_view subscription_id, std::string_view result_json) {
  std::string out = R"({"result":)";
  out += trim_json_space(result_json);
  out += R"(,"subscriptionId":)";
  append_json_string(out, subscription_id, "the subscription id");
  out += '}';
  return out;
}

}  // namespace stampede::proto::phx::absinthe
