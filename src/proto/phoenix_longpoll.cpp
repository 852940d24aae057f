// The LongPoll envelope. The response is walked with the Phoenix codec's element reader, so
// each message string is unescaped straight into its std::string without a DOM; the frames
// inside are then decoded by phoenix_message_decode.cpp like WebSocket text frames.
#include "proto/phoenix_longpoll.hpp"

#include <stdexcept>

#include "proto/base64.hpp"
#include "proto/json_string.hpp"
#include "proto/phoenix_json_reader.hpp"

namespace stampede::proto::phx::longpoll {
namespace {

using detail::JsonCursor;
using detail::JsonKind;
using detail::Read;

bool unreserved_in_uri_component(unsigned char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '-': case '_': case '.': case '!': case '~': case '*': case '\'': case '(': case ')': return true;
    default: return false;
  }
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// An integer written as plain digits (what Jason writes for a status), within 100-599.
std::optional<int> http_status(std::string_view raw) {
  if (raw.empty() || raw.size() > 3) return std::nullopt;
  int v = 0;
  for (const char c : raw) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 100 || v > 599) return std::nullopt;
  return v;
}

std::string read_messages(JsonCursor& in, std::vector<std::string>& messages) {
  if (!in.take('[')) {
    JsonKind kind;
    std::string_view ignored;
    if (detail::read_any(in, kind, ignored) != Read::Ok) return in.error();
    return kind == JsonKind::Null ? std::string() : std::string("\"messages\" is not an array");
  }
  if (in.take(']')) return {};
  for (;;) {
    std::string& message = messages.emplace_back();
    const Read r = detail::read_string(in, message);
    if (r == Read::BadJson) return in.error();
    if (r == Read::WrongType) {
      return "message " + std::to_string(messages.size() - 1) +
             " is not a string (Phoenix sends each message as one serialized frame)";
    }
    if (in.take(',')) continue;
    if (in.take(']')) return {};
    return in.error();
  }
}

}  // namespace

