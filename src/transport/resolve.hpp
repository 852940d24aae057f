#pragma once
// Name resolution for the connections of one worker. Every io_context gets one Resolver
// (an Asio service, so it lives and dies with the worker's loop and needs no owner).
// Answers are kept for the run: a test against one host asks the system resolver once,
// not once per VU, and lookups of one name that overlap share one getaddrinfo call
// (Asio runs those on a single helper thread, so 10,000 VUs starting together would
// otherwise queue 10,000 lookups behind each other).
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stampede::transport {

class Resolver final : public boost::asio::execution_context::service {
 public:
  using Endpoints = std::shared_ptr<const std::vector<boost::asio::ip::tcp::endpoint>>;
  using Handler = std::function<void(const boost::system::error_code&, Endpoints)>;

  // The resolver of this loop (made on first use).
  static Resolver& of(boost::asio::io_context& io);

  // Answers without I/O for numeric addresses, "localhost" (127.0.0.1 first, then ::1) and
  // names resolved before; nullptr when the name must be looked up. `host` carries no
  // brackets around an IPv6 address.
  Endpoints find(std::string_view host, std::uint16_t port);

  // Looks the name up. `done` runs from the loop, never inside this call; on success the
  // list is never empty.
  void async_resolve(std::string_view host, std::uint16_t port, Handler done);

  // How many system lookups were started (the cache and the sharing are observable in tests).
  std::size_t lookups_started() const { return lookups_started_; }

  // For Asio's service registry.
  using key_type = Resolver;
  static boost::asio::execution_context::id id;
  explicit Resolver(boost::asio::execution_context& owner);
  ~Resolver() override;

 private:
  using SystemResolver =
      boost::asio::ip::basic_resolver<boost::asio::ip::tcp, boost::asio::io_context::executor_type>;
  struct Pending {
    std::unique_ptr<SystemResolver> resolver;
    std::vector<Handler> waiters;
  };

  void shutdown() override;
  void on_resolved(const std::string& key, const boost::system::error_code& ec,
                   const SystemResolver::results_type& results);

  boost::asio::io_context& io_;
  std::unordered_map<std::string, Endpoints> cache_;
  std::unordered_map<std::string, Pending> pending_;
  std::size_t lookups_started_ = 0;
};

}  // namespace stampede::transport
