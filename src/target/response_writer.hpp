#pragma once
// Serializes a Response onto a connection's output buffer: status line, framing headers,
// the route's headers, and the body (unless the request was HEAD or the status has none).
#include <string>
#include <string_view>

#include "target/response.hpp"

namespace stampede::target {

struct ResponseFraming {
  int version_minor = 1;      // of the request: an HTTP/1.0 client cannot read chunked bodies
  bool head_request = false;  // HEAD: headers as for GET, no body
  bool keep_alive = true;     // false: "Connection: close" and the connection ends after it
};

void append_response(std::string& out, const Response& response, const ResponseFraming& framing,
                     std::string_view date_line);

// "HTTP/1.1 100 Continue\r\n\r\n": the interim answer to "Expect: 100-continue".
void append_continue(std::string& out);

std::string_view reason_phrase(int status);

}  // namespace stampede::target
