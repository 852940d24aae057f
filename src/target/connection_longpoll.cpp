// Connection's LongPoll requests: planned (longpoll_request.hpp), then opened here, or carried
// to the worker that holds the token's session. A poll's answer may come from that worker's
// loop seconds later: it is posted back to this connection's loop and ends the slot's wait as
// a hold's end does. Neither held nor counted in the truth: a poll is not a calibrated request.
#include <boost/asio/post.hpp>

#include "target/connection.hpp"
#include "target/longpoll_hub.hpp"
#include "target/longpoll_request.hpp"
#include "target/longpoll_sessions.hpp"
#include "target/worker.hpp"

namespace stampede::target {

void Connection::answer_longpoll(PendingResponse& slot, std::string_view path, std::string_view query) {
  slot.measured = false;
  const auto& request = parser_.request();
  LongPollPlan plan = plan_longpoll(request, path, query, worker_.shared().liveview_dialect);
  const Nanos now = SteadyClock::monotonic_now();
  switch (plan.kind) {
    case LongPollPlan::Kind::Answer:
      slot.response.set_owned(plan.status, plan.content_type, std::move(plan.body));
      slot.response.headers = std::move(plan.headers);
      slot.ready = true;
      return;
    case LongPollPlan::Kind::Open:
      slot.response.set_owned(200, kJson, worker_.longpoll().open(std::move(*plan.open), now));
      worker_.longpoll_touched();
      slot.ready = true;
      return;
    case LongPollPlan::Kind::Poll:
    case LongPollPlan::Kind::Publish:
      break;
  }
  // Answered later, from this loop; the slot stays unwritten (and the responses behind it
  // wait) until then. The connection may close meanwhile: then the answer is dropped.
  LongPollSessions::Reply reply = [weak = std::weak_ptr<Connection>(shared_from_this()), &io = worker_.io(),
                                   target = &slot](std::string body) {
    asio::post(io, [weak, target, body = std::move(body)]() mutable {
      auto self = weak.lock();
      if (!self) return;
      target->response.set_owned(200, kJson, std::move(body));
      self->end_hold(*target);
    });
  };
  const auto owner = LongPollSessions::owner_of(plan.token).value_or(worker_.index());
  if (plan.kind == LongPollPlan::Kind::Poll) {
    worker_.shared().longpoll->run_on(owner, worker_, [token = std::move(plan.token), open = std::move(plan.open),
                                                       reply](Worker& w) mutable {
      w.longpoll().poll(token, std::move(open), SteadyClock::monotonic_now(), std::move(reply));
      w.longpoll_touched();
    });
    return;
  }
  const std::string* type = request.header("content-type");
  worker_.shared().longpoll->run_on(
      owner, worker_,
      [token = std::move(plan.token), body = request.body, type = type ? *type : std::string(), reply](Worker& w) {
        reply(w.longpoll().publish(token, body, type, SteadyClock::monotonic_now()));
        w.longpoll_touched();
      });
}

}  // namespace stampede::target
