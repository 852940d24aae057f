#pragma once
// A Phoenix socket without a network, for the ChannelsSocket tests: every frame it sends is
// kept in `sent`, frames reach it through socket->on_frame, and the reason it closed with
// lands in `closed_with`. The socket is open from the start.
#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "clients/channels_socket.hpp"
#include "clients/client_context.hpp"
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

struct ChannelsSocketHarness {
  explicit ChannelsSocketHarness(ChannelsOptions options) : sink(registry), ctx(io, sink, clock) {
    socket = std::make_shared<ChannelsSocket>(
        ctx, std::move(options), [this](std::string_view data, bool) { sent.emplace_back(data); },
        [this](std::uint16_t, std::string reason) { closed_with = std::move(reason); });
    socket->on_open();
  }

  // Options with no heartbeat, so that no timer sends frames of its own.
  static ChannelsOptions without_heartbeat() {
    ChannelsOptions options;
    options.heartbeat_interval = 0;
    return options;
  }

  // A frame the client sent, decoded.
  static proto::phx::Message decode(const std::string& frame) {
    return std::get<proto::phx::Message>(
        proto::phx::decode(frame, false, proto::phx::Serializer::V2, proto::phx::Direction::ClientToServer));
  }
  proto::phx::Message last_sent() const { return decode(sent.back()); }
  void drain() {
    io.restart();
    io.poll();
  }

  boost::asio::io_context io;
  SteadyClock clock;
  metrics::Registry registry;
  metrics::MetricSink sink;
  ClientContext ctx;
  std::shared_ptr<ChannelsSocket> socket;
  std::vector<std::string> sent;
  std::string closed_with;
};

}  // namespace stampede::clients
