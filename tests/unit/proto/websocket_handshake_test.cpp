#include "proto/websocket_handshake.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "proto/http_request_parser.hpp"
#include "proto/http_response_parser.hpp"
#include "proto/permessage_deflate.hpp"

namespace stampede::proto::ws {
namespace {

HttpResponseHead parse_head(const std::string& bytes) {
  HttpResponseParser parser;
  parser.feed(bytes);
  EXPECT_TRUE(parser.head_complete()) << parser.error();
  return parser.head();
}

HttpRequest parse_request(const std::string& bytes) {
  HttpRequestParser parser;
  parser.feed(bytes);
  EXPECT_TRUE(parser.done()) << parser.error();
  return parser.request();
}

UpgradeRequest sample_request() {
  UpgradeRequest r;
  r.target = "/socket/websocket?vsn=2.0.0";
  r.host = "example.com:4000";
  r.key = "dGhlIHNhbXBsZSBub25jZQ==";
  return r;
}

std::string good_101(std::string_view extra = "") {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n" +
         std::string(extra) + "\r\n";
}

UpgradeResult check(const UpgradeRequest& request, const std::string& response, std::string_view body = {}) {
  return check_upgrade_response(request, parse_head(response), body);
}

// ---- keys -------------------------------------------------------------------------------------

TEST(WebSocketHandshake, AcceptValueOfTheRfcExample) {
  EXPECT_EQ(accept_value("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketHandshake, KeysAreFreshBase64Of16Bytes) {
  const std::string a = make_key();
  const std::string b = make_key();
  EXPECT_NE(a, b);
  ASSERT_EQ(a.size(), 24u);
  unsigned char decoded[24];
  EXPECT_EQ(EVP_DecodeBlock(decoded, reinterpret_cast<const unsigned char*>(a.data()), 24), 18);  // 16 + 2 padding
  EXPECT_EQ(a.substr(22), "==");
}

// ---- the client's request ---------------------------------------------------------------------

TEST(WebSocketHandshake, RequestCarriesTheHandshakeHeadersAndTheUsers) {
  UpgradeRequest r = sample_request();
  r.subprotocols = {"phoenix", "base64url.bearer.phx.dG9r/ZW4"};
  r.extensions = deflate_offer();
  r.headers = {{"Origin", "https://example.com"}, {"Cookie", "_app_key=1"}};
  std::string out;
  write_upgrade_request(out, r);
  EXPECT_EQ(out.rfind("GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\n", 0), 0u) << out;
  const HttpRequest parsed = parse_request(out);
  EXPECT_EQ(*parsed.header("host"), "example.com:4000");
  EXPECT_EQ(*parsed.header("upgrade"), "websocket");
  EXPECT_EQ(*parsed.header("connection"), "Upgrade");
  EXPECT_EQ(*parsed.header("sec-websocket-key"), "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(*parsed.header("sec-websocket-version"), "13");
  EXPECT_EQ(*parsed.header("sec-websocket-protocol"), "phoenix, base64url.bearer.phx.dG9r/ZW4");
  EXPECT_EQ(*parsed.header("sec-websocket-extensions"), "permessage-deflate; client_max_window_bits");
  EXPECT_EQ(*parsed.header("origin"), "https://example.com");
  EXPECT_EQ(*parsed.header("cookie"), "_app_key=1");
  EXPECT_EQ(parsed.header("content-length"), nullptr);
  // And our own server side accepts it.
  EXPECT_TRUE(check_upgrade_request(parsed).ok);
}

TEST(WebSocketHandshake, RequestWithoutOptionsHasNoProtocolOrExtensionHeader) {
  std::string out;
  write_upgrade_request(out, sample_request());
  const HttpRequest parsed = parse_request(out);
  EXPECT_EQ(parsed.header("sec-websocket-protocol"), nullptr);
  EXPECT_EQ(parsed.header("sec-websocket-extensions"), nullptr);
}

TEST(WebSocketHandshake, RequestRefusesHeadersTheHandshakeOwnsAndBadSubprotocols) {
  for (const char* owned : {"Upgrade", "connection", "Sec-WebSocket-Key", "sec-websocket-version",
                            "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions"}) {
    UpgradeRequest r = sample_request();
    r.headers = {{owned, "x"}};
    std::string out = "kept";
    EXPECT_THROW(write_upgrade_request(out, r), std::invalid_argument) << owned;
    EXPECT_EQ(out, "kept");
  }
  for (const char* bad : {"", "two words", "a,b", "tab\there"}) {
    UpgradeRequest r = sample_request();
    r.subprotocols = {bad};
    std::string out;
    EXPECT_THROW(write_upgrade_request(out, r), std::invalid_argument) << bad;
  }
  UpgradeRequest injected = sample_request();
  injected.headers = {{"Origin", "x\r\nEvil: 1"}};
  std::string out;
  EXPECT_THROW(write_upgrade_request(out, injected), std::invalid_argument);
}

// ---- the server's answer, as the client checks it ---------------------------------------------

TEST(WebSocketHandshake, AGood101IsAccepted) {
  const UpgradeResult result = check(sample_request(), good_101());
  EXPECT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.subprotocol, "");
  EXPECT_TRUE(result.extensions.empty());
}

TEST(WebSocketHandshake, UpgradeAndConnectionCompareCaseInsensitivelyAsLists) {
  const std::string response =
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, UPGRADE\r\n"
      "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
  EXPECT_TRUE(check(sample_request(), response).ok);
}

TEST(WebSocketHandshake, A101WithoutTheUpgradeHeadersIsRefused) {
  const auto no_upgrade = check(sample_request(),
                                "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
                                "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
  EXPECT_FALSE(no_upgrade.ok);
  EXPECT_NE(no_upgrade.error.find("not to WebSocket"), std::string::npos) << no_upgrade.error;
  const auto h2c = check(sample_request(),
                         "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n"
                         "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
  EXPECT_NE(h2c.error.find("\"h2c\""), std::string::npos) << h2c.error;
  const auto no_connection = check(sample_request(),
                                   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                   "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n");
  EXPECT_NE(no_connection.error.find("Connection: Upgrade"), std::string::npos) << no_connection.error;
}

TEST(WebSocketHandshake, TheAcceptValueMustMatchTheKey) {
  UpgradeRequest other = sample_request();
  other.key = "AAAAAAAAAAAAAAAAAAAAAA==";
  const auto wrong = check(other, good_101());
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.error.find("expected \"" + accept_value(other.key) + "\""), std::string::npos) << wrong.error;
  const auto missing = check(sample_request(), "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                               "Connection: Upgrade\r\n\r\n");
  EXPECT_NE(missing.error.find("no Sec-WebSocket-Accept"), std::string::npos) << missing.error;
}

TEST(WebSocketHandshake, TheChosenSubprotocolMustHaveBeenOffered) {
  UpgradeRequest r = sample_request();
  r.subprotocols = {"phoenix", "mqtt"};
  const auto chosen = check(r, good_101("Sec-WebSocket-Protocol: mqtt\r\n"));
  EXPECT_TRUE(chosen.ok) << chosen.error;
  EXPECT_EQ(chosen.subprotocol, "mqtt");
  const auto other = check(r, good_101("Sec-WebSocket-Protocol: stomp\r\n"));
  EXPECT_NE(other.error.find("\"stomp\", which was not offered"), std::string::npos) << other.error;
  const auto none = check(r, good_101());
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("accepted none of the offered subprotocols (phoenix, mqtt)"), std::string::npos)
      << none.error;
  EXPECT_NE(none.error.find("auth_token"), std::string::npos) << none.error;
  const auto two = check(r, good_101("Sec-WebSocket-Protocol: phoenix, mqtt\r\n"));
  EXPECT_NE(two.error.find("several subprotocols"), std::string::npos) << two.error;
  const auto unasked = check(sample_request(), good_101("Sec-WebSocket-Protocol: phoenix\r\n"));
  EXPECT_FALSE(unasked.ok);
}

TEST(WebSocketHandshake, AcceptedExtensionsMustHaveBeenOfferedOnce) {
  UpgradeRequest r = sample_request();
  r.extensions = deflate_offer();
  const auto accepted = check(r, good_101("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits=10\r\n"));
  ASSERT_TRUE(accepted.ok) << accepted.error;
  ASSERT_EQ(accepted.extensions.size(), 1u);
  EXPECT_EQ(accepted.extensions[0].name, "permessage-deflate");
  ASSERT_EQ(accepted.extensions[0].params.size(), 1u);
  EXPECT_EQ(accepted.extensions[0].params[0], (ExtensionParam{"client_max_window_bits", "10"}));

  EXPECT_FALSE(check(sample_request(), good_101("Sec-WebSocket-Extensions: permessage-deflate\r\n")).ok);
  const auto unknown = check(r, good_101("Sec-WebSocket-Extensions: x-webkit-deflate-frame\r\n"));
  EXPECT_NE(unknown.error.find("x-webkit-deflate-frame"), std::string::npos) << unknown.error;
  const auto twice = check(r, good_101("Sec-WebSocket-Extensions: permessage-deflate\r\n"
                                       "Sec-WebSocket-Extensions: permessage-deflate\r\n"));
  EXPECT_NE(twice.error.find("twice"), std::string::npos) << twice.error;
  const auto malformed = check(r, good_101("Sec-WebSocket-Extensions: permessage-deflate; =3\r\n"));
  EXPECT_NE(malformed.error.find("malformed"), std::string::npos) << malformed.error;
}

TEST(WebSocketHandshake, RefusalsComeWithAdvice) {
  const UpgradeRequest r = sample_request();
  const auto forbidden = check(r, "HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
  EXPECT_FALSE(forbidden.ok);
  EXPECT_EQ(forbidden.error,
            "the server answered 403: Phoenix rejects unknown origins (check_origin) and failed connects with 403; "
            "pass headers = {origin = ...} or set check_origin: false, and check the socket params/token");
  const auto missing = check(r, "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(missing.error.find("no WebSocket endpoint at /socket/websocket (Phoenix sockets live at <mount>/websocket"),
            std::string::npos)
      << missing.error;
  const auto bad = check(r, "HTTP/1.1 400 Bad Request\r\ncontent-length: 41\r\n\r\n",
                         "'connection' header must contain 'upgrade'");
  EXPECT_NE(bad.error.find("400"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("(the body says: \"'connection' header must contain 'upgrade'\")"), std::string::npos)
      << bad.error;
  const auto page = check(r, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(page.error.find("the server answered with a page, not an upgrade"), std::string::npos) << page.error;
  EXPECT_NE(page.error.find("is this the socket path?"), std::string::npos) << page.error;
  const auto moved = check(r, "HTTP/1.1 301 Moved\r\nlocation: https://elsewhere/\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(moved.error.find("redirecting to https://elsewhere/"), std::string::npos) << moved.error;
  const auto version = check(r, "HTTP/1.1 426 Upgrade Required\r\nsec-websocket-version: 8\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(version.error.find("(it speaks 8)"), std::string::npos) << version.error;
  const auto crash = check(r, "HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(crash.error.find("500"), std::string::npos) << crash.error;
  const auto limited = check(r, "HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n");
  EXPECT_NE(limited.error.find("limiting the rate"), std::string::npos) << limited.error;
}

// ---- extension syntax ---------------------------------------------------------------------------

TEST(WebSocketHandshake, ExtensionListsParse) {
  std::vector<Extension> out;
  ASSERT_TRUE(parse_extensions(
      "permessage-deflate; client_max_window_bits; server_max_window_bits=\"10\" , , X-Other ;A=b", out));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "permessage-deflate");
  EXPECT_EQ(out[0].params, (std::vector<ExtensionParam>{{"client_max_window_bits", std::nullopt},
                                                        {"server_max_window_bits", "10"}}));
  EXPECT_EQ(out[1].name, "x-other");
  EXPECT_EQ(out[1].params, (std::vector<ExtensionParam>{{"a", "b"}}));
  std::vector<Extension> empty;
  EXPECT_TRUE(parse_extensions("", empty));
  EXPECT_TRUE(empty.empty());
  for (const char* bad : {"; x", "a;", "a; b=", "a; b=\"unterminated", "a; b=\"not a token\"", "a b", "a; b=c d",
                          "a; b=\"x\\"}) {
    std::vector<Extension> ignored;
    EXPECT_FALSE(parse_extensions(bad, ignored)) << bad;
  }
}

// ---- the server side ------------------------------------------------------------------------------

std::string browser_request(std::string_view extra = "") {
  return "GET /live/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: localhost:4000\r\nUpgrade: websocket\r\n"
         "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Version: 13\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
         std::string(extra) + "\r\n";
}

TEST(WebSocketHandshake, ServerAcceptsABrowsersRequest) {
  const HttpRequest request = parse_request(browser_request(
      "Sec-WebSocket-Protocol: phoenix, mqtt\r\n"
      "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"));
  EXPECT_TRUE(is_upgrade_request(request));
  const UpgradeOffer offer = check_upgrade_request(request);
  ASSERT_TRUE(offer.ok) << offer.error;
  EXPECT_EQ(offer.key, "dGhlIHNhbXBsZSBub25jZQ==");
  EXPECT_EQ(offer.subprotocols, (std::vector<std::string>{"phoenix", "mqtt"}));
  ASSERT_EQ(offer.extensions.size(), 1u);
  EXPECT_EQ(offer.extensions[0].name, "permessage-deflate");

  std::string out;
  write_upgrade_response(out, offer.key, "phoenix", "permessage-deflate");
  EXPECT_EQ(out,
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: phoenix\r\n"
            "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n");
}

TEST(WebSocketHandshake, ServerAndClientAgree) {
  UpgradeRequest r = sample_request();
  r.key = make_key();
  r.subprotocols = {"phoenix"};
  r.extensions = deflate_offer();
  std::string request_bytes;
  write_upgrade_request(request_bytes, r);
  const UpgradeOffer offer = check_upgrade_request(parse_request(request_bytes));
  ASSERT_TRUE(offer.ok) << offer.error;
  const auto params = deflate_accept_offer(offer.extensions);
  ASSERT_TRUE(params.has_value());
  std::string response;
  write_upgrade_response(response, offer.key, offer.subprotocols.front(), deflate_response(*params));
  const UpgradeResult result = check(r, response);
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.subprotocol, "phoenix");
  ASSERT_EQ(result.extensions.size(), 1u);
  std::string why;
  EXPECT_EQ(deflate_params_from_response(result.extensions[0], why), params) << why;
}

TEST(WebSocketHandshake, ServerRefusesMalformedRequestsLikeWebsockAdapter) {
  struct Case {
    std::string request;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"POST /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nContent-Length: 0\r\n\r\n",
       400, "must be a GET"},
      {"GET /ws HTTP/1.0\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
       400, "HTTP/1.1"},
      {"GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
       400, "'upgrade' header"},
      {"GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
       400, "'connection' header"},
      {"GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n"
       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
       426, "version \"8\""},
      {"GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n",
       400, "missing"},
      {"GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
       "Sec-WebSocket-Key: short\r\n\r\n",
       400, "base64 of 16 bytes"},
      {browser_request("Sec-WebSocket-Extensions: permessage-deflate; =x\r\n"), 400, "malformed"},
  };
  for (const auto& c : cases) {
    const UpgradeOffer offer = check_upgrade_request(parse_request(c.request));
    EXPECT_FALSE(offer.ok) << c.request;
    EXPECT_EQ(offer.status, c.status) << c.request;
    EXPECT_NE(offer.error.find(c.words), std::string::npos) << offer.error;
  }
  EXPECT_FALSE(is_upgrade_request(parse_request("GET / HTTP/1.1\r\nHost: h\r\n\r\n")));
}

TEST(WebSocketHandshake, ServerRefusalsAreCompleteResponses) {
  UpgradeOffer offer;
  offer.status = 426;
  offer.error = "unsupported WebSocket version";
  std::string out;
  write_upgrade_refusal(out, offer);
  HttpResponseParser parser;
  EXPECT_EQ(parser.feed(out), out.size());
  ASSERT_TRUE(parser.done());
  EXPECT_EQ(parser.head().status, 426);
  EXPECT_EQ(*find_header(parser.head().headers, "sec-websocket-version"), "13");
  EXPECT_EQ(parser.body(), offer.error);
  offer.status = 400;
  out.clear();
  write_upgrade_refusal(out, offer);
  EXPECT_EQ(out.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u);
}

}  // namespace
}  // namespace stampede::proto::ws
