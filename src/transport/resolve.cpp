#include "transport/resolve.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <cctype>
#include <utility>

namespace stampede::transport {

namespace asio = boost::asio;
using asio::ip::tcp;

boost::asio::execution_context::id Resolver::id;

namespace {

std::string cache_key(std::string_view host, std::uint16_t port) {
  std::string key;
  key.reserve(host.size() + 6);
  for (char c : host) key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  key.push_back(':');
  key += std::to_string(port);
  return key;
}

bool is_localhost(std::string_view host) {
  constexpr std::string_view name = "localhost";
  if (host.size() == name.size() + 1 && host.back() == '.') host.remove_suffix(1);  // "localhost."
  if (host.size() != name.size()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(host[i])) != name[i]) return false;
  }
  return true;
}

}  // namespace

Resolver& Resolver::of(asio::io_context& io) {
  return asio::use_service<Resolver>(static_cast<asio::execution_context&>(io));
}

// Only of() creates the service, always for an io_context.
Resolver::Resolver(asio::execution_context& owner)
    : asio::execution_context::service(owner), io_(static_cast<asio::io_context&>(owner)) {}

Resolver::~Resolver() = default;

void Resolver::shutdown() {
  // The loop is going away: drop lookups in flight (their waiters are never called, as with
  // any handler still queued when an io_context is destroyed).
  pending_.clear();
  cache_.clear();
}

Resolver::Endpoints Resolver::find(std::string_view host, std::uint16_t port) {
  std::string key = cache_key(host, port);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  std::vector<tcp::endpoint> endpoints;
  boost::system::error_code ec;
  const auto literal = asio::ip::make_address(std::string(host), ec);
  if (!ec) {
    endpoints.emplace_back(literal, port);
  } else if (is_localhost(host)) {
    // IPv4 first: servers in development (Phoenix's default among them) listen on 127.0.0.1,
    // and a refused ::1 would cost every new connection an extra attempt.
    endpoints.emplace_back(asio::ip::address_v4::loopback(), port);
    endpoints.emplace_back(asio::ip::address_v6::loopback(), port);
  } else {
    return nullptr;
  }
  auto shared = std::make_shared<const std::vector<tcp::endpoint>>(std::move(endpoints));
  cache_.emplace(std::move(key), shared);
  return shared;
}

void Resolver::async_resolve(std::string_view host, std::uint16_t port, Handler done) {
  if (Endpoints known = find(host, port)) {
    asio::post(io_, [done = std::move(done), known = std::move(known)] { done({}, known); });
    return;
  }
  std::string key = cache_key(host, port);
  auto [it, inserted] = pending_.try_emplace(key);
  it->second.waiters.push_back(std::move(done));
  if (!inserted) return;  // a lookup of this name is already running: wait for its answer

  ++lookups_started_;
  it->second.resolver = std::make_unique<SystemResolver>(io_.get_executor());
  it->second.resolver->async_resolve(
      std::string(host), std::to_string(port), tcp::resolver::numeric_service,
      [this, key](const boost::system::error_code& ec, const SystemResolver::results_type& results) {
        on_resolved(key, ec, results);
      });
}

void Resolver::on_resolved(const std::string& key, const boost::system::error_code& ec,
                           const SystemResolver::results_type& results) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  std::vector<Handler> waiters = std::move(it->second.waiters);
  pending_.erase(it);  // destroys the system resolver: allowed from its own completion handler

  boost::system::error_code outcome = ec;
  Endpoints endpoints;
  if (!outcome) {
    std::vector<tcp::endpoint> list;
    for (const auto& entry : results) list.push_back(entry.endpoint());
    if (list.empty()) {
      outcome = asio::error::host_not_found;
    } else {
      endpoints = std::make_shared<const std::vector<tcp::endpoint>>(std::move(list));
      cache_.emplace(key, endpoints);  // failures are not cached: the next VU asks again
    }
  }
  for (auto& waiter : waiters) waiter(outcome, endpoints);
}

}  // namespace stampede::transport
