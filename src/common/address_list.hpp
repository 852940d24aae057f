#pragma once
// Source addresses for outgoing connections: "127.0.0.2-127.0.0.50", "10.0.0.1,10.0.0.2",
// "::1". One address:port pair carries at most ~64k connections to one target, so runs past
// that spread their connections over several source addresses.
#include <boost/asio/ip/address.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace stampede {

// Throws std::invalid_argument naming the bad part. A range is IPv4 only and spans at most
// 65536 addresses; IPv6 addresses are listed one by one.
std::vector<boost::asio::ip::address> parse_address_list(std::string_view text);
std::vector<boost::asio::ip::address> parse_address_list(const std::vector<std::string>& items);

}  // namespace stampede
