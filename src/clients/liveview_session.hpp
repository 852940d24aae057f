#pragma once
// A virtual user's LiveView page, driven the way a browser drives it
// (../shared/phoenix-protocol.md §5, §6):
//
//   connect(url)   GET the page with the VU's HttpSession (redirects followed, cookies kept, so a
//                  login route that sets a cookie and redirects works), read the CSRF token and
//                  the LiveView containers, open one socket at <socket_path>/websocket (or
//                  /longpoll: LiveViewOptions::transport) with
//                  _csrf_token and vsn=2.0.0 and the jar's Cookie header, join every root
//                  container (lv:<id>) with the browser's join payload, then every nested
//                  LiveView the joined views render (§5.9).
//   event/change/submit   "event" pushes; the reply's diff is merged, its reply map returned.
//                  A change or submit fills the form bound to its event (clients/liveview_forms.hpp):
//                  no such form, or a value for a field it lacks, fails not_found before sending.
//                  An action on a view that is gone fails `closed` and is counted (refuse).
//   patch(url)     live_patch; a URL another LiveView owns falls back to navigate, as the browser.
//   navigate(url)  phx_leave + rejoin of the same topic with "redirect" and the old tokens (§5.8),
//                  over the same socket; when the server refuses (another live_session, stale), a
//                  full page load instead.
//   load(url)      a full page load (what a "redirect" asks for): new GET, new socket.
//   upload(...)    phx-change with the files, allow_upload, one lvu: channel per entry, binary
//                  chunks one at a time (each waits for its reply), progress events (§6.1).
//
// Everything the server pushes by itself is merged as it arrives: diffs into the rendered
// state, push_event events and live_patch pushes into `pushes()` for await, and components that
// leave the page are reported with cids_will_destroy / cids_destroyed like the browser.
//
// The socket is the channels client (ChannelsSocket over a WebSocketSession or a LongPollSession): heartbeats,
// join_ref routing, timeouts. Its own metrics (channel.join, channel.push, ws.connect...) are
// recorded too; this session adds live.* (clients/liveview_metrics.hpp).
//
// Callbacks run on the worker's loop, exactly once per call, never from inside the call and
// never after the session is destroyed. One call at a time (a VU is one coroutine); the
// internal pushes (cids_*, progress) run beside it.
//
// The class is written in four files: liveview_session.cpp (the page, its socket, joins),
// liveview_replies.cpp (pushes and replies), liveview_actions.cpp (events, forms, patch,
// navigate), liveview_upload.cpp and liveview_reconnect.cpp (rejoins after a reconnect).
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "clients/channels_socket.hpp"
#include "clients/client_context.hpp"
#include "clients/http_session.hpp"
#include "clients/liveview_metrics.hpp"
#include "clients/liveview_outcome.hpp"
#include "clients/liveview_page_load.hpp"
#include "clients/liveview_pushes.hpp"
#include "clients/liveview_view.hpp"
#include "clients/phoenix_connection.hpp"
#include "clients/websocket_session.hpp"
#include "proto/form.hpp"

