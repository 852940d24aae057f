#pragma once
// The message heads the recording proxy forwards (recording_proxy.hpp), rewritten only where
// the browser and the app would otherwise see each other's address: the proxy is a reverse
// proxy in front of one app, and each side must keep believing it talks to the other directly.
//
//   browser -> app   Host: the app's authority. Origin and Referer: the browser's origin
//                    (http:// + the Host it sent) becomes the app's, so that Phoenix's
//                    check_origin and CSRF-by-origin checks see their own origin.
//   app -> browser   Location: an absolute URL on the app's origin moves to the browser's,
//                    so that a redirect keeps the browser on the proxy (relative ones, what
//                    Phoenix's redirect(to:) sends, pass as they are).
//
// Everything else passes unchanged, hop-by-hop headers included: each browser connection has
// its own connection to the app, so Connection, Keep-Alive, Upgrade, Transfer-Encoding and
// the Sec-WebSocket-* headers mean on the second hop what they meant on the first. Names are
// written lowercased, as the parsers give them (HTTP field names are case-insensitive;
// Cowboy and Bandit lowercase them anyway). Pure: no sockets.
#include <string>
#include <string_view>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"

namespace stampede::record {

struct ProxyEndpoints {
  std::string app_origin;     // "http://127.0.0.1:4000": scheme and authority, no path
  std::string app_authority;  // "127.0.0.1:4000": the Host the app is sent
  std::string proxy_origin;   // "http://127.0.0.1:8080": the browser's, when a request has no Host
};

// Where the browser believes it is: "http://" + the request's Host (proxy_origin without one).
std::string browser_origin(const proto::HttpRequest& request, const ProxyEndpoints& endpoints);

// `url` with the origin `from` replaced by `to` when it starts with it (the origin alone, or
// followed by '/', '?' or '#'; scheme and host compared case-insensitively); else unchanged.
std::string replace_origin(std::string_view url, std::string_view from, std::string_view to);

// The value a request header is forwarded with: Host, Origin and Referer rewritten as above
// for a request made from `browser` (browser_origin()), the others as they came.
std::string forwarded_request_value(const proto::HttpHeader& header, std::string_view browser,
                                    const ProxyEndpoints& endpoints);

// Appends the request line, the headers (rewritten as above) and the blank line.
void write_forwarded_request_head(std::string& out, const proto::HttpRequest& request,
                                  const ProxyEndpoints& endpoints);

// Appends the status line, the headers (Location rewritten for `browser`, the origin the
// request was made from) and the blank line.
void write_forwarded_response_head(std::string& out, const proto::HttpResponseHead& head,
                                   const ProxyEndpoints& endpoints, std::string_view browser);

// A response the proxy makes itself (502 when the app cannot be reached, 504 when it does
// not answer, 400 for a request it cannot read): a plain-text body, and Connection: close.
void write_proxy_response(std::string& out, int status, std::string_view reason, std::string_view text);

}  // namespace stampede::record
