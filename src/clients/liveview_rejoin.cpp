#include "clients/liveview_rejoin.hpp"

#include <utility>

namespace stampede::clients {

namespace lv = proto::lv;

void remember_join(LiveViewTopic& view, const lv::JoinParams& joined_with) {
  view.rejoin.sends_url = !joined_with.url.empty();
  view.rejoin.as_redirect = joined_with.redirect;
  view.rejoin.track_static = !joined_with.track_static.empty();
  view.rejoin.live_referer = joined_with.live_referer;
}

lv::JoinParams next_rejoin_params(LiveViewTopic& view, lv::JoinParams base, const std::string& page_url) {
  lv::JoinParams p = std::move(base);
  // The View's params closure: href is the page's URL as patches left it; a view a live
  // navigation joined keeps sending it as "redirect" (setRedirect), and its _live_referer.
  p.url = view.rejoin.sends_url ? page_url : std::string();
  p.redirect = view.rejoin.sends_url && view.rejoin.as_redirect;
  if (!view.rejoin.track_static) p.track_static.clear();
  p.live_referer = view.rejoin.live_referer;
  p.mounts = view.mounts;
  p.mount_attempts = view.mount_attempts++;
  p.session = view.root.session;
  p.static_token = view.root.static_token;
  p.sticky = view.root.sticky;
  p.flash.clear();  // onJoin cleared it: a flash is shown once
  return p;
}

std::string replace_rendered(LiveViewTopic& view, const boost::json::value& response, lv::DiffResult& result) {
  lv::Rendered fresh;
  if (std::string error = fresh.merge_join(response, result); !error.empty()) return error;
  view.rendered = std::move(fresh);
  return {};
}

void count_mount(LiveViewTopic& view) {
  ++view.mounts;
  view.mount_attempts = 0;
}

}  // namespace stampede::clients
