#pragma once
// The metrics of the LiveView client, interned once per page session.
//   live.page              Timing   the page GET, redirects included
//   live.join              Timing   phx_join -> reply, for every LiveView joined (main, nested, after
//                                   a live navigation)
//   live.event             Timing   event push (click, change, submit, key, focus, hook) -> reply
//   live.patch             Timing   live_patch push -> reply
//   live.navigate          Timing   a whole navigation: phx_leave + rejoin, or the full page load
//   live.upload            Timing   a whole upload: phx-change, allow_upload, upload joins, every
//                                   chunk and the final progress reply
//   live.rejoin            Timing   with `reconnect` (LongPoll's default): each view's rejoin after
//                                   the socket reconnected, phx_join -> reply (registered only then)
//   live.<each>.errors     Counter  by reason
//   live.diff.bytes        Distribution  (values in bytes) the size
//                                   of each diff-carrying message (join reply, event/patch/upload
//                                   reply with a diff, diff push), one sample per message
//   live.diff.bytes.total  Counter  the same sizes summed: bytes of diffs received
// A reply that navigates (redirect, live_redirect) is an answer, not an error: it is timed and
// not counted in .errors, even though the call reports it to the scenario.
#include "metrics/metric_sink.hpp"

namespace stampede::clients {

struct LiveViewMetrics {
  struct Pair {
    metrics::MetricId timing;
    metrics::MetricId errors;
  };
  LiveViewMetrics(metrics::MetricSink& sink, bool reconnects)
      : page(pair(sink, "live.page")),
        join(pair(sink, "live.join")),
        event(pair(sink, "live.event")),
        patch(pair(sink, "live.patch")),
        navigate(pair(sink, "live.navigate")),
        upload(pair(sink, "live.upload")),
        diff_bytes(sink.id("live.diff.bytes", metrics::Kind::Distribution)),
        diff_bytes_total(sink.id("live.diff.bytes.total", metrics::Kind::Counter)) {
    if (reconnects) rejoin = pair(sink, "live.rejoin");
  }

  Pair page, join, event, patch, navigate, upload;
  Pair rejoin{};  // set only when the socket reconnects
  metrics::MetricId diff_bytes;
  metrics::MetricId diff_bytes_total;

 private:
  static Pair pair(metrics::MetricSink& sink, const std::string& name) {
    return Pair{sink.id(name, metrics::Kind::Timing), sink.id(name + ".errors", metrics::Kind::Counter)};
  }
};

}  // namespace stampede::clients
