#pragma once
// One LiveView joined on a page's socket (the main one, a sticky root, or a nested child): the
// tokens of its container element, its topic, its rendered state with every diff merged in,
// and what the virtual user did on it that the next event must remember.
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_page.hpp"
#include "proto/liveview_rendered.hpp"

namespace stampede::clients {

struct LiveViewTopic {
  enum class State {
    Joining,
    Joined,
    Gone,  // refused, crashed, closed, or navigated away by the server (see `leaving`)
  };

  explicit LiveViewTopic(proto::lv::LiveViewRoot r) : root(std::move(r)), topic("lv:" + root.id) {}

  proto::lv::LiveViewRoot root;  // id, data-phx-session / data-phx-static, parent, sticky
  std::string topic;             // "lv:" + root.id
  proto::lv::Rendered rendered;
  State state = State::Joining;
  int mounts = 0;                // successful joins so far (the join's params._mounts)
  int mount_attempts = 0;        // rejoins sent since the last successful join (_mount_attempts)
  // How its last join asked, for its rejoins after a reconnect (clients/liveview_rejoin.hpp).
  struct RejoinAs {
    bool sends_url = false;      // the page's URL goes with it (the main view)
    bool as_redirect = false;    // ... as "redirect": a live navigation joined it
    bool track_static = false;   // _track_static goes with it (roots)
    std::string live_referer;    // the navigation's, as the View's params closure keeps it
  } rejoin;
  Nanos rejoin_sent_at = 0;      // when its last rejoin went (live.rejoin)
  // A redirect or live_redirect the server announced for this view (in a push, or in a reply);
  // the channel closes after it. Kind::None otherwise.
  proto::lv::Navigation leaving;
  std::string gone_reason;       // why State::Gone, for the error of the next call on it
  bool reading = false;          // the standing read of this topic's pushes is armed
  std::uint64_t read_seq = 0;    // ... and where it is in the socket's message sequence
  std::set<std::string> used_fields;  // form fields the user typed into on this page
};

using LiveViewTopics = std::vector<std::unique_ptr<LiveViewTopic>>;

// The HTML a browser shows for `view`: its rendered tree with each joined child's HTML inside
// the child's container element (a parent renders its children's containers empty).
std::string compose_html(const LiveViewTopic& view, const LiveViewTopics& all);

// True when `view` has children joined or the rendered text may hold a child container: then
// a diff may have added or removed nested LiveViews and the page must be looked at again.
bool may_have_children(const LiveViewTopic& view, const LiveViewTopics& all, std::string_view diff_text);

}  // namespace stampede::clients
