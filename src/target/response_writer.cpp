#include "target/response_writer.hpp"

#include <algorithm>
#include <charconv>

namespace stampede::target {
namespace {

void append_decimal(std::string& out, std::size_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

void append_hex(std::string& out, std::size_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value, 16);
  out.append(digits, end);
}

// 1xx, 204 and 304 responses never carry a body (RFC 9110 6.4.1).
bool status_has_body(int status) { return status >= 200 && status != 204 && status != 304; }

}  // namespace

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

void append_continue(std::string& out) { out.append("HTTP/1.1 100 Continue\r\n\r\n"); }

void append_response(std::string& out, const Response& response, const ResponseFraming& framing,
                     std::string_view date_line) {
  const auto body = response.body_view();
  const bool has_body = status_has_body(response.status);
  const bool chunked = has_body && response.chunk_bytes > 0 && framing.version_minor >= 1;

  out.append("HTTP/1.1 ");
  append_decimal(out, static_cast<std::size_t>(response.status));
  out.push_back(' ');
  out.append(reason_phrase(response.status));
  out.append("\r\nServer: stampede-target\r\n");
  out.append(date_line);
  if (has_body) {
    if (!response.content_type.empty()) {
      out.append("Content-Type: ");
      out.append(response.content_type);
      out.append("\r\n");
    }
    if (chunked) {
      out.append("Transfer-Encoding: chunked\r\n");
    } else {
      out.append("Content-Length: ");
      append_decimal(out, body.size());
      out.append("\r\n");
    }
  }
  out.append(response.headers);
  if (!framing.keep_alive) {
    out.append("Connection: close\r\n");
  } else if (framing.version_minor == 0) {
    out.append("Connection: keep-alive\r\n");
  }
  out.append("\r\n");

  if (!has_body || framing.head_request) return;
  if (!chunked) {
    out.append(body);
    return;
  }
  for (std::size_t at = 0; at < body.size(); at += response.chunk_bytes) {
    const auto piece = body.substr(at, response.chunk_bytes);
    append_hex(out, piece.size());
    out.append("\r\n");
    out.append(piece);
    out.append("\r\n");
  }
  out.append("0\r\n\r\n");
}

}  // namespace stampede::target
