#pragma once
// The dashboard's defence against DNS rebinding: a web page on another site can make the
// browser send requests to loopback under a name of its own; the Host header it sends then
// names that site, so a server bound to loopback answers only requests naming loopback.
#include <string_view>

namespace stampede::dashboard {

// Whether a request whose Host header (lowercased) is `host` is addressed to a loopback
// listener on `port`: 127.0.0.1, localhost or [::1], with the port (browsers leave out :80).
bool is_loopback_host(std::string_view host, unsigned port);

}  // namespace stampede::dashboard
