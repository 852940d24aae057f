// libFuzzer target for a Phoenix socket that loses its connection and rejoins
// (ChannelsSocket::on_connection_lost, on_open, RejoinHooks): arbitrary sequences of joins
// with hooks that leave channels from inside the socket's callbacks (as LiveView's do),
// pushes, leaves, losses, reopens, replies to what was sent and arbitrary server frames.
// Whatever happens, nothing may crash or be used after it is gone (ASan), and every request's
// handler must run at most once, and exactly once by the time the socket is closed.
//
// Input: records; the first byte's bits 0-2 say what happens, bits 3-4 pick one of 3 topics:
//   0 join (bit 5: its hooks leave the next topic on error and its own channel when a rejoin
//   is refused), 1 push, 2 the connection lost, 3 open, 4 reply to the last frame sent (bit 5:
//   "error" instead of "ok"), 5 a server frame (a length byte, then the bytes), 6 leave,
//   7 run what the socket posted.
#include <boost/asio/io_context.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "clients/channels_socket.hpp"
#include "common/clock.hpp"
#include "metrics/metric_sink.hpp"

namespace {

namespace clients = stampede::clients;
namespace phx = stampede::proto::phx;

void check(bool condition) {
  if (!condition) std::abort();
}

const char* const kTopics[] = {"lv:a", "lv:b", "room:c"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  boost::asio::io_context io;
  stampede::SteadyClock clock;
  stampede::metrics::Registry registry;
  stampede::metrics::MetricSink sink(registry);
  clients::ClientContext ctx(io, sink, clock);
  clients::ChannelsOptions options;
  options.heartbeat_interval = 0;
  options.reconnect = true;
  std::vector<std::string> sent;
  auto socket = std::make_shared<clients::ChannelsSocket>(
      ctx, options, [&](std::string_view frame, bool) { sent.emplace_back(frame); },
      [](std::uint16_t, std::string) {});
  std::weak_ptr<clients::ChannelsSocket> weak = socket;
  std::map<int, int> answered;  // request id -> times its handler ran
  int next_id = 0;
  auto handler = [&answered, &next_id]() {
    const int id = next_id++;
    answered[id] = 0;
    return [&answered, id](const clients::ChannelReply&) { check(++answered[id] == 1); };
  };
  socket->on_open();
  std::size_t at = 0;
  while (at < size) {
    const std::uint8_t head = data[at++];
    const std::string topic = kTopics[((head >> 3) & 3) % 3];
    const std::string next_topic = kTopics[(((head >> 3) & 3) + 1) % 3];
    const bool flag = (head & 0x20) != 0;
    try {
      switch (head & 7) {
        case 0: {
          clients::ChannelsSocket::RejoinHooks hooks;
          if (flag) {
            hooks.errored = [weak, next_topic](const std::string&) {
              if (auto s = weak.lock()) s->leave(next_topic, 0, nullptr);
            };
            hooks.payload = [] { return std::string(R"({"params":{"_mounts":1}})"); };
            hooks.rejoined = [weak, topic](const clients::ChannelReply& r) {
              if (auto s = weak.lock(); s && r.failure.empty() && r.status != "ok") s->leave(topic, 0, nullptr);
            };
          }
          socket->join(topic, "{}", 0, handler(), std::move(hooks));
          break;
        }
        case 1:
          socket->push(topic, "event", "{}", false, 0, handler());
          break;
        case 2:
          socket->on_connection_lost("lost");
          break;
        case 3:
          socket->on_open();
          break;
        case 4: {
          if (sent.empty()) break;
          const phx::Decoded d = phx::decode(sent.back(), false, phx::Serializer::V2, phx::Direction::ClientToServer);
          const auto* m = std::get_if<phx::Message>(&d);
          if (m == nullptr || !m->ref) break;
          socket->on_frame("[\"" + m->join_ref.value_or("") + "\",\"" + *m->ref + "\",\"" + m->topic +
                               "\",\"phx_reply\",{\"status\":\"" + (flag ? "error" : "ok") + "\",\"response\":{}}]",
                           false);
          break;
        }
        case 5: {
          if (at >= size) break;
          const std::size_t wanted = data[at++];
          const std::size_t n = std::min(wanted, size - at);
          socket->on_frame(std::string_view(reinterpret_cast<const char*>(data) + at, n), false);
          at += n;
          break;
        }
        case 6:
          socket->leave(topic, 0, handler());
          break;
        case 7:
          io.restart();
          io.poll();
          break;
      }
    } catch (const std::invalid_argument&) {
      // a message that cannot be encoded: nothing was sent, nothing is pending
    }
    if (socket->is_closed()) break;  // an invalid frame closes it for good
  }
  socket->close("the end");
  io.restart();
  io.poll();
  for (const auto& [id, times] : answered) check(times == 1);
  return 0;
}
