#include "clients/url_target.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>
#include <charconv>
#include <system_error>

#include "clients/url_mistake.hpp"
#include "proto/http_text.hpp"

namespace stampede::clients {

namespace urls = boost::urls;

bool parse_url_target(std::string_view text, UrlSchemes schemes, UrlTarget& out, std::string& why) {
  const auto parsed = urls::parse_uri(text);
  if (!parsed) {
    why = describe_url_mistake(text, schemes);
    return false;
  }
  const urls::url_view& url = *parsed;
  const urls::scheme scheme = url.scheme_id();
  const bool web = scheme == urls::scheme::http || scheme == urls::scheme::https;
  const bool websocket = scheme == urls::scheme::ws || scheme == urls::scheme::wss;
  if ((schemes == UrlSchemes::http && !web) || (schemes == UrlSchemes::websocket && !websocket)) {
    why = describe_url_mistake(text, schemes);
    return false;
  }
  if (!url.has_authority() || url.encoded_host().empty()) {
    why = text.find("://") == std::string_view::npos ? describe_url_mistake(text, schemes) : "it has no host";
    return false;
  }
  out = UrlTarget{};
  out.url = std::string(url.buffer());
  out.tls = scheme == urls::scheme::https || scheme == urls::scheme::wss;
  std::string host_in_header;
  switch (url.host_type()) {
    case urls::host_type::ipv6:
      out.host = url.host_ipv6_address().to_string();
      host_in_header = "[" + out.host + "]";
      break;
    case urls::host_type::ipv4:
      out.host = url.host_ipv4_address().to_string();
      host_in_header = out.host;
      break;
    case urls::host_type::name:
      out.host = url.host_name();
      for (char& c : out.host) c = proto::http_text::ascii_lower(c);
      host_in_header = out.host;
      break;
    default:
      why = "its host form is not supported";
      return false;
  }
  const std::uint16_t default_port = out.tls ? 443 : 80;
  out.port = default_port;
  if (url.has_port() && !url.port().empty()) {
    // Boost.URL accepts any digits here (and port_number() wraps big ones around).
    const std::string_view digits = url.port();
    unsigned port = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (error != std::errc() || end != digits.data() + digits.size() || port == 0 || port > 65535) {
      why = "its port is not a valid port number";
      return false;
    }
    out.port = static_cast<std::uint16_t>(port);
  }
  out.host_header = host_in_header;
  if (out.port != default_port) out.host_header += ":" + std::to_string(out.port);

  out.path = std::string(url.encoded_path());
  if (!out.path.empty() && out.path.front() != '/') {
    // Boost.URL reads "http://h:http/" as the host "h", an empty port and the path "http/".
    why = describe_url_mistake(text, schemes);
    return false;
  }
  if (out.path.empty()) out.path = "/";
  out.request_target = out.path;
  if (url.has_query()) out.request_target += "?" + std::string(url.encoded_query());
  const char* scheme_name = web ? (out.tls ? "https" : "http") : (out.tls ? "wss" : "ws");
  out.origin = std::string(scheme_name) + "://" + host_in_header + ":" + std::to_string(out.port);
  return true;
}

std::shared_ptr<const UrlTarget> UrlTargetCache::find_or_parse(const std::string& url, std::string& why) {
  if (auto found = by_url_.find(url); found != by_url_.end()) return found->second;
  auto target = std::make_shared<UrlTarget>();
  if (!parse_url_target(url, schemes_, *target, why)) return nullptr;
  if (by_url_.size() >= kCapacity) by_url_.clear();
  by_url_.emplace(url, target);
  return target;
}

}  // namespace stampede::clients