namespace stampede::clients {

struct LiveViewOptions {
  std::string socket_path = "/live";  // the Endpoint's `socket "/live", Phoenix.LiveView.Socket`
  PageLoadOptions page;               // headers, timeout, redirects, insecure for page GETs
  Nanos connect_timeout = 10 * kSecond;  // the socket: TCP, TLS, upgrade
  Nanos join_timeout = 10 * kSecond;     // the LV client's join timeout
  Nanos event_timeout = 30 * kSecond;    // the LV client's push timeout
  Nanos heartbeat_interval = 30 * kSecond;  // 0: none
  // Origin header on the upgrade. Empty: none, which passes check_origin (§1.4). A browser
  // sends the page's origin: `page_origin` does the same.
  std::string origin;
  bool page_origin = false;
  std::vector<std::pair<std::string, std::string>> socket_headers;  // more upgrade headers
  boost::json::object params;  // the app's LiveSocket `params` (locale, timezone...), after _csrf_token
  std::size_t buffer_limit = 100;  // pushes kept for await
  bool compression = false;        // offer permessage-deflate on the socket
  // The socket's transport: <socket_path>/websocket, or <socket_path>/longpoll as a browser
  // that fell back (longPollFallbackMs) polls it, with the page's cookies on every request.
  PhoenixTransport transport = PhoenixTransport::WebSocket;
  // A connection lost after the socket opened is reconnected as phoenix.js does, and every
  // joined view rejoins as phoenix_live_view's does (liveview_rejoin.hpp, docs/design/049).
  // nullopt: on over LongPoll (a 410 is routine there), off over a WebSocket.
  std::optional<bool> reconnect;
  bool reconnects() const { return reconnect.value_or(transport == PhoenixTransport::LongPoll); }
};

// A user event on an element with phx-click, phx-keyup, phx-keydown, phx-blur, phx-focus, or a
// hook's pushEvent.
struct LiveEvent {
  std::string type;   // "click", "keyup", "keydown", "blur", "focus", "hook"
  std::string event;  // the binding's event name
  // The value sent. Nullopt: what the browser reads from the element (its phx-value-* and
  // value), from `element` or else the first element bound to `event`.
  std::optional<boost::json::value> value;
  std::optional<int> cid;   // target component (phx-target); nullopt: the element's, if any
  std::string element;      // a selector for the element acted on ("" = the first bound to `event`)
  std::string view_id;      // a nested LiveView's id ("" = the main one)
  Nanos timeout = 0;        // 0: the event timeout
};

// A phx-change or phx-submit.
struct LiveForm {
  std::string event;
  proto::FormFields fields;  // what the user entered ("post[title]" -> "Hi")
  std::string field;         // phx-change: the input that changed ("" = the first of `fields`)
  std::string form;          // a selector for the form ("" = form[phx-change|phx-submit=event])
  std::optional<int> cid;    // target component; nullopt: the form's phx-target, if any
  std::string view_id;
  Nanos timeout = 0;
};

struct LiveUploadFile {
  std::string name;
  std::string content;
  std::string type;  // MIME type ("" = application/octet-stream)
};

struct LiveUpload {
  std::string input_name;  // the upload's name: <.live_file_input upload={@uploads.avatar}> is "avatar"
  std::vector<LiveUploadFile> files;
  std::string view_id;
  Nanos timeout = 0;
};

class LiveViewSession : public std::enable_shared_from_this<LiveViewSession> {
 public:
  using Done = std::function<void(const LiveOutcome&)>;

  // `http` is the VU's: it must outlive every call (the session itself may outlive it when no
  // call is made any more).
  LiveViewSession(ClientContext& ctx, HttpSession& http, LiveViewOptions options);
  ~LiveViewSession();
  LiveViewSession(const LiveViewSession&) = delete;
  LiveViewSession& operator=(const LiveViewSession&) = delete;

  void connect(std::string url, Done done);
  void event(LiveEvent e, Done done);
  void change(LiveForm f, Done done);
  void submit(LiveForm f, Done done);
  void patch(std::string url, Nanos timeout, Done done);
  // `flash`: the signed flash token of the live_redirect being followed ("" = none).
  void navigate(std::string url, std::string flash, Done done);
  void load(std::string url, Done done);
  void upload(LiveUpload u, Done done);

  LivePushBuffer& pushes() { return pushes_; }
  // Why nothing more can arrive on the main view: a success outcome while it is joined, else
  // the announced navigation (live_redirect / redirect) or "closed".
  LiveOutcome main_state() const;

  std::string html() const;  // the main view as the browser shows it (nested LiveViews inside)
  std::optional<std::string> text(std::string_view selector) const;
  std::optional<proto::lv::Element> find(std::string_view selector) const;
  const std::string& url() const { return url_; }
  std::string title() const;
  // The server's LiveView version as its join reply said it ("1.2.10", or "0.20.x (before
  // 0.20.15)"); before a join reply, the page's dialect ("1.0.6 or later (session token format 6)").
  std::string version() const;
  // The socket is open, or reconnecting (then calls wait for it within their timeouts).
  bool is_open() const;
  // Closes the socket (the rendered page stays readable); a call in flight completes with
  // "closed".
  void close(const std::string& reason = "closed by the scenario");

 private:
  // One socket per page; the WebSocket's and the Phoenix socket's callbacks hold it weakly, so
  // a page load that replaces it leaves the old one's late callbacks nothing to act on.
  struct UploadRun;
  using ReplyDone = std::function<void(LiveOutcome, bool link_redirect)>;

