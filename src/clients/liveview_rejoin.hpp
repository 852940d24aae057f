#pragma once
// What a LiveView does when its socket reconnected and its channel rejoins, as
// phoenix_live_view's View does it (assets/js/phoenix_live_view/view.ts): the channel's params
// closure is called again for each rejoin, so the rejoin carries the view's same session and
// static tokens, the page's URL as it is now (the main view only, as "redirect" when a live
// navigation joined it), `_mounts` = its successful joins so far and `_mount_attempts` = the
// tries since the last success, and no flash; the reply's rendered tree then REPLACES the
// view's (onJoin builds a new Rendered: the new server process knows nothing of the old one's
// components or streams). Pure: no socket, no clock; LiveViewSession calls these from the
// ChannelsSocket's rejoin hooks (docs/design/049).
#include <boost/json/value.hpp>

#include <string>

#include "clients/liveview_view.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_rendered.hpp"

namespace stampede::clients {

// How a view was last joined, kept with it so that its rejoins ask the same way.
void remember_join(LiveViewTopic& view, const proto::lv::JoinParams& joined_with);

// The params of the view's next rejoin: `base` (the page's: version, _csrf_token, the app's
// params, _track_static) completed from the view and `page_url` (the page's current URL).
// Counts the attempt (view.mount_attempts), as connectParams does each time it runs.
proto::lv::JoinParams next_rejoin_params(LiveViewTopic& view, proto::lv::JoinParams base, const std::string& page_url);

// The rejoin reply's `rendered` becomes the view's whole tree. Returns "" or why the reply
// cannot be read; then the view keeps its old tree. `result` gets the reply's events and title.
std::string replace_rendered(LiveViewTopic& view, const boost::json::value& response, proto::lv::DiffResult& result);

// A view joined again: one more mount, no failed attempt since (onJoin: joinCount++,
// joinAttempts = 0).
void count_mount(LiveViewTopic& view);

}  // namespace stampede::clients
