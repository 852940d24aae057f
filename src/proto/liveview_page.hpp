#pragma once
// What a browser reads from a LiveView page before it opens the socket
// (../shared/phoenix-protocol.md §5.1): the CSRF token, every LiveView container with its
// session and static tokens, the tracked static assets. Pure: HTML text in, data out.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::proto::lv {

struct LiveViewRoot {
  std::string id;             // the element id: the topic is "lv:" + id
  std::string session;        // data-phx-session (empty for children rendered dead)
  std::string static_token;   // data-phx-static ("" when absent/empty: send null)
  std::string parent_id;      // data-phx-parent-id, empty for roots
  bool main = false;          // data-phx-main
  bool sticky = false;        // data-phx-sticky
};

struct PageScan {
  std::string csrf_token;                  // <meta name="csrf-token" content="...">
  std::vector<LiveViewRoot> views;         // in document order
  std::vector<std::string> track_static;   // href/src of [phx-track-static] elements, as written
  std::string title;                       // <title>, for messages
};

// Never throws; a page without LiveView simply has no views (the caller says what is missing).
PageScan scan_page(std::string_view html);

// Containers a browser joins first: those with a session and no parent.
std::vector<const LiveViewRoot*> roots_to_join(const PageScan& page);

}  // namespace stampede::proto::lv
