#include "target/channels_hub.hpp"

#include <boost/asio/post.hpp>

namespace stampede::target {

ChannelsHub::ChannelsHub(unsigned workers, std::uint64_t seed) {
  for (unsigned i = 0; i < workers; ++i) buses_.push_back(std::make_unique<ChannelsBus>(presence_, i, workers, seed + i));
}

void ChannelsHub::connect(const std::vector<asio::io_context*>& loops) {
  if (loops.size() < 2) return;  // one worker delivers everything itself
  for (std::size_t from = 0; from < buses_.size(); ++from) {
    std::vector<std::pair<asio::io_context*, ChannelsBus*>> others;
    for (std::size_t to = 0; to < buses_.size() && to < loops.size(); ++to) {
      if (to != from) others.emplace_back(loops[to], buses_[to].get());
    }
    buses_[from]->set_fanout([others = std::move(others)](const std::shared_ptr<const Broadcast>& broadcast) {
      for (const auto& [loop, bus] : others) {
        asio::post(*loop, [bus = bus, broadcast] { bus->deliver(*broadcast); });
      }
    });
  }
}

void ChannelsHub::disconnect() {
  for (auto& bus : buses_) bus->set_fanout({});
}

std::string ChannelsHub::stats_json() const {
  std::vector<const ChannelStats*> stats;
  for (const auto& bus : buses_) stats.push_back(&bus->stats());
  return channel_stats_to_json(stats);
}

}  // namespace stampede::target
