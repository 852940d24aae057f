// LiveViewSession, the page's life: loading it, its socket, joining its LiveViews (and the
// nested ones they render), and the state every call reads (see liveview_replies.cpp for what
// comes back and liveview_actions.cpp for what the user does).
#include "clients/liveview_json.hpp"
#include "clients/liveview_session.hpp"

#include <boost/asio/post.hpp>
#include <boost/url/parse.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>

#include "clients/client_context.hpp"
#include "clients/liveview_rejoin.hpp"
#include "clients/liveview_version.hpp"
#include "proto/phoenix_longpoll.hpp"
#include "proto/phoenix_socket_url.hpp"
#include "proto/url_resolve.hpp"

namespace stampede::clients {

namespace lv = proto::lv;

namespace {

// Messages on topics nobody reads (a nested LiveView that was just left): a few at most.
constexpr std::size_t kUnreadMessages = 16;

std::string join_hint(const std::string& reason) {
  if (reason == "stale") {
    return " (stale: the socket's session does not match the page: the Cookie header or the _csrf_token did not "
           "reach the socket, the socket is not this page's LiveView socket (option socket_path), or the page's "
           "tokens are too old for the server)";
  }
  if (reason == "unauthorized") return " (the URL no longer routes to this LiveView in the same live_session)";
  if (reason == "join crashed") return " (mount raised: the server's log says why)";
  return "";
}

}  // namespace

LiveViewSession::LiveViewSession(ClientContext& ctx, HttpSession& http, LiveViewOptions options)
    : ctx_(ctx),
      http_(http),
      options_(std::move(options)),
      ids_(ctx.sink, options_.reconnects()),
      pushes_(ctx.io, options_.buffer_limit) {}

LiveViewSession::~LiveViewSession() {
  ++generation_;
  if (connection_) connection_->phx->close("the LiveView session ended");
}

// ---------------------------------------------------------------------------------------------
// helpers

void LiveViewSession::post(std::function<void()> fn) {
  boost::asio::post(ctx_.io, [weak = weak_from_this(), fn = std::move(fn)] {
    if (weak.lock()) fn();
  });
}

void LiveViewSession::fail_later(Done done, LiveOutcome outcome) {
  post([done = std::move(done), outcome = std::move(outcome)] { done(outcome); });
}

LiveOutcome LiveViewSession::unsent(LiveOutcome why) {
  if (why.failure == "closed" && !closing_) {
    ctx_.sink.request_sent();
    ctx_.sink.request_finished(false);
  }
  return why;
}

void LiveViewSession::refuse(const LiveViewMetrics::Pair& metric, Done done, LiveOutcome why) {
  why = unsent(std::move(why));
  record(metric, ctx_.clock.now(), why);  // not timed: nothing answered
  fail_later(std::move(done), std::move(why));
}

void LiveViewSession::record(const LiveViewMetrics::Pair& metric, Nanos started, const LiveOutcome& outcome) {
  // A call cut off because the scenario closed the view (or its iteration ended) is neither
  // done nor failed, as the other clients count it.
  if (closing_ && outcome.failure == "closed") return;
  if (outcome.answered()) ctx_.sink.record(metric.timing, ctx_.clock.now() - started);
  if (!outcome.ok() && !outcome.navigated() && outcome.failure != "not_found") {
    ctx_.sink.add_error(metric.errors, outcome.reason.empty() ? outcome.failure : outcome.reason);
  }
}

void LiveViewSession::record_diff_bytes(std::size_t bytes) {
  ctx_.sink.record(ids_.diff_bytes, static_cast<Nanos>(bytes));
  ctx_.sink.add(ids_.diff_bytes_total, bytes);
}

LiveViewTopic* LiveViewSession::find_view(const std::string& view_id) {
  for (auto& v : views_)
    if (v->root.id == view_id) return v.get();
  return nullptr;
}

const LiveViewTopic* LiveViewSession::main_view() const { return views_.empty() ? nullptr : views_.front().get(); }

std::string LiveViewSession::describe(const LiveViewTopic& view) const {
  if (!views_.empty() && views_.front().get() == &view) return fmt::format("the LiveView at {}", url_);
  return fmt::format("the nested LiveView {} at {}", view.root.id, url_);
}

std::optional<int> LiveViewSession::target_cid(const LiveViewTopic& view, const lv::HtmlAttributes& attributes) const {
  if (lv::find_attribute(attributes, "phx-target") == nullptr) return std::nullopt;
  lv::RenderOptions marked;
  marked.mark_components = true;
  return lv::event_target_cid(attributes, view.rendered.to_html(marked));
}

bool LiveViewSession::is_open() const {
  return connection_ && (connection_->phx->is_open() || connection_->phx->reconnecting());
}

std::string LiveViewSession::title() const {
  const LiveViewTopic* main = main_view();
  if (main != nullptr && !main->rendered.title().empty()) return main->rendered.title();
  return page_.scan.title;
}

std::string LiveViewSession::version() const { return version_text_; }

std::string LiveViewSession::html() const {
  const LiveViewTopic* main = main_view();
  return main == nullptr ? std::string() : compose_html(*main, views_);
}

std::optional<std::string> LiveViewSession::text(std::string_view selector) const {
  const LiveViewTopic* main = main_view();
  if (main == nullptr) return std::nullopt;
  if (views_.size() == 1) return main->rendered.text(selector);
  return lv::element_text(html(), selector);
}

std::optional<lv::Element> LiveViewSession::find(std::string_view selector) const {
  const LiveViewTopic* main = main_view();
  if (main == nullptr) return std::nullopt;
  if (views_.size() == 1) return main->rendered.find(selector);
  return lv::find_element(html(), selector);
}

LiveOutcome LiveViewSession::main_state() const {
  const LiveViewTopic* main = main_view();
  if (main == nullptr) return LiveOutcome::fail("closed", "no LiveView page is open");
  if (main->leaving.kind == lv::Navigation::Kind::LiveRedirect || main->leaving.kind == lv::Navigation::Kind::Redirect) {
    LiveOutcome o;
    o.failure = main->leaving.kind == lv::Navigation::Kind::LiveRedirect ? "live_redirect" : "redirect";
    o.navigation = main->leaving;
    o.to = proto::resolve_url(url_, main->leaving.to);
    o.message = fmt::format("{} navigated to {} ({})", describe(*main), o.to, o.failure);
    return o;
  }
  if (main->state == LiveViewTopic::State::Joined && is_open() && connection_->phx->joined_or_rejoining(main->topic)) {
    return LiveOutcome::success();
  }
  return LiveOutcome::fail("closed", fmt::format("{} is gone: {}", describe(*main),
                                                 main->gone_reason.empty() ? "the server closed it or it crashed"
                                                                           : main->gone_reason));
}

LiveViewTopic* LiveViewSession::joined_view(const std::string& view_id, LiveOutcome& why_not) {
  LiveViewTopic* view = view_id.empty() ? (views_.empty() ? nullptr : views_.front().get()) : find_view(view_id);
  if (view == nullptr) {
    why_not = view_id.empty() ? LiveOutcome::fail("closed", "no LiveView page is open")
                              : LiveOutcome::fail("not_found", fmt::format("no nested LiveView with id \"{}\" at {}",
                                                                           view_id, url_));
    return nullptr;
  }
  if (view->state == LiveViewTopic::State::Joined &&
      !(is_open() && connection_->phx->joined_or_rejoining(view->topic))) {
    view->state = LiveViewTopic::State::Gone;
    view->gone_reason = is_open() ? "the server closed it or it crashed" : "the socket closed";
  }
  if (view->state != LiveViewTopic::State::Joined) {
    if (view->leaving.kind == lv::Navigation::Kind::LiveRedirect || view->leaving.kind == lv::Navigation::Kind::Redirect) {
      why_not = main_state();
      why_not.message = fmt::format("{} has left: the server navigated to {} ({}); follow it first",
                                    describe(*view), why_not.to, why_not.failure);
    } else {
      why_not = LiveOutcome::fail("closed", fmt::format("{} is not joined: {}", describe(*view),
                                                        view->gone_reason.empty() ? "not yet" : view->gone_reason));
    }
    return nullptr;
  }
  return view;
}

// ---------------------------------------------------------------------------------------------
// page and socket

void LiveViewSession::connect(std::string url, Done done) { open_page(std::move(url), std::move(done)); }

void LiveViewSession::load(std::string url, Done done) {
  const Nanos started = ctx_.clock.now();
  const std::string target = url_.empty() ? url : proto::resolve_url(url_, url);
  open_page(target, [weak = weak_from_this(), started, done = std::move(done)](const LiveOutcome& o) {
    if (auto self = weak.lock()) self->record(self->ids_.navigate, started, o);
    done(o);
  });
}

void LiveViewSession::teardown(const std::string& reason) {
  ++generation_;
  pushes_.interrupt();
  pushes_.clear();
  views_.clear();
  if (auto connection = std::move(connection_)) {
    connection->release(reason);
  }
}

void LiveViewSession::close(const std::string& reason) {
  closing_ = true;
  pushes_.interrupt();
  if (auto connection = connection_) {
    connection->release(reason);
  }
}

LiveOutcome LiveViewSession::refused_join(LiveViewTopic& view, const lv::JoinReply& joined, const ChannelReply& reply,
                                          const std::string& what, std::string_view hint) {
  const auto kind = joined.navigation.kind;
  if (kind == lv::Navigation::Kind::Redirect || kind == lv::Navigation::Kind::LiveRedirect) {
    return navigation_outcome(view, joined.navigation, what);
  }
  LiveOutcome o = LiveOutcome::fail("join_error", fmt::format("the server refused to {}: {}{}", what, reply.response, hint),
                                    joined.reason.empty() ? "refused" : joined.reason);
  o.response_json = reply.response;
  return o;
}

void LiveViewSession::open_page(std::string url, Done done) {
  teardown("the page was left");
  const std::uint64_t generation = generation_;
  const Nanos started = ctx_.clock.now();
  http_.request(page_request(url, options_.page), [weak = weak_from_this(), generation, url, started,
                                                   done = std::move(done)](HttpResponse response) {
    auto self = weak.lock();
    if (!self) return;
    if (generation != self->generation_) {
      done(LiveOutcome::fail("closed", fmt::format("GET {}: the page was left before it loaded", url)));
      return;
    }
    LiveViewPage page;
    LiveOutcome outcome = read_page(url, response, page);
    self->record(self->ids_.page, started, outcome);
    if (!outcome.ok()) {
      done(outcome);
      return;
    }
    self->page_ = std::move(page);
    self->url_ = self->page_.url;
    // The main (router-mounted) LiveView first, then the other roots (sticky ones).
    auto roots = lv::roots_to_join(self->page_.scan);
    std::stable_partition(roots.begin(), roots.end(), [](const lv::LiveViewRoot* r) { return r->main; });
    for (const lv::LiveViewRoot* root : roots) self->views_.push_back(std::make_unique<LiveViewTopic>(*root));
    // Until a join reply says the version, the page's dialect is all that is known.
    PageDialect dialect = page_dialect(roots.front()->session);
    self->version_ = dialect.join_as;
    self->version_text_ = std::move(dialect.text);
    // The roots' tokens now live in views_; the page keeps only what nested views need later
    // (their dead-render static tokens), so an idle user holds each token once.
    auto& dead = self->page_.scan.views;
    dead.erase(std::remove_if(dead.begin(), dead.end(), [](const lv::LiveViewRoot& r) { return r.parent_id.empty(); }),
               dead.end());
    dead.shrink_to_fit();
    self->open_socket([weak, done](const LiveOutcome& opened) {
      auto s = weak.lock();
      if (!s) return;
      if (!opened.ok()) {
        done(opened);
        return;
      }
      s->join_roots(done);
    });
  });
}

lv::JoinParams LiveViewSession::base_join_params() const {
  lv::JoinParams p;
  p.version = version_;
  p.csrf_token = page_.scan.csrf_token;
  p.extra_params = options_.params;
  p.track_static = page_.track_static;
  return p;
}

std::string LiveViewSession::socket_url() const {
  const auto endpoint = proto::phx::websocket_endpoint(options_.socket_path, page_.url);
  // A page URL that is not one cannot have loaded; the connect says so if it ever happens.
  const std::string base = endpoint ? std::string(endpoint->buffer()) : options_.socket_path + "/websocket";
  return base + "?" + lv::socket_query(base_join_params());
}

void LiveViewSession::open_socket(Done done) {
  ChannelsOptions channel_options;
  channel_options.heartbeat_interval = options_.heartbeat_interval;
  channel_options.default_timeout = options_.join_timeout;
  channel_options.buffer_limit = kUnreadMessages;
  // This session measures the socket's joins and events as live.join, live.event...: the same
  // frames under channel.* too would count every user action twice in the summary. The page
  // GET does stay in http.request, as a browser's request would in any HTTP tool.
  channel_options.record_metrics = false;
  // phoenix.js sends no heartbeats over LongPoll (skipHeartbeat): its polls keep the session.
  if (options_.transport == PhoenixTransport::LongPoll) channel_options.heartbeat_interval = 0;
  channel_options.reconnect = options_.reconnects();
  auto connection = PhoenixConnection::make(ctx_, std::move(channel_options), options_.transport);
  std::weak_ptr<PhoenixConnection> weak_connection = connection;
  connection_ = connection;
  closing_ = false;

  WebSocketSession::ConnectOptions ws_options;
  ws_options.timeout = options_.connect_timeout;
  ws_options.insecure = options_.page.insecure;
  ws_options.compression = options_.compression;
  const std::string url = socket_url();
  // What the messages below name: the URL the transport uses.
  const std::string shown_url = options_.transport == PhoenixTransport::LongPoll
                                    ? proto::phx::longpoll::endpoint_from_websocket_url(url)
                                    : url;
  const auto page = boost::urls::parse_uri(page_.url);
  const auto socket = boost::urls::parse_uri(shown_url);
  if (page && socket) {
    std::string host(page->host_address());
    std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
    const bool secure = page->scheme_id() == boost::urls::scheme::https;
    const auto path = socket->encoded_path();
    std::string cookie =
        http_.cookies().header_for(host, std::string_view(path.data(), path.size()), secure, wall_clock_seconds());
    if (!cookie.empty()) ws_options.headers.emplace_back("cookie", std::move(cookie));
  }
  if (!options_.origin.empty()) {
    ws_options.headers.emplace_back("origin", options_.origin);
  } else if (options_.page_origin && page) {
    ws_options.headers.emplace_back("origin", fmt::format("{}://{}", page->scheme(), page->encoded_host_and_port()));
  }
  for (const auto& h : options_.socket_headers) ws_options.headers.push_back(h);

  connection->connect(url, std::move(ws_options),
                          [weak = weak_from_this(), generation = generation_, weak_connection, url = shown_url,
                           done = std::move(done)](const WebSocketSession::ConnectResult& result) {
                            auto self = weak.lock();
                            if (!self) return;
                            auto c = weak_connection.lock();
                            if (generation != self->generation_ || !c) {
                              done(LiveOutcome::fail("closed", fmt::format("{}: the page was left", url)));
                              return;
                            }
                            if (!result.ok()) {
                              LiveOutcome o = LiveOutcome::fail(
                                  "connect_error",
                                  fmt::format("the LiveView socket {}: {}{}", url, result.error,
                                              result.status == 403 ? " (a 403 is check_origin refusing the Origin "
                                                                     "header, or a socket path that is not LiveView's)"
                                                                   : ""),
                                  result.error_reason);
                              o.status = result.status;
                              o.local_exhaustion = result.local_exhaustion;
                              done(o);
                              return;
                            }
                            done(LiveOutcome::success());
                          });
}

// ---------------------------------------------------------------------------------------------
// joins

void LiveViewSession::join_roots(Done done) {
  std::vector<std::pair<LiveViewTopic*, lv::JoinParams>> joins;
  for (auto& view : views_) {
    lv::JoinParams p = base_join_params();
    if (view.get() == views_.front().get()) p.url = url_;  // the URL goes with the main view only
    p.session = view->root.session;
    p.static_token = view->root.static_token;
    p.sticky = view->root.sticky;
    p.mounts = view->mounts;
    joins.emplace_back(view.get(), std::move(p));
  }
  join_all(std::move(joins), std::move(done));
}

void LiveViewSession::join_all(std::vector<std::pair<LiveViewTopic*, lv::JoinParams>> joins, Done done) {
  if (joins.empty()) {
    post([done = std::move(done)] { done(LiveOutcome::success()); });
    return;
  }
  struct Tally {
    std::size_t left;
    LiveOutcome first_failure;
    Done done;
  };
  auto tally = std::make_shared<Tally>(Tally{joins.size(), LiveOutcome::success(), std::move(done)});
  for (auto& [view, params] : joins) {
    join_view(*view, std::move(params), [tally](const LiveOutcome& o) {
      if (!o.ok() && tally->first_failure.ok()) tally->first_failure = o;
      if (--tally->left == 0) tally->done(tally->first_failure);
    });
  }
}

void LiveViewSession::join_view(LiveViewTopic& view, lv::JoinParams params, Done done) {
  view.state = LiveViewTopic::State::Joining;
  view.rendered = lv::Rendered();
  view.leaving = lv::Navigation{};
  view.gone_reason.clear();
  arm_reader(view);
  remember_join(view, params);
  const Nanos started = ctx_.clock.now();
  std::string error;
  try {
    connection_->phx->join(view.topic, lv::join_payload(params), options_.join_timeout,
                           [weak = weak_from_this(), generation = generation_, id = view.root.id, started,
                            done](const ChannelReply& reply) {
                             auto self = weak.lock();
                             if (!self) return;
                             if (generation != self->generation_) {
                               done(LiveOutcome::fail("closed", "the page was left before the join's reply"));
                               return;
                             }
                             self->on_join_reply(id, reply, started, done);
                           },
                           options_.reconnects() ? rejoin_hooks(view.root.id) : ChannelsSocket::RejoinHooks{});
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!error.empty()) {
    view.state = LiveViewTopic::State::Gone;
    fail_later(std::move(done), LiveOutcome::fail("join_error", fmt::format("join {}: {}", view.topic, error), "encode"));
  }
}

void LiveViewSession::on_join_reply(const std::string& view_id, const ChannelReply& reply, Nanos started, Done done) {
  LiveViewTopic* view = find_view(view_id);
  if (view == nullptr) {
    done(LiveOutcome::fail("closed", fmt::format("join lv:{}: the LiveView was left before its reply", view_id)));
    return;
  }
  const std::string what = fmt::format("join {}", describe(*view));
  auto gone = [&](LiveOutcome o) {
    view->state = LiveViewTopic::State::Gone;
    if (view->gone_reason.empty()) view->gone_reason = o.message;
    record(ids_.join, started, o);
    done(o);
  };
  if (!reply.failure.empty()) return gone(call_failure(*view, reply, what));
  const boost::json::value response = parse_live_json_or_empty(reply.response);
  const lv::JoinReply joined = lv::read_join_reply(reply.status, response);
  if (!joined.ok) return gone(refused_join(*view, joined, reply, what, join_hint(joined.reason)));
  if (joined.version) {
    if (!supported_version(*joined.version)) {
      return gone(LiveOutcome::fail("version_error",
                                    fmt::format("{}: {}", what, unsupported_version_message(lv::to_string(*joined.version))),
                                    "version"));
    }
    version_ = *joined.version;
    version_text_ = lv::to_string(*joined.version);
  } else {
    // Before 0.20.15 nothing says the version; the root flag "r" tells 0.20 from older releases.
    const auto* rendered = response.is_object() ? response.as_object().if_contains("rendered") : nullptr;
    if (rendered == nullptr || !rendered->is_object() || !rendered->as_object().contains("r")) {
      return gone(LiveOutcome::fail(
          "version_error",
          fmt::format("{}: {}", what, unsupported_version_message("older than 0.20 (no liveview_version, no root flag)")),
          "version"));
    }
    version_ = lv::Version{0, 20, 0};
    version_text_ = "0.20.x (before 0.20.15)";
  }
  lv::DiffResult result;
  if (std::string error = view->rendered.merge_join(response, result); !error.empty()) {
    return gone(LiveOutcome::fail("diff_error", fmt::format("{}: the rendered page cannot be read: {}", what, error),
                                  "diff"));
  }
  record_diff_bytes(reply.response.size());
  view->state = LiveViewTopic::State::Joined;
  count_mount(*view);
  if (joined.navigation.kind == lv::Navigation::Kind::LivePatch && view == views_.front().get()) {
    url_ = proto::resolve_url(url_, joined.navigation.to);
  }
  record(ids_.join, started, LiveOutcome::success());
  absorb(*view, result);
  sync_children(*view, std::move(done));
}

void LiveViewSession::sync_children(LiveViewTopic& parent, Done done) {
  if (!is_open() || parent.state != LiveViewTopic::State::Joined) {
    post([done = std::move(done)] { done(LiveOutcome::success()); });
    return;
  }
  const lv::PageScan scan = lv::scan_page(parent.rendered.to_html());
  std::vector<const lv::LiveViewRoot*> wanted;
  for (const auto& root : scan.views) {
    if (root.parent_id == parent.root.id && !root.session.empty()) wanted.push_back(&root);
  }
  // Children whose containers left the page are left, as the browser does.
  std::vector<std::string> left;
  for (const auto& v : views_) {
    if (v->root.parent_id != parent.root.id) continue;
    if (std::none_of(wanted.begin(), wanted.end(), [&](const lv::LiveViewRoot* w) { return w->id == v->root.id; }))
      left.push_back(v->root.id);
  }
  for (const auto& id : left) drop_view(id, true);

  std::vector<std::pair<LiveViewTopic*, lv::JoinParams>> joins;
  for (const lv::LiveViewRoot* w : wanted) {
    if (find_view(w->id) != nullptr) continue;
    lv::LiveViewRoot root = *w;
    // The browser keeps the static token of a child rendered in the dead page.
    if (root.static_token.empty()) {
      for (const auto& dead : page_.scan.views)
        if (dead.id == root.id) root.static_token = dead.static_token;
    }
    views_.push_back(std::make_unique<LiveViewTopic>(root));
    // A child the parent's rejoin rendered counts its parent's earlier mounts (the View's
    // joinCount starts at its parent's minus one): 0 on the first page, more after reconnects.
    views_.back()->mounts = std::max(0, parent.mounts - 1);
    lv::JoinParams p = base_join_params();
    p.track_static.clear();
    p.mounts = views_.back()->mounts;
    p.session = root.session;
    p.static_token = root.static_token;
    joins.emplace_back(views_.back().get(), std::move(p));
  }
  join_all(std::move(joins), std::move(done));
}

void LiveViewSession::drop_view(const std::string& view_id, bool send_leave) {
  std::vector<std::string> children;
  for (const auto& v : views_)
    if (v->root.parent_id == view_id) children.push_back(v->root.id);
  for (const auto& id : children) drop_view(id, send_leave);
  auto it = std::find_if(views_.begin(), views_.end(), [&](const auto& v) { return v->root.id == view_id; });
  if (it == views_.end()) return;
  if (send_leave && is_open() && connection_->phx->joined((*it)->topic)) {
    try {
      connection_->phx->cast((*it)->topic, "phx_leave", "{}", false);
    } catch (const std::exception&) {
      // a topic that cannot be encoded was never joined either
    }
  } else if (connection_) {
    forget_channel(**it);  // waiting to rejoin: the socket must not rejoin it
  }
  views_.erase(it);
}

}  // namespace stampede::clients

