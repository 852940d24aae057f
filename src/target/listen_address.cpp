#include "target/listen_address.hpp"

#include <fmt/format.h>

#include <boost/asio/ip/address.hpp>
#include <charconv>

namespace stampede::target {

std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* error) {
  const auto fail = [&](std::string_view why) -> std::optional<ListenAddress> {
    if (error) {
      *error = fmt::format("invalid listen address \"{}\": {}; expected HOST:PORT, [IPV6]:PORT or PORT", text, why);
    }
    return std::nullopt;
  };

  std::string_view host = "127.0.0.1";
  std::string_view port_text = text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return fail("an IPv6 address needs the form [ADDRESS]:PORT");
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (host == "localhost") host = "127.0.0.1";

  unsigned port = 0;
  const auto* end = port_text.data() + port_text.size();
  const auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
  if (port_text.empty() || ec != std::errc() || ptr != end || port > 65535) {
    return fail(fmt::format("\"{}\" is not a port number (0-65535)", port_text));
  }
  boost::system::error_code address_error;
  const auto address = boost::asio::ip::make_address(std::string(host), address_error);
  if (address_error) return fail(fmt::format("\"{}\" is not an IP address", host));

  ListenAddress result;
  result.host = address.to_string();
  result.port = static_cast<std::uint16_t>(port);
  return result;
}

std::string listen_url(std::string_view host, std::uint16_t port) {
  if (host.find(':') != std::string_view::npos) return fmt::format("http://[{}]:{}", host, port);
  return fmt::format("http://{}:{}", host, port);
}

}  // namespace stampede::target
