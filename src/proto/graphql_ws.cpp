// GraphQL over WebSocket messages. Decoding walks the message object once with the Phoenix
// codec's element reader (phoenix_json_reader.hpp): it validates the whole frame without a DOM
// and gives the payload's exact text; only an error payload, whose elements must be checked,
// is parsed into a value.
#include "proto/graphql_ws.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <optional>
#include <stdexcept>

#include "proto/json_string.hpp"
#include "proto/phoenix_json_reader.hpp"

namespace stampede::proto::gql {
namespace {

namespace json = boost::json;
using phx::detail::JsonCursor;
using phx::detail::JsonKind;
using phx::detail::Read;

using Type = ServerMessage::Type;

// A string as a JSON literal; text frames must be UTF-8, so anything else is refused here
// rather than sent for the server to reject.
std::string quoted(std::string_view s, std::string_view what) { return json_string(s, "graphql: " + std::string(what)); }

std::string_view trim_json_space(std::string_view s) {
  while (!s.empty() && phx::detail::is_json_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && phx::detail::is_json_space(s.back())) s.remove_suffix(1);
  return s;
}

// The caller's JSON object text, trimmed, to be spliced in unchanged (re-serializing could
// rewrite numbers). Throws when it is not one object.
std::string_view object_text(std::string_view text, std::string_view what) {
  json::parse_options options;
  options.max_depth = phx::detail::kMaxJsonDepth;
  json::error_code ec;
  const json::value v = json::parse(text, ec, {}, options);
  if (ec || !v.is_object()) throw std::invalid_argument("graphql: " + std::string(what) + " must be a JSON object");
  return trim_json_space(text);
}

std::string type_only(std::string_view type, std::string_view payload_json) {
  std::string out = "{\"type\":\"" + std::string(type) + "\"";
  if (!payload_json.empty()) out += ",\"payload\":" + std::string(object_text(payload_json, "the payload"));
  out += '}';
  return out;
}

std::string with_id(std::string_view id, std::string_view type) {
  if (id.empty()) throw std::invalid_argument("graphql: an operation id cannot be empty");
  return "{\"id\":" + quoted(id, "the operation id") + ",\"type\":\"" + std::string(type) + "\"";
}

void require(Subprotocol actual, Subprotocol needed, std::string_view message) {
  if (actual != needed) {
    throw std::invalid_argument("graphql: " + std::string(subprotocol_name(actual)) + " has no " + std::string(message) +
                                " message");
  }
}

// What decoding found in the message object.
struct Fields {
  std::optional<std::string> type;
  bool type_not_string = false;
  std::optional<std::string> id;  // a string id
  bool id_not_string = false;     // present and neither a string nor null
  std::string_view payload;       // raw text, empty when absent
  JsonKind payload_kind = JsonKind::Unknown;
};

std::string read_fields(std::string_view frame, Fields& f) {
  JsonCursor in(frame);
  if (!in.take('{')) {
    JsonKind kind;
    std::string_view ignored;
    if (phx::detail::read_any(in, kind, ignored) != Read::Ok || !in.at_end()) return in.error();
    return "the message is not a JSON object";
  }
  if (!in.take('}')) {
    std::string key;
    for (;;) {
      if (phx::detail::read_string(in, key) != Read::Ok || !in.take(':')) return in.error();
      if (key == "type") {
        std::string type;
        const Read r = phx::detail::read_string(in, type);
        if (r == Read::BadJson) return in.error();
        f.type_not_string = r == Read::WrongType;
        if (r == Read::Ok) f.type = std::move(type);
      } else if (key == "id") {
        std::optional<std::string> id;
        const Read r = phx::detail::read_nullable_string(in, id);
        if (r == Read::BadJson) return in.error();
        f.id_not_string = r == Read::WrongType;
        f.id = r == Read::Ok ? std::move(id) : std::nullopt;
      } else if (key == "payload") {
        if (phx::detail::read_any(in, f.payload_kind, f.payload) != Read::Ok) return in.error();
      } else if (phx::detail::skip_value(in) != Read::Ok) {
        return in.error();
      }
      if (in.take(',')) continue;
      if (in.take('}')) break;
      return in.error();
    }
  }
  if (!in.at_end()) return in.error();
  return {};
}

// graphql-ws 6's areGraphQLFormattedErrors: a non-empty array whose elements all have "message".
bool are_graphql_errors(std::string_view payload) {
  json::parse_options options;
  options.max_depth = phx::detail::kMaxJsonDepth;
  json::error_code ec;
  const json::value v = json::parse(payload, ec, {}, options);
  if (ec || !v.is_array() || v.get_array().empty()) return false;
  for (const json::value& e : v.get_array()) {
    if (!e.is_object() || !e.get_object().contains("message")) return false;
  }
  return true;
}

std::string kind_name(JsonKind kind) {
  switch (kind) {
    case JsonKind::Null: return "null";
    case JsonKind::Bool: return "a boolean";
    case JsonKind::Number: return "a number";
    case JsonKind::String: return "a string";
    case JsonKind::Array: return "an array";
    case JsonKind::Object: return "an object";
    case JsonKind::Unknown: break;
  }
  return "missing";
}

struct Rule {
  std::string_view name;
  Type type;
  bool needs_id;
};

constexpr Rule kTransportWsTypes[] = {
    {"connection_ack", Type::ConnectionAck, false}, {"ping", Type::Ping, false}, {"pong", Type::Pong, false},
    {"next", Type::Next, true},  {"error", Type::Error, true}, {"complete", Type::Complete, true},
};
constexpr Rule kLegacyTypes[] = {
    {"connection_ack", Type::ConnectionAck, false}, {"connection_error", Type::ConnectionError, false},
    {"ka", Type::KeepAlive, false},                 {"data", Type::Next, true},
    {"error", Type::Error, false},                  {"complete", Type::Complete, true},
};

}  // namespace

std::string_view subprotocol_name(Subprotocol subprotocol) {
  return subprotocol == Subprotocol::GraphqlTransportWs ? "graphql-transport-ws" : "graphql-ws";
}

std::string_view server_message_type_name(ServerMessage::Type type) {
  switch (type) {
    case Type::ConnectionAck: return "connection_ack";
    case Type::ConnectionError: return "connection_error";
    case Type::KeepAlive: return "ka";
    case Type::Ping: return "ping";
    case Type::Pong: return "pong";
    case Type::Next: return "next";
    case Type::Error: return "error";
    case Type::Complete: return "complete";
  }
  return "unknown";
}

std::string encode_connection_init(Subprotocol subprotocol, std::string_view payload_json) {
  if (subprotocol == Subprotocol::GraphqlWs && payload_json.empty()) payload_json = "{}";
  return type_only("connection_init", payload_json);
}

std::string encode_subscribe(Subprotocol subprotocol, std::string_view id, const Operation& operation) {
  std::string out = with_id(id, subprotocol == Subprotocol::GraphqlTransportWs ? "subscribe" : "start");
  out += ",\"payload\":{\"query\":" + quoted(operation.query, "the query");
  if (!operation.variables_json.empty()) {
    out += ",\"variables\":" + std::string(object_text(operation.variables_json, "the variables"));
  }
  if (!operation.operation_name.empty()) out += ",\"operationName\":" + quoted(operation.operation_name, "the operation name");
  if (!operation.extensions_json.empty()) {
    out += ",\"extensions\":" + std::string(object_text(operation.extensions_json, "the extensions"));
  }
  out += "}}";
  return out;
}

std::string encode_complete(Subprotocol subprotocol, std::string_view id) {
  return with_id(id, subprotocol == Subprotocol::GraphqlTransportWs ? "complete" : "stop") + "}";
}

std::string encode_ping(Subprotocol subprotocol, std::string_view payload_json) {
  require(subprotocol, Subprotocol::GraphqlTransportWs, "ping");
  return type_only("ping", payload_json);
}

std::string encode_pong(Subprotocol subprotocol, std::string_view payload_json) {
  require(subprotocol, Subprotocol::GraphqlTransportWs, "pong");
  return type_only("pong", payload_json);
}

std::string encode_connection_terminate(Subprotocol subprotocol) {
  require(subprotocol, Subprotocol::GraphqlWs, "connection_terminate");
  // subscriptions-transport-ws sends the null payload it was given.
  return "{\"type\":\"connection_terminate\",\"payload\":null}";
}

Decoded decode_server_message(Subprotocol subprotocol, std::string_view frame) {
  const std::string prefix = std::string(subprotocol_name(subprotocol)) + ": ";
  Fields f;
  if (std::string problem = read_fields(frame, f); !problem.empty()) return prefix + problem;
  if (f.type_not_string) return prefix + "\"type\" is not a string";
  if (!f.type || f.type->empty()) return prefix + "the message has no \"type\"";

  const bool transport_ws = subprotocol == Subprotocol::GraphqlTransportWs;
  const Rule* rule = nullptr;
  if (transport_ws) {
    for (const Rule& r : kTransportWsTypes) {
      if (r.name == *f.type) rule = &r;
    }
    if (!rule && (*f.type == "connection_init" || *f.type == "subscribe")) {
      return prefix + "\"" + *f.type + "\" is a client message, not one a server sends";
    }
  } else {
    for (const Rule& r : kLegacyTypes) {
      if (r.name == *f.type) rule = &r;
    }
  }
  if (!rule) return prefix + "unknown message type \"" + *f.type + "\"";
  const std::string what = prefix + "\"" + *f.type + "\" message: ";

  ServerMessage message;
  message.type = rule->type;
  if (f.id_not_string) return what + "\"id\" is not a string";
  if (rule->needs_id && (!f.id || f.id->empty())) return what + "needs a non-empty string \"id\"";
  if (f.id) message.id = std::move(*f.id);
  const bool has_payload = !f.payload.empty() && f.payload_kind != JsonKind::Null;

  switch (rule->type) {
    case Type::ConnectionAck:
    case Type::Ping:
    case Type::Pong:
      if (transport_ws && has_payload && f.payload_kind != JsonKind::Object) {
        return what + "the payload must be an object, null or absent, not " + kind_name(f.payload_kind);
      }
      break;
    case Type::Next:
      if (f.payload_kind != JsonKind::Object) return what + "the payload must be an object, not " + kind_name(f.payload_kind);
      break;
    case Type::Error:
      if (transport_ws && (f.payload_kind != JsonKind::Array || !are_graphql_errors(f.payload))) {
        return what + "the payload must be a non-empty array of GraphQL errors (objects with \"message\")";
      }
      break;
    case Type::ConnectionError:
    case Type::KeepAlive:
    case Type::Complete:
      break;
  }
  if (has_payload) message.payload.assign(f.payload);
  return message;
}

}  // namespace stampede::proto::gql
