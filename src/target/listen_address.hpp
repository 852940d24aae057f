#pragma once
// Where the target listens, as --listen writes it: "127.0.0.1:4000", "[::1]:4000",
// "localhost:4000" or just a port ("4000", on 127.0.0.1). Port 0 asks the kernel for a free one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stampede::target {

struct ListenAddress {
  std::string host = "127.0.0.1";  // a numeric IPv4 or IPv6 address
  std::uint16_t port = 4000;
};

// Returns nullopt and sets `error` (when given) to a sentence saying what was expected.
std::optional<ListenAddress> parse_listen_address(std::string_view text, std::string* error = nullptr);

// "http://127.0.0.1:4000", "http://[::1]:4000"
std::string listen_url(std::string_view host, std::uint16_t port);

}  // namespace stampede::target