void append_uri_component(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (unreserved_in_uri_component(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
}

std::string endpoint_url(std::string_view socket_endpoint, std::span<const QueryParam> params, std::string_view vsn) {
  std::string out;
  if (starts_with(socket_endpoint, "ws://")) {
    out = "http://";
    socket_endpoint.remove_prefix(5);
  } else if (starts_with(socket_endpoint, "wss://")) {
    out = "https://";
    socket_endpoint.remove_prefix(6);
  } else if (starts_with(socket_endpoint, "http://") || starts_with(socket_endpoint, "https://")) {
    // kept as it is
  } else {
    throw std::invalid_argument("longpoll: the socket endpoint must be an absolute ws, wss, http or https URL");
  }
  if (socket_endpoint.find_first_of("?#") != std::string_view::npos) {
    throw std::invalid_argument("longpoll: the socket endpoint cannot have a query or a fragment (pass params)");
  }
  out += socket_endpoint;
  out += kTransportPath;
  char separator = '?';
  for (const QueryParam& p : params) {
    out += separator;
    append_uri_component(out, p.key);
    out += '=';
    append_uri_component(out, p.value);
    separator = '&';
  }
  out += separator;
  out += "vsn=";
  append_uri_component(out, vsn);
  return out;
}

std::string endpoint_from_websocket_url(std::string_view websocket_url) {
  std::string out;
  // String.replace with a string pattern replaces the first occurrence, wherever it is.
  auto replace_first = [](std::string& text, std::string_view from, std::string_view to) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  out.assign(websocket_url);
  replace_first(out, "ws://", "http://");
  replace_first(out, "wss://", "https://");
  constexpr std::string_view kWebSocket = "/websocket";
  const auto at = out.rfind(kWebSocket);
  if (at != std::string::npos) out.replace(at, kWebSocket.size(), "/longpoll");
  return out;
}

std::string request_url(std::string_view endpoint_url, std::optional<std::string_view> token) {
  std::string out(endpoint_url);
  out += endpoint_url.find('?') == std::string_view::npos ? '?' : '&';
  if (token) {
    out += "token=";
    append_uri_component(out, *token);
  }
  return out;
}

std::variant<Response, std::string> decode_response(std::string_view body) {
  constexpr std::string_view kWhat = "longpoll response: ";
  Response response;
  bool has_status = false;
  JsonCursor in(body);
  if (!in.take('{')) {
    JsonKind kind;
    std::string_view ignored;
    if (detail::read_any(in, kind, ignored) != Read::Ok || !in.at_end()) return std::string(kWhat) + in.error();
    return std::string(kWhat) + "not a JSON object";
  }
  if (!in.take('}')) {
    std::string key;
    for (;;) {
      if (detail::read_string(in, key) != Read::Ok || !in.take(':')) return std::string(kWhat) + in.error();
      if (key == "status") {
        JsonKind kind;
        std::string_view raw;
        if (detail::read_any(in, kind, raw) != Read::Ok) return std::string(kWhat) + in.error();
        const auto status = kind == JsonKind::Number ? http_status(raw) : std::nullopt;
        if (!status) return std::string(kWhat) + "\"status\" is not an HTTP status code (100-599): " + std::string(raw.substr(0, 40));
        response.status = *status;
        has_status = true;
      } else if (key == "token") {
        const Read r = detail::read_nullable_string(in, response.token);
        if (r == Read::BadJson) return std::string(kWhat) + in.error();
        if (r == Read::WrongType) return std::string(kWhat) + "\"token\" is not a string";
      } else if (key == "messages") {
        response.messages.clear();
        if (std::string problem = read_messages(in, response.messages); !problem.empty()) return std::string(kWhat) + problem;
      } else if (detail::skip_value(in) != Read::Ok) {
        return std::string(kWhat) + in.error();
      }
      if (in.take(',')) continue;
      if (in.take('}')) break;
      return std::string(kWhat) + in.error();
    }
  }
  if (!in.at_end()) return std::string(kWhat) + in.error();
  if (!has_status) return std::string(kWhat) + "no \"status\"";
  return response;
}

std::string decode_messages(const Response& response, Serializer serializer, std::vector<Message>& out) {
  out.resize(response.messages.size());
  for (std::size_t i = 0; i < response.messages.size(); ++i) {
    std::string error = decode_into(response.messages[i], false, serializer, Direction::ServerToClient, out[i]);
    if (!error.empty()) {
      out.resize(i);
      return "longpoll message " + std::to_string(i) + ": " + error;
    }
  }
  return {};
}

PollOutcome poll_outcome(int status, bool had_token) {
  switch (status) {
    case 200: return PollOutcome::Messages;
    case 204: return PollOutcome::NoMessages;
    case 410: return had_token ? PollOutcome::SessionGone : PollOutcome::Opened;
    case 403: return PollOutcome::Forbidden;
    case 0:
    case 500: return PollOutcome::ServerError;
    default: return PollOutcome::Unhandled;
  }
}

std::string encode_response(const Response& response) {
  const std::string status = std::to_string(response.status);
  if (!response.token && response.messages.empty()) return "{\"status\":" + status + "}";
  std::string out = "{\"messages\":[";
  for (std::size_t i = 0; i < response.messages.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, response.messages[i], "longpoll: a message");
  }
  out += "],\"status\":" + status + ",\"token\":";
  if (response.token) {
    append_json_string(out, *response.token, "longpoll: the token");
  } else {
    out += "null";
  }
  out += '}';
  return out;
}

std::string publish_body(std::span<const Frame> frames) {
  if (frames.empty()) throw std::invalid_argument("longpoll: a POST carries at least one message");
  if (frames.size() > kMaxBatchMessages) {
    throw std::invalid_argument("longpoll: a POST carries at most " + std::to_string(kMaxBatchMessages) + " messages");
  }
  std::string body;
  for (const Frame& frame : frames) {
    if (&frame != frames.data()) body += '\n';
    if (frame.binary_frame) {
      append_base64(body, frame.data);
    } else {
      if (frame.data.find_first_of("\r\n") != std::string::npos) {
        throw std::invalid_argument("longpoll: a message cannot hold a line break (the server splits the body at line breaks)");
      }
      body += frame.data;
    }
  }
  return body;
}

std::string publish_body(std::span<const MessageView> messages, Serializer serializer) {
  std::vector<Frame> frames(messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    frames[i].binary_frame = encode_into(messages[i], serializer, Direction::ClientToServer, frames[i].data);
  }
  return publish_body(frames);
}

std::vector<std::string_view> split_publish_body(std::string_view body, std::string_view content_type) {
  if (content_type != kBatchContentType) return {body};
  std::vector<std::string_view> lines;
  for (;;) {
    const std::size_t lf = body.find('\n');
    if (lf == std::string_view::npos) {
      lines.push_back(body);
      return lines;
    }
    // At a "\r\n" the longer separator matches, so the CR goes with it.
    const std::size_t end = lf > 0 && body[lf - 1] == '\r' ? lf - 1 : lf;
    lines.push_back(body.substr(0, end));
    body.remove_prefix(lf + 1);
  }
}

}  // namespace stampede::proto::phx::longpoll
