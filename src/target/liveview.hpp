#pragma once
// A mounted LiveView, server side: its assigns and its callbacks, as Phoenix.LiveView has
// them (mount, handle_params, handle_event, render), for the pages of the demo app. One
// object per mounted view; the dead render mounts one, renders it to HTML and drops it, a
// join mounts another that lives as long as the channel. The bench holds thousands of them,
// so each keeps only the assigns its next diff needs: a counter, a page number, a name.
//
// A callback changes the assigns and says what changed (a Changed); the channel then calls
// render() with it to get the diff. The root layout (<main> with the flash) wraps every view:
// see liveview_layout.hpp.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "proto/form.hpp"
#include "target/liveview_dialect.hpp"
#include "target/liveview_router.hpp"
#include "target/liveview_tokens.hpp"
#include "target/rendered.hpp"

namespace stampede::target {

class LiveUploads;
class LiveViewPostsStore;

// What mount sees.
struct MountContext {
  LiveViewScope scope;
  std::string_view query;  // of the page's URL, for handle_params
  std::string_view user;   // the Plug session's user, "" when logged out
  bool connected = false;  // false for the dead render
  TokenRandom& random;
  LiveViewPostsStore& posts;
};

// One "event" push from the client (§5.5), decoded.
struct LiveEvent {
  std::string_view type;            // "click", "form", "keyup", "hook", ...
  std::string_view name;            // the phx-* binding's value: "inc"
  std::optional<std::int64_t> cid;  // a LiveComponent target
  const boost::json::value* value = nullptr;
  proto::FormFields form;                        // "form" events: the URL-encoded value, decoded
  const boost::json::object* uploads = nullptr;  // phx-change: {upload ref: [entries]}

  // A form field ("post[title]"); "" when absent.
  std::string_view field(std::string_view name) const;
};

// What a callback asks of the channel.
struct ViewOutcome {
  enum class Kind : std::uint8_t {
    Render,    // {:noreply, socket} or {:reply, map, socket}: reply with the diff of `changed`
    Crash,     // the view raised (an event it has no clause for): phx_error, the view is gone
    Navigate,  // push_navigate(to: ...): live_redirect in the reply, then the view stops
  };
  Kind kind = Kind::Render;
  Changed changed;
  std::string reply;              // {:reply, map, socket}: the map as JSON; "" for none
  bool consumed_uploads = false;  // consume_uploaded_entries ran: their channels close first
  Changed then_push;              // re-rendered after the reply, as a "diff" push (uploads consumed)
  std::string navigate_to;        // Navigate: the path
  std::string flash;              // Navigate: put_flash(:info, ...)

  static ViewOutcome render(Changed changed, std::string reply = {}) {
    ViewOutcome outcome;
    outcome.changed = changed;
    outcome.reply = std::move(reply);
    return outcome;
  }
  static ViewOutcome crash() {
    ViewOutcome outcome;
    outcome.kind = Kind::Crash;
    return outcome;
  }
};

class LiveView {
 public:
  // Bit of Changed that the layout owns (the flash); pages use the bits below it.
  static constexpr std::uint32_t kFlashChanged = 1u << 31;

  explicit LiveView(LiveViewPage page) : page_(page) {}
  virtual ~LiveView() = default;
  LiveView(const LiveView&) = delete;
  LiveView& operator=(const LiveView&) = delete;

  LiveViewPage page() const { return page_; }
  const PageRoute& route() const { return route_of(page_); }

  // The view's own node (slot 2 of the layout): its template, and its dynamics.
  virtual const Template& statics(LiveViewDialect dialect) const = 0;
  virtual void render(RenderOutput& out, Changed changed) const = 0;

  // Default: no clause matches, the view crashes (FunctionClauseError).
  virtual ViewOutcome handle_event(const LiveEvent& event);
  // live_patch to a URL of this same view. Default: nothing to re-render.
  virtual ViewOutcome handle_params(std::string_view query);
  // The view's upload config, if it has one, and what to re-render after each step the
  // channel takes with it (the preflight, an `lvu:` join, a progress event).
  enum class UploadStep : std::uint8_t { Preflighted, ChannelJoined, Progress };
  virtual LiveUploads* uploads() { return nullptr; }
  virtual Changed upload_changed(UploadStep) { return {}; }

  const std::string& flash() const { return flash_; }
  void set_flash(std::string info) { flash_ = std::move(info); }

 private:
  std::string flash_;  // put_flash(:info): shown by the layout
  LiveViewPage page_;
};

// mount/3, or why the join is refused.
struct MountResult {
  enum class Kind : std::uint8_t {
    Mounted,
    Stale,     // {"reason":"stale"}
    Crash,     // {"reason":"join crashed"}
    Redirect,  // {"redirect":{"to":...}}: on_mount halted with redirect/2
  };
  Kind kind = Kind::Mounted;
  std::unique_ptr<LiveView> view;
  std::string redirect_to;
};

MountResult mount_view(LiveViewPage page, const MountContext& context);

// A "page" query parameter: 1 when absent or not a positive number.
std::uint32_t page_number(std::string_view query);

}  // namespace stampede::target
