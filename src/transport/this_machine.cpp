#include "transport/this_machine.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>
#include <vector>

namespace stampede::transport {

namespace {

// The host without its port and brackets.
std::string bare_host(const std::string& host) {
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    return host.substr(1, close == std::string::npos ? std::string::npos : close - 1);
  }
  const auto colon = host.find(':');
  return colon == std::string::npos ? host : host.substr(0, colon);
}

bool same_address(const sockaddr* a, const sockaddr* b) {
  if (a->sa_family != b->sa_family) return false;
  if (a->sa_family == AF_INET)
    return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr == reinterpret_cast<const sockaddr_in*>(b)->sin_addr.s_addr;
  if (a->sa_family == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(b)->sin6_addr, sizeof(in6_addr)) == 0;
  return false;
}

bool is_loopback(const sockaddr* a) {
  if (a->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr) >> 24) == 127;
  if (a->sa_family == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(&v6) ||
           (IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127);
  }
  return false;
}

bool is_an_interface_address(const sockaddr* a) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  bool found = false;
  for (const ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next)
    if (i->ifa_addr != nullptr && same_address(i->ifa_addr, a)) found = true;
  freeifaddrs(list);
  return found;
}

}  // namespace

std::optional<bool> is_this_machine(const std::string& host) {
  const std::string name = bare_host(host);
  if (name.empty()) return std::nullopt;
  if (name == "localhost" || name.ends_with(".localhost")) return true;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(name.c_str(), nullptr, &hints, &found) != 0) return std::nullopt;
  bool local = false;
  for (const addrinfo* a = found; a != nullptr && !local; a = a->ai_next)
    local = is_loopback(a->ai_addr) || is_an_interface_address(a->ai_addr);
  freeaddrinfo(found);
  return local;
}

}  // namespace stampede::transport
