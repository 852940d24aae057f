#pragma once
// The channel side of the target as a whole: one ChannelsBus per worker, the presence
// registry they share, and the fan-out that carries a publication from one worker to the
// others by posting it to their loops (each worker then delivers it to its own sockets, on
// its own thread: no subscriber list is ever touched by two threads).
//
// Lifetime: made before the workers and destroyed after them, because a session leaving
// at shutdown still unsubscribes from its bus and untracks its presence.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "target/asio_types.hpp"
#include "target/channels_bus.hpp"
#include "target/presence_registry.hpp"

namespace stampede::target {

class ChannelsHub {
 public:
  ChannelsHub(unsigned workers, std::uint64_t seed);
  ChannelsHub(const ChannelsHub&) = delete;
  ChannelsHub& operator=(const ChannelsHub&) = delete;

  ChannelsBus& bus(unsigned worker) { return *buses_.at(worker); }

  // Starts the fan-out: loops[i] is worker i's loop. Call before the workers run.
  void connect(const std::vector<asio::io_context*>& loops);
  // Stops it (the loops are about to go). Call after the workers' threads have ended.
  void disconnect();

  // GET /__channels: the counters summed over the workers. Safe from any thread.
  std::string stats_json() const;

 private:
  PresenceRegistry presence_;
  std::vector<std::unique_ptr<ChannelsBus>> buses_;
};

}  // namespace stampede::target
