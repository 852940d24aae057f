#include "proto/websocket_handshake.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "proto/ascii.hpp"
#include "proto/base64.hpp"
#include "proto/http_request_writer.hpp"
#include "proto/http_text.hpp"

namespace stampede::proto::ws {

namespace {

using namespace http_text;

std::string base64_of(const unsigned char* data, std::size_t size) {
  return base64(std::string_view(reinterpret_cast<const char*>(data), size));
}

// base64 of 16 bytes: 22 characters and "==".
bool is_valid_key(std::string_view key) {
  const auto nonce = key.size() == 24 ? decode_base64(key) : std::nullopt;
  return nonce && nonce->size() == 16;
}

using ascii::lowercase;

// Whether any header line with that (lowercase) name lists `token` (case-insensitively).
bool lists_token(const std::vector<HttpHeader>& headers, std::string_view name, std::string_view token) {
  bool found = false;
  for (const auto& h : headers) {
    if (h.name != name) continue;
    for_each_list_element(h.value, [&](std::string_view element) { found = found || iequals(element, token); });
  }
  return found;
}

// Every line of a list-valued header, joined as one list.
std::string joined(const std::vector<HttpHeader>& headers, std::string_view name) {
  std::string out;
  for (const auto& h : headers) {
    if (h.name != name) continue;
    if (!out.empty()) out += ", ";
    out += h.value;
  }
  return out;
}

std::vector<std::string> list_elements(std::string_view list) {
  std::vector<std::string> out;
  for_each_list_element(list, [&](std::string_view element) { out.emplace_back(element); });
  return out;
}

// A subprotocol as servers split them: anything visible but a comma. Stricter would be the
// RFC's token, but Phoenix's auth-token subprotocol ("base64url.bearer.phx.<base64>") can
// hold '/', which Cowboy and Bandit accept.
bool is_subprotocol(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c > 0x20 && c < 0x7f && c != ',';
  });
}

// The start of a refusal's body, on one line, for the error message.
std::string body_excerpt(std::string_view body) {
  std::string out;
  for (const char ch : body.substr(0, 200)) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c < 0x20 || c == 0x7f) ? ' ' : ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.empty()) return {};
  return " (the body says: \"" + out + (body.size() > 200 ? "...\")" : "\")");
}

std::string path_of(std::string_view target) { return std::string(target.substr(0, target.find('?'))); }

std::string describe_refusal(const UpgradeRequest& request, const HttpResponseHead& head, std::string_view body) {
  const int status = head.status;
  const std::string answered = "the server answered " + std::to_string(status);
  std::string why;
  if (status == 403) {
    why = answered +
          ": Phoenix rejects unknown origins (check_origin) and failed connects with 403; pass headers = {origin = "
          "...} or set check_origin: false, and check the socket params/token";
  } else if (status == 404) {
    why = answered + ": no WebSocket endpoint at " + path_of(request.target) +
          " (Phoenix sockets live at <mount>/websocket, e.g. /socket/websocket or /live/websocket)";
  } else if (status == 400) {
    why = answered + ": the server found the upgrade request malformed";
  } else if (status == 426) {
    const std::string* versions = find_header(head.headers, "sec-websocket-version");
    why = answered + " Upgrade Required: the server does not accept WebSocket version 13" +
          (versions ? " (it speaks " + *versions + ")" : "");
  } else if (status == 401) {
    why = answered + ": the server wants authentication; check the token or cookie the socket needs";
  } else if (status == 429) {
    why = answered + ": the server is limiting the rate of connections";
  } else if (status >= 300 && status < 400) {
    const std::string* location = find_header(head.headers, "location");
    why = answered + (location ? " redirecting to " + *location : std::string(" (a redirect)")) +
          ": WebSocket connections do not follow redirects; connect to the final URL";
  } else if (status >= 200 && status < 300) {
    why = "the server answered with a page, not an upgrade (status " + std::to_string(status) +
          "): is this the socket path? (Phoenix sockets live at <mount>/websocket)";
  } else if (status >= 500) {
    why = answered + ": the upgrade failed on the server (its log says why)";
  } else {
    why = answered + " instead of 101 Switching Protocols";
  }
  return why + body_excerpt(body);
}

bool handshake_owns(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kOwned = {
      "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-protocol",
      "sec-websocket-extensions"};
  return std::any_of(kOwned.begin(), kOwned.end(), [&](std::string_view owned) { return iequals(name, owned); });
}

}  // namespace

std::string make_key() {
  unsigned char nonce[16];
  if (RAND_bytes(nonce, sizeof nonce) != 1) throw std::runtime_error("OpenSSL could not produce random bytes");
  return base64_of(nonce, sizeof nonce);
}

