#pragma once
// Spreading outgoing connections over several local addresses. One source address has
// about 28k ephemeral ports per destination; a load test that holds more connections to
// one target than that needs more source addresses (127.0.0.2, 127.0.0.3, ... on loopback).
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <optional>
#include <vector>

namespace stampede::transport {

// A view of the worker's configured addresses and its round-robin position; both are
// owned by the caller and must outlive the connection attempts that use them.
class SourceAddresses {
 public:
  SourceAddresses() = default;  // none: the kernel chooses
  SourceAddresses(const std::vector<boost::asio::ip::address>& addresses, std::size_t& next)
      : addresses_(&addresses), next_(&next) {}

  bool empty() const { return addresses_ == nullptr || addresses_->empty(); }

  // The next configured address of the endpoint's family (advancing the shared position
  // past it), or nullopt when none of that family is configured.
  std::optional<boost::asio::ip::address> take_for(const boost::asio::ip::tcp::endpoint& remote) const {
    if (empty()) return std::nullopt;
    const auto& all = *addresses_;
    for (std::size_t tried = 0; tried < all.size(); ++tried) {
      const std::size_t i = (*next_ + tried) % all.size();
      if (all[i].is_v6() == remote.address().is_v6()) {
        *next_ = (i + 1) % all.size();
        return all[i];
      }
    }
    return std::nullopt;
  }

 private:
  const std::vector<boost::asio::ip::address>* addresses_ = nullptr;
  std::size_t* next_ = nullptr;
};

}  // namespace stampede::transport
