#include "record/har_writer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <cstdio>

#include "proto/base64.hpp"
#include "proto/websocket_frame.hpp"
#include "record/har_reader.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;

// A string a JSON document can hold: UTF-8 as it is, anything else read as Latin-1.
std::string utf8(std::string_view text) {
  if (proto::ws::is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() * 2);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xC0 | (byte >> 6));
      out += static_cast<char>(0x80 | (byte & 0x3F));
    }
  }
  return out;
}

json::array headers_of(const std::vector<Header>& headers) {
  json::array out;
  for (const auto& header : headers) out.push_back(json::object{{"name", utf8(header.name)}, {"value", utf8(header.value)}});
  return out;
}

json::object request_of(const Exchange& exchange) {
  json::object request{{"method", exchange.method},
                       {"url", utf8(exchange.url)},
                       {"httpVersion", "HTTP/1.1"},
                       {"headers", headers_of(exchange.request_headers)},
                       {"queryString", json::array()},
                       {"cookies", json::array()},
                       {"headersSize", -1},
                       {"bodySize", exchange.request_body.size()}};
  if (!exchange.request_body.empty() && proto::ws::is_valid_utf8(exchange.request_body))
    request["postData"] = json::object{{"mimeType", exchange.request_mime}, {"text", exchange.request_body}};
  return request;
}

json::object response_of(const Exchange& exchange) {
  json::object content{{"size", exchange.response_body.size()}, {"mimeType", utf8(exchange.response_mime)}};
  if (exchange.response_body_kept) {
    if (proto::ws::is_valid_utf8(exchange.response_body)) {
      content["text"] = exchange.response_body;
    } else {
      content["text"] = proto::base64(exchange.response_body);
      content["encoding"] = "base64";
    }
  }
  const auto* location = exchange.response_header("location");
  return json::object{{"status", exchange.status},
                      {"statusText", ""},
                      {"httpVersion", "HTTP/1.1"},
                      {"headers", headers_of(exchange.response_headers)},
                      {"cookies", json::array()},
                      {"content", std::move(content)},
                      {"redirectURL", location != nullptr ? utf8(*location) : std::string()},
                      {"headersSize", -1},
                      {"bodySize", -1}};
}

json::array messages_of(const Exchange& exchange, double epoch_ms_at_zero) {
  json::array out;
  for (const auto& frame : exchange.frames) {
    const bool binary = frame.binary || !proto::ws::is_valid_utf8(frame.data);
    out.push_back(json::object{{"type", frame.sent ? "send" : "receive"},
                               {"time", (epoch_ms_at_zero + frame.at_ms) / 1000.0},
                               {"opcode", binary ? 2 : 1},
                               {"data", binary ? proto::base64(frame.data) : frame.data}});
  }
  return out;
}

}  // namespace

std::string format_iso8601_ms(double epoch_ms) {
  const auto total_ms = static_cast<long long>(std::llround(epoch_ms));
  long long days = total_ms / 86400000;
  long long ms_of_day = total_ms % 86400000;
  if (ms_of_day < 0) {
    ms_of_day += 86400000;
    --days;
  }
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  const long long z = days + 719468;
  const long long era = (z >= 0 ? z : z - 146096) / 146097;
  const long long doe = z - era * 146097;
  const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long long mp = (5 * doy + 2) / 153;
  const long long day = doy - (153 * mp + 2) / 5 + 1;
  const long long month = mp < 10 ? mp + 3 : mp - 9;
  const long long year = yoe + era * 400 + (month <= 2);
  char text[96];
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", year, month, day,
                ms_of_day / 3600000, ms_of_day / 60000 % 60, ms_of_day / 1000 % 60, ms_of_day % 1000);
  return text;
}

std::string write_har(const Recording& recording, std::string_view creator_version) {
  double zero = 0;
  if (!parse_iso8601_ms(recording.started_at, zero)) zero = 0;
  // started_at is the first exchange's start: times in the recording count from there.
  if (!recording.exchanges.empty()) zero -= recording.exchanges.front().started_ms;
  json::array entries;
  for (const auto& exchange : recording.exchanges) {
    json::object entry{{"startedDateTime", format_iso8601_ms(zero + exchange.started_ms)},
                       {"time", std::max(0.0, exchange.ended_ms - exchange.started_ms)},
                       {"request", request_of(exchange)},
                       {"response", response_of(exchange)},
                       {"cache", json::object()},
                       {"timings", json::object{{"send", 0}, {"wait", std::max(0.0, exchange.ended_ms - exchange.started_ms)},
                                                {"receive", 0}}}};
    if (!exchange.resource_type.empty()) entry["_resourceType"] = exchange.resource_type;
    if (exchange.websocket) entry["_webSocketMessages"] = messages_of(exchange, zero);
    entries.push_back(std::move(entry));
  }
  const json::object har{
      {"log", json::object{{"version", "1.2"},
                           {"creator", json::object{{"name", "stampede record"}, {"version", std::string(creator_version)}}},
                           {"pages", json::array()},
                           {"entries", std::move(entries)}}}};
  return json::serialize(har) + "\n";
}

}  // namespace stampede::record
