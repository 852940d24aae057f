#include "dashboard/loopback_host.hpp"

#include <string>

namespace stampede::dashboard {

bool is_loopback_host(std::string_view host, unsigned port) {
  const auto is_loopback_name = [](std::string_view name) {
    return name == "127.0.0.1" || name == "localhost" || name == "[::1]";
  };
  // Browsers leave the default port out of the Host header.
  if (port == 80 && is_loopback_name(host)) return true;
  const std::string suffix = ":" + std::to_string(port);
  if (host.size() <= suffix.size() || host.substr(host.size() - suffix.size()) != suffix) return false;
  return is_loopback_name(host.substr(0, host.size() - suffix.size()));
}

}  // namespace stampede::dashboard
