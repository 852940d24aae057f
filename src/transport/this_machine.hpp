#pragma once
// Whether a host a scenario names is this machine: a loopback address, "localhost", or an
// address of one of this machine's interfaces (getifaddrs). A name is resolved (getaddrinfo,
// once, before the run) and is this machine when any of its addresses is.
#include <optional>
#include <string>

namespace stampede::transport {

// `host` as a URL has it: "127.0.0.1", "localhost:4000", "[::1]:4443", "example.com".
// nullopt when it does not resolve.
std::optional<bool> is_this_machine(const std::string& host);

}  // namespace stampede::transport
