#pragma once
// What a route answers. A connection keeps one per pending request and reuses it, so the
// strings keep their capacity and a warmed-up connection builds responses without allocating.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"

namespace stampede::target {

struct Response {
  int status = 200;
  std::string_view content_type;  // string literals only
  std::string_view static_body;   // a body that outlives the response (constants)
  std::string body;               // a body built for this request, used when static_body is empty
  std::string headers;            // extra header lines, each "Name: value\r\n"
  std::size_t chunk_bytes = 0;    // > 0: send the body chunked, in pieces of this size
  std::optional<Nanos> delay;     // replaces the drawn hold time (GET /slow)

  std::string_view body_view() const { return static_body.empty() ? std::string_view(body) : static_body; }

  void set_static(int code, std::string_view type, std::string_view text) {
    status = code;
    content_type = type;
    static_body = text;
  }
  void set_owned(int code, std::string_view type, std::string text) {
    status = code;
    content_type = type;
    static_body = {};
    body = std::move(text);
  }
  void clear() {
    status = 200;
    content_type = {};
    static_body = {};
    body.clear();
    headers.clear();
    chunk_bytes = 0;
    delay.reset();
  }
};

inline constexpr std::string_view kJson = "application/json";
inline constexpr std::string_view kText = "text/plain; charset=utf-8";
inline constexpr std::string_view kHtml = "text/html; charset=utf-8";
inline constexpr std::string_view kJavaScript = "text/javascript";

}  // namespace stampede::target
