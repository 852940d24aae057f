#pragma once
// What wraps every view of the demo app, copied from the recorded pages:
//   - the LiveView root layout, <main> with the flash (dynamics 0 and 1) and the view (2),
//     which is the top of every "rendered" and diff;
//   - the HTML page around the LiveView container (the app's root.html.heex): the CSRF meta,
//     the title, the phx-track-static scripts, and the container with data-phx-main,
//     data-phx-session and data-phx-static around the dead render;
//   - the response headers a Phoenix endpoint adds (the two versions differ: 1.8 sends a
//     content-security-policy, 1.7 x-frame-options and x-download-options).
#include <string>
#include <string_view>

#include "target/liveview.hpp"
#include "target/liveview_dialect.hpp"
#include "target/rendered.hpp"

namespace stampede::target {

// The root node: layout, flash and the view, as much as `changed` says (the flash when
// LiveView::kFlashChanged is set, the view's own bits for the rest).
void render_layout(RenderOutput& out, LiveViewDialect dialect, const LiveView& view, Changed changed);

struct DeadPage {
  LiveViewScope scope;
  std::string_view csrf_token;  // masked, for <meta name="csrf-token">
  std::string_view title;
  std::string_view container_id;   // "phx-..."
  std::string_view session_token;  // data-phx-session
  std::string_view static_token;   // data-phx-static
  std::string_view inner_html;     // the dead render of the view, layout included
};
std::string render_page_html(const DeadPage& page);

// Header lines ("Name: value\r\n") of a page response, after any Set-Cookie.
std::string page_headers(LiveViewDialect dialect, std::string_view request_id);

// The body of a Phoenix controller's redirect/2.
std::string redirect_body(std::string_view to);

// The app's hand-written bootstrap (/assets/app.js), whose LiveSocket connects to
// `prefix` + "/live".
std::string app_js(std::string_view prefix);

}  // namespace stampede::target