std::string accept_value(std::string_view key) {
  std::string input;
  input.reserve(key.size() + kHandshakeGuid.size());
  input.append(key).append(kHandshakeGuid);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(input.data(), input.size(), digest, &size, EVP_sha1(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL could not compute SHA-1");
  }
  return base64_of(digest, size);
}

bool parse_extensions(std::string_view value, std::vector<Extension>& out) {
  std::size_t i = 0;
  const std::size_t n = value.size();
  const auto skip_ows = [&] {
    while (i < n && (value[i] == ' ' || value[i] == '\t')) ++i;
  };
  const auto read_token = [&] {
    const std::size_t start = i;
    while (i < n && is_token_char(static_cast<unsigned char>(value[i]))) ++i;
    return value.substr(start, i - start);
  };
  for (;;) {
    skip_ows();
    if (i == n) return true;
    if (value[i] == ',') {  // empty list elements are allowed and skipped
      ++i;
      continue;
    }
    const std::string_view name = read_token();
    if (name.empty()) return false;
    Extension extension{lowercase(name), {}};
    skip_ows();
    while (i < n && value[i] == ';') {
      ++i;
      skip_ows();
      const std::string_view param_name = read_token();
      if (param_name.empty()) return false;
      ExtensionParam param{lowercase(param_name), std::nullopt};
      skip_ows();
      if (i < n && value[i] == '=') {
        ++i;
        skip_ows();
        std::string param_value;
        if (i < n && value[i] == '"') {
          ++i;
          bool closed = false;
          while (i < n) {
            char c = value[i++];
            if (c == '"') {
              closed = true;
              break;
            }
            if (c == '\\') {
              if (i == n) return false;
              c = value[i++];
            }
            param_value += c;
          }
          // RFC 6455 9.1: once unquoted, the value must still be a token.
          if (!closed || !is_token(param_value)) return false;
        } else {
          param_value = std::string(read_token());
          if (param_value.empty()) return false;
        }
        param.value = std::move(param_value);
        skip_ows();
      }
      extension.params.push_back(std::move(param));
    }
    if (i < n && value[i] != ',') return false;
    out.push_back(std::move(extension));
  }
}

void write_upgrade_request(std::string& out, const UpgradeRequest& request) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(request.headers.size() + 6);
  headers.emplace_back("Upgrade", "websocket");
  headers.emplace_back("Connection", "Upgrade");
  headers.emplace_back("Sec-WebSocket-Key", request.key);
  headers.emplace_back("Sec-WebSocket-Version", "13");
  if (!request.subprotocols.empty()) {
    std::string list;
    for (const auto& protocol : request.subprotocols) {
      if (!is_subprotocol(protocol)) {
        throw std::invalid_argument("invalid subprotocol \"" + protocol +
                                    "\": a subprotocol is visible ASCII without spaces or commas");
      }
      if (!list.empty()) list += ", ";
      list += protocol;
    }
    headers.emplace_back("Sec-WebSocket-Protocol", std::move(list));
  }
  if (!request.extensions.empty()) headers.emplace_back("Sec-WebSocket-Extensions", request.extensions);
  for (const auto& header : request.headers) {
    if (handshake_owns(header.first)) {
      throw std::invalid_argument("the header " + header.first +
                                  " is part of the WebSocket handshake and set by it; offer subprotocols with the "
                                  "subprotocols option and compression with the compression option");
    }
    headers.push_back(header);
  }
  write_request_head(out, "GET", request.target, request.host, headers, 0, false);
}

