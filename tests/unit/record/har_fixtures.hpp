#pragma once
// Small HAR documents for the record layer's tests, written the way Chromium exports them.
#include <boost/json.hpp>

#include <string>
#include <vector>

namespace stampede::record::testing {

namespace json = boost::json;

inline json::object har_entry(std::string method, std::string url, int status, std::string mime = "text/html",
                              std::string body = "", std::string started = "2025-03-01T10:00:00.000Z",
                              std::string resource_type = "document") {
  json::object content{{"size", body.size()}, {"mimeType", mime}};
  if (!body.empty()) content["text"] = body;
  return json::object{
      {"startedDateTime", started},
      {"time", 5},
      {"_resourceType", resource_type},
      {"request", json::object{{"method", method}, {"url", url}, {"httpVersion", "HTTP/1.1"}, {"headers", json::array{}}}},
      {"response", json::object{{"status", status}, {"headers", json::array{}}, {"content", content}}},
  };
}

inline json::object ws_entry(std::string url, std::string started, json::array messages) {
  auto entry = har_entry("GET", std::move(url), 101, "", "", std::move(started), "websocket");
  entry["_webSocketMessages"] = std::move(messages);
  return entry;
}

// {type, time (epoch seconds), opcode, data}
inline json::object ws_message(bool sent, double epoch_seconds, std::string data, int opcode = 1) {
  return json::object{{"type", sent ? "send" : "receive"}, {"time", epoch_seconds}, {"opcode", opcode}, {"data", data}};
}

inline std::string har(const json::array& entries, std::string version = "1.2") {
  return json::serialize(json::object{
      {"log", json::object{{"version", version},
                           {"creator", json::object{{"name", "WebInspector"}, {"version", "537.36"}}},
                           {"pages", json::array{}},
                           {"entries", entries}}}});
}

// 2025-03-01T10:00:00Z in epoch seconds, the fixtures' start.
inline constexpr double kStart = 1740823200.0;

}  // namespace stampede::record::testing