  // page and socket
  void open_page(std::string url, Done done);
  void teardown(const std::string& reason);
  void open_socket(Done done);
  std::string socket_url() const;
  proto::lv::JoinParams base_join_params() const;
  // joins
  void join_roots(Done done);
  void join_view(LiveViewTopic& view, proto::lv::JoinParams params, Done done);
  void on_join_reply(const std::string& view_id, const ChannelReply& reply, Nanos started, Done done);
  // reconnects (the socket's rejoin hooks for each view's channel)
  ChannelsSocket::RejoinHooks rejoin_hooks(const std::string& view_id);
  ChannelsSocket::RejoinHooks upload_rejoin_hooks(const std::string& topic);
  void on_view_errored(const std::string& view_id);
  std::string rejoin_payload(const std::string& view_id);
  void on_rejoin_reply(const std::string& view_id, const ChannelReply& reply);
  void forget_channel(const LiveViewTopic& view);
  void join_all(std::vector<std::pair<LiveViewTopic*, proto::lv::JoinParams>> joins, Done done);
  void sync_children(LiveViewTopic& parent, Done done);
  void drop_view(const std::string& view_id, bool send_leave);
  // pushes from the server
  void arm_reader(LiveViewTopic& view);
  void on_view_push(LiveViewTopic& view, const std::string& event, const std::string& payload);
  // replies
  // Pushes `event` on the view's topic and reads the reply as read_reply does.
  void request(LiveViewTopic& view, const std::string& event, std::string payload, Nanos timeout,
               const LiveViewMetrics::Pair* metric, std::string what, ReplyDone done);
  // A reply to event, live_patch or progress, read like the browser: its diff merged, its
  // push_events kept, its navigation reported. Records `metric` when given.
  LiveOutcome read_reply(LiveViewTopic& view, const ChannelReply& reply, Nanos started,
                         const LiveViewMetrics::Pair* metric, const std::string& what, bool& link_redirect);
  // Merges a diff into the view, counts its bytes, keeps its events, reports removed
  // components and looks for nested LiveViews. "" or the merger's error (the view is then gone).
  std::string merge_diff(LiveViewTopic& view, const boost::json::value& diff, std::string_view text);
  void absorb(LiveViewTopic& view, proto::lv::DiffResult& result);
  void record_diff_bytes(std::size_t bytes);
  void destroy_cids(LiveViewTopic& view, std::vector<int> cids);
  LiveOutcome navigation_outcome(LiveViewTopic& view, const proto::lv::Navigation& nav, const std::string& what);
  LiveOutcome call_failure(const LiveViewTopic& view, const ChannelReply& reply, const std::string& what);
  // A join or rejoin the server did not accept: the navigation it asked for, or a join_error
  // naming its reason, with `hint` (what a user can do about it) after the reply.
  LiveOutcome refused_join(LiveViewTopic& view, const proto::lv::JoinReply& joined, const ChannelReply& reply,
                           const std::string& what, std::string_view hint);
  // helpers
  LiveViewTopic* find_view(const std::string& view_id);
  const LiveViewTopic* main_view() const;
  LiveViewTopic* joined_view(const std::string& view_id, LiveOutcome& why_not);
  void post(std::function<void()> fn);
  void fail_later(Done done, LiveOutcome outcome);
  // A user action that cannot be sent because its view is gone (joined_view said why): counted
  // under `metric`'s errors (`closed`; not a scenario mistake such as not_found) and, like an
  // HTTP request that fails before it is written, as one request sent and failed at once.
  void refuse(const LiveViewMetrics::Pair& metric, Done done, LiveOutcome why);
  // The request-tally half of refuse, for a step of an action already under way: `why`, counted
  // sent and failed when it is `closed` (unless the scenario closed the view itself).
  LiveOutcome unsent(LiveOutcome why);
  void record(const LiveViewMetrics::Pair& metric, Nanos started, const LiveOutcome& outcome);
  std::optional<int> target_cid(const LiveViewTopic& view, const proto::lv::HtmlAttributes& attributes) const;
  std::string describe(const LiveViewTopic& view) const;
  // uploads (liveview_upload.cpp)
  void upload_change(std::shared_ptr<UploadRun> run);
  void upload_preflight(std::shared_ptr<UploadRun> run);
  void upload_next_entry(std::shared_ptr<UploadRun> run);
  void upload_send_chunk(std::shared_ptr<UploadRun> run);
  void upload_progress(std::shared_ptr<UploadRun> run, int progress);
  void upload_finish(std::shared_ptr<UploadRun> run, LiveOutcome outcome);

  ClientContext& ctx_;
  HttpSession& http_;
  LiveViewOptions options_;
  LiveViewMetrics ids_;
  std::uint64_t generation_ = 0;  // bumped by every page load: callbacks from before are dropped
  std::string url_;               // the page's current URL (absolute)
  LiveViewPage page_;
  // The release whose wire the payloads follow: the join reply's, else the page dialect's
  // choice (clients/liveview_version.hpp).
  proto::lv::Version version_ = proto::lv::kNewestCheckedVersion;
  // As the join reply said it, else the page's dialect ("1.0.6 or later (session token format 6)").
  std::string version_text_ = "unknown (not joined)";
  std::shared_ptr<PhoenixConnection> connection_;
  bool closing_ = false;          // close() was called: what fails "closed" from then on is not counted
  LiveViewTopics views_;          // roots first (views_[0] is the main one), then nested ones
  LivePushBuffer pushes_;
  int next_upload_entry_ = 0;     // the browser numbers chosen files page-wide: "0", "1", ...
};

}  // namespace stampede::clients
