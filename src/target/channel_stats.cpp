#include "target/channel_stats.hpp"

#include <fmt/format.h>

namespace stampede::target {

std::string channel_stats_to_json(const std::vector<const ChannelStats*>& workers) {
  ChannelStats sum;
  for (const auto* w : workers) {
    sum.sockets_opened.add(w->sockets_opened.get());
    sum.sockets_closed.add(w->sockets_closed.get());
    sum.channel_sockets_opened.add(w->channel_sockets_opened.get());
    sum.liveview_sockets_opened.add(w->liveview_sockets_opened.get());
    sum.frames_received.add(w->frames_received.get());
    sum.heartbeats.add(w->heartbeats.get());
    sum.joins.add(w->joins.get());
    sum.joins_refused.add(w->joins_refused.get());
    sum.leaves.add(w->leaves.get());
    sum.pushes_received.add(w->pushes_received.get());
    sum.replies_sent.add(w->replies_sent.get());
    sum.pushes_sent.add(w->pushes_sent.get());
    sum.broadcasts_published.add(w->broadcasts_published.get());
    sum.broadcasts_delivered.add(w->broadcasts_delivered.get());
    sum.channel_crashes.add(w->channel_crashes.get());
    sum.socket_errors.add(w->socket_errors.get());
    sum.idle_timeouts.add(w->idle_timeouts.get());
    sum.echo_messages.add(w->echo_messages.get());
    sum.upload_chunks.add(w->upload_chunks.get());
  }
  // Read counter by counter while the workers run, so "closed" may be newer than "opened".
  const auto opened = sum.sockets_opened.get();
  const auto closed = sum.sockets_closed.get();
  return fmt::format(
      R"({{"sockets_open":{},"sockets_opened":{},"channel_sockets_opened":{},"liveview_sockets_opened":{},)"
      R"("frames_received":{},)"
      R"("heartbeats":{},"joins":{},"joins_refused":{},"leaves":{},"pushes_received":{},"replies_sent":{},)"
      R"("pushes_sent":{},"broadcasts_published":{},"broadcasts_delivered":{},"channel_crashes":{},)"
      R"("socket_errors":{},"idle_timeouts":{},"echo_messages":{},"upload_chunks":{}}})",
      opened > closed ? opened - closed : 0, opened, sum.channel_sockets_opened.get(),
      sum.liveview_sockets_opened.get(), sum.frames_received.get(),
      sum.heartbeats.get(), sum.joins.get(), sum.joins_refused.get(), sum.leaves.get(), sum.pushes_received.get(),
      sum.replies_sent.get(), sum.pushes_sent.get(), sum.broadcasts_published.get(), sum.broadcasts_delivered.get(),
      sum.channel_crashes.get(), sum.socket_errors.get(), sum.idle_timeouts.get(), sum.echo_messages.get(),
      sum.upload_chunks.get());
}

}  // namespace stampede::target