UpgradeResult check_upgrade_response(const UpgradeRequest& request, const HttpResponseHead& head,
                                     std::string_view body) {
  UpgradeResult result;
  if (head.status != 101) {
    result.error = describe_refusal(request, head, body);
    return result;
  }
  const auto& headers = head.headers;
  if (!lists_token(headers, "upgrade", "websocket")) {
    const std::string* upgrade = find_header(headers, "upgrade");
    result.error = "the server switched protocols, but not to WebSocket (Upgrade: " +
                   (upgrade ? "\"" + *upgrade + "\"" : std::string("missing")) + ")";
    return result;
  }
  if (!lists_token(headers, "connection", "upgrade")) {
    result.error = "the server's 101 response lacks \"Connection: Upgrade\"";
    return result;
  }
  const std::string* accept = find_header(headers, "sec-websocket-accept");
  const std::string expected = accept_value(request.key);
  if (accept == nullptr) {
    result.error = "the server's 101 response has no Sec-WebSocket-Accept header";
    return result;
  }
  if (*accept != expected) {
    result.error = "the server's Sec-WebSocket-Accept is \"" + *accept + "\", expected \"" + expected +
                   "\" (it was not computed from our key: a proxy or a broken server?)";
    return result;
  }

  const std::vector<std::string> chosen = list_elements(joined(headers, "sec-websocket-protocol"));
  if (chosen.size() > 1) {
    result.error = "the server chose several subprotocols (" + joined(headers, "sec-websocket-protocol") + ")";
    return result;
  }
  if (chosen.size() == 1) {
    const auto& offered = request.subprotocols;
    if (std::find(offered.begin(), offered.end(), chosen.front()) == offered.end()) {
      result.error = "the server chose the subprotocol \"" + chosen.front() + "\", which was not offered";
      return result;
    }
    result.subprotocol = chosen.front();
  } else if (!request.subprotocols.empty()) {
    std::string offered;
    for (const auto& protocol : request.subprotocols) offered += (offered.empty() ? "" : ", ") + protocol;
    result.error = "the server accepted none of the offered subprotocols (" + offered +
                   "), and browsers fail such a handshake too; offer none, or configure the socket to accept one "
                   "(Phoenix: auth_token: true answers \"phoenix\", or websocket: [subprotocols: [...]])";
    return result;
  }

  std::vector<Extension> offered_extensions;
  parse_extensions(request.extensions, offered_extensions);
  const std::string accepted = joined(headers, "sec-websocket-extensions");
  if (!parse_extensions(accepted, result.extensions)) {
    result.error = "the server's Sec-WebSocket-Extensions header is malformed: \"" + accepted + "\"";
    return result;
  }
  for (std::size_t i = 0; i < result.extensions.size(); ++i) {
    const std::string& name = result.extensions[i].name;
    const bool was_offered = std::any_of(offered_extensions.begin(), offered_extensions.end(),
                                         [&](const Extension& e) { return e.name == name; });
    if (!was_offered) {
      result.error = "the server accepted the extension \"" + name + "\", which was not offered";
      return result;
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (result.extensions[j].name == name) {
        result.error = "the server accepted the extension \"" + name + "\" twice";
        return result;
      }
    }
  }
  result.ok = true;
  return result;
}

bool is_upgrade_request(const HttpRequest& request) { return request.header_has_token("upgrade", "websocket"); }

UpgradeOffer check_upgrade_request(const HttpRequest& request) {
  UpgradeOffer offer;
  const auto refuse = [&offer](int status, std::string why) {
    offer.status = status;
    offer.error = std::move(why);
    return offer;
  };
  if (request.method != "GET") return refuse(400, "a WebSocket upgrade must be a GET request, not " + request.method);
  if (request.version_minor < 1) return refuse(400, "a WebSocket upgrade needs HTTP/1.1");
  if (!request.header_has_token("upgrade", "websocket")) return refuse(400, "'upgrade' header must contain 'websocket'");
  if (!request.header_has_token("connection", "upgrade")) {
    return refuse(400, "'connection' header must contain 'upgrade'");
  }
  const std::string* version = request.header("sec-websocket-version");
  if (version == nullptr || *version != "13") {
    return refuse(426, "unsupported WebSocket version " + (version ? "\"" + *version + "\"" : std::string("(none)")) +
                           "; this server speaks 13");
  }
  const std::string* key = request.header("sec-websocket-key");
  if (key == nullptr) return refuse(400, "'sec-websocket-key' header is missing");
  if (!is_valid_key(*key)) return refuse(400, "'sec-websocket-key' header must be base64 of 16 bytes");

  offer.subprotocols = list_elements(joined(request.headers, "sec-websocket-protocol"));
  const std::string extensions = joined(request.headers, "sec-websocket-extensions");
  if (!parse_extensions(extensions, offer.extensions)) {
    offer.extensions.clear();
    return refuse(400, "'sec-websocket-extensions' header is malformed");
  }
  offer.key = *key;
  offer.ok = true;
  return offer;
}

void write_upgrade_response(std::string& out, std::string_view key, std::string_view subprotocol,
                            std::string_view extensions) {
  out += "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ";
  out += accept_value(key);
  out += "\r\n";
  if (!subprotocol.empty()) out.append("Sec-WebSocket-Protocol: ").append(subprotocol).append("\r\n");
  if (!extensions.empty()) out.append("Sec-WebSocket-Extensions: ").append(extensions).append("\r\n");
  out += "\r\n";
}

void write_upgrade_refusal(std::string& out, const UpgradeOffer& offer) {
  const bool wrong_version = offer.status == 426;
  out += wrong_version ? "HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\n"
                       : "HTTP/1.1 " + std::to_string(offer.status == 0 ? 400 : offer.status) + " Bad Request\r\n";
  out += "Content-Type: text/plain\r\nContent-Length: " + std::to_string(offer.error.size()) + "\r\n\r\n";
  out += offer.error;
}

}  // namespace stampede::proto::ws
