#include "record/proxy_heads.hpp"

#include "proto/http_text.hpp"

namespace stampede::record {
namespace {

using proto::http_text::iequals;

void write_header(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out += ": ";
  out.append(value);
  out += "\r\n";
}

}  // namespace

std::string browser_origin(const proto::HttpRequest& request, const ProxyEndpoints& endpoints) {
  const auto* host = request.header("host");
  if (host == nullptr || host->empty()) return endpoints.proxy_origin;
  return "http://" + *host;
}

std::string replace_origin(std::string_view url, std::string_view from, std::string_view to) {
  if (from.empty() || url.size() < from.size() || !iequals(url.substr(0, from.size()), from))
    return std::string(url);
  const auto rest = url.substr(from.size());
  if (!rest.empty() && rest.front() != '/' && rest.front() != '?' && rest.front() != '#') return std::string(url);
  return std::string(to) + std::string(rest);
}

std::string forwarded_request_value(const proto::HttpHeader& header, std::string_view browser,
                                    const ProxyEndpoints& endpoints) {
  if (header.name == "host") return endpoints.app_authority;
  if (header.name == "origin" || header.name == "referer")
    return replace_origin(header.value, browser, endpoints.app_origin);
  return header.value;
}

void write_forwarded_request_head(std::string& out, const proto::HttpRequest& request,
                                  const ProxyEndpoints& endpoints) {
  out += request.method;
  out += ' ';
  out += request.target;
  out += request.version_minor == 0 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n";
  const auto browser = browser_origin(request, endpoints);
  for (const auto& header : request.headers)
    write_header(out, header.name, forwarded_request_value(header, browser, endpoints));
  out += "\r\n";
}

void write_forwarded_response_head(std::string& out, const proto::HttpResponseHead& head,
                                   const ProxyEndpoints& endpoints, std::string_view browser) {
  out += head.version_minor == 0 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(head.status);
  out += ' ';
  out += head.reason;
  out += "\r\n";
  for (const auto& header : head.headers) {
    if (header.name == "location") {
      write_header(out, header.name, replace_origin(header.value, endpoints.app_origin, browser));
    } else {
      write_header(out, header.name, header.value);
    }
  }
  out += "\r\n";
}

void write_proxy_response(std::string& out, int status, std::string_view reason, std::string_view text) {
  std::string body(text);
  body += '\n';
  out += "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  write_header(out, "content-type", "text/plain; charset=utf-8");
  write_header(out, "content-length", std::to_string(body.size()));
  write_header(out, "connection", "close");
  out += "\r\n";
  out += body;
}

}  // namespace stampede::record
