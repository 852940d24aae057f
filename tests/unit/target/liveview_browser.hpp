#pragma once
// What a browser does with the LiveView demo, done by hand for the loopback tests: GET pages
// with a cookie jar (one connection per request), read the CSRF meta and the LiveView
// container from the HTML, open the LiveView socket with the cookie and the token, and
// speak V2 frames on it.
#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "target/loopback_client.hpp"
#include "target/ws_test_client.hpp"

namespace stampede::target::testing {

// What a page says to the LiveView client.
struct LivePage {
  ClientResponse response;
  std::string csrf;          // <meta name="csrf-token" content=...>
  std::string id;            // the container's id (the topic is "lv:" + id)
  std::string session;       // data-phx-session
  std::string static_token;  // data-phx-static
};

inline std::string first_match(const std::string& text, const std::regex& pattern) {
  std::smatch match;
  return std::regex_search(text, match, pattern) ? match[1].str() : std::string();
}

inline LivePage scan_page(ClientResponse response) {
  LivePage page;
  page.csrf = first_match(response.body, std::regex(R"re(<meta name="csrf-token" content="([^"]*)">)re"));
  page.id = first_match(response.body, std::regex(R"re(<div id="([^"]*)" data-phx-main)re"));
  page.session = first_match(response.body, std::regex(R"re(data-phx-session="([^"]*)")re"));
  page.static_token = first_match(response.body, std::regex(R"re(data-phx-static="([^"]*)")re"));
  page.response = std::move(response);
  return page;
}

class LiveViewBrowser {
 public:
  explicit LiveViewBrowser(std::uint16_t port) : port_(port) {}

  std::string origin() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // GET on a fresh connection, with the jar's cookies; the response's Set-Cookie goes in the jar.
  ClientResponse get(std::string_view path) {
    LoopbackClient http(port_);
    auto response = http.get(path, cookie_header());
    for (const auto& [name, value] : response.headers) {
      if (name != "set-cookie") continue;
      const auto equals = value.find('=');
      const auto end = value.find(';');
      cookies[value.substr(0, equals)] = value.substr(equals + 1, end - equals - 1);
      if (cookies[value.substr(0, equals)].empty()) cookies.erase(value.substr(0, equals));
    }
    return response;
  }

  LivePage load(std::string_view path) {
    auto page = scan_page(get(path));
    if (page.response.status != 200 || page.id.empty()) {
      throw std::runtime_error("no LiveView at " + std::string(path) + ": " + std::to_string(page.response.status));
    }
    return page;
  }

  // "Cookie: a=1; b=2\r\n", or "" with an empty jar.
  std::string cookie_header() const {
    if (cookies.empty()) return {};
    std::string line = "Cookie: ";
    bool first = true;
    for (const auto& [name, value] : cookies) {
      if (!first) line += "; ";
      first = false;
      line += name + "=" + value;
    }
    return line + "\r\n";
  }

  // The LiveView socket at `socket_path` with this CSRF token, carrying the jar's cookies.
  std::unique_ptr<WsTestClient> connect(std::string_view csrf, std::string_view socket_path = "/live/websocket",
                                        bool with_cookies = true) {
    auto client = std::make_unique<WsTestClient>(port_);
    client->open(std::string(socket_path) + "?_csrf_token=" + std::string(csrf) + "&_mounts=0&vsn=2.0.0",
                 with_cookies ? cookie_header() : std::string());
    return client;
  }

  // The join payload the LV client sends for a page at `url`.
  static std::string join_payload(const LivePage& page, std::string_view url, std::string_view csrf) {
    boost::json::object payload{
        {"url", url},
        {"params", boost::json::object{{"_csrf_token", csrf}, {"_mounts", 0}, {"_mount_attempts", 0}}},
        {"session", page.session},
        {"static", page.static_token},
        {"sticky", false}};
    return boost::json::serialize(payload);
  }

  std::map<std::string, std::string> cookies;

 private:
  std::uint16_t port_;
};

// Reads the next text frame and parses it as a V2 array.
inline boost::json::array next_frame(WsTestClient& client) {
  return boost::json::parse(client.next_text(std::chrono::milliseconds(3000))).as_array();
}

inline std::string frame_response(const boost::json::array& frame) {
  return boost::json::serialize(frame.at(4).as_object().at("response"));
}

}  // namespace stampede::target::testing
