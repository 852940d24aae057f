#pragma once
// What a LiveView call ended with: success (with handle_event's reply, if any), or one of a
// few failure kinds that the Lua binding turns into `stampede.error` objects of that kind.
#include <string>

#include "proto/liveview_events.hpp"

namespace stampede::clients {

struct LiveOutcome {
  // Empty when the call succeeded. Otherwise one word, the Lua error's `kind`:
  //   page_error     the page did not load as a LiveView (HTTP error, redirect loop, no LiveView
  //                  container, no CSRF meta tag, a login page instead)
  //   connect_error  the LiveView socket did not open
  //   join_error     the server refused a join: `reason` ("stale", "unauthorized", "join crashed",
  //                  ...) and the server's `response_json`
  //   version_error  the server runs a LiveView version this client does not speak
  //   live_redirect  the server asked for a live navigation (push_navigate): `navigation`, `to`
  //   redirect       the server asked for a full page load (redirect/2): `navigation`, `to`
  //   event_error    a reply whose status is not "ok"
  //   upload_error   an upload was refused or failed on the way
  //   diff_error     a diff this client could not merge (its copy of the page is unusable)
  //   view_crashed   the LiveView process crashed (phx_error) while the call waited
  //   timeout        no reply in time
  //   closed         the socket or the LiveView channel went away
  //   not_found      the element, form, form field, upload input or nested LiveView the call names
  //                  is not on the page (a scenario mistake, found before anything is sent: not
  //                  counted in any metric)
  std::string failure;
  std::string message;        // a sentence for people, naming the URL or topic
  std::string reason;         // the word counted in the metric's errors ("" when not counted)
  // Success: handle_event's {:reply, map, socket} as JSON ("" when there was none).
  // join_error / event_error / upload_error: the server's response, when there was one.
  std::string response_json;
  proto::lv::Navigation navigation;  // live_redirect / redirect: as the server sent it
  std::string to;                    // ... and its target resolved against the page URL
  int status = 0;                    // page_error: the last HTTP status (0 when none arrived)
  // page_error / connect_error: this machine ran out of file descriptors, source ports or
  // socket memory (transport::is_local_exhaustion): the VU backs off before its next iteration.
  bool local_exhaustion = false;

  bool ok() const { return failure.empty(); }
  bool navigated() const { return failure == "live_redirect" || failure == "redirect"; }
  // Whether the server answered (a reply, a response): then the call's time is recorded.
  bool answered() const {
    return failure != "timeout" && failure != "closed" && failure != "view_crashed" && failure != "connect_error" &&
           failure != "not_found" && !(failure == "page_error" && status == 0);
  }

  static LiveOutcome success(std::string reply_json = {}) {
    LiveOutcome o;
    o.response_json = std::move(reply_json);
    return o;
  }
  static LiveOutcome fail(std::string failure, std::string message, std::string reason = {}) {
    LiveOutcome o;
    o.failure = std::move(failure);
    o.message = std::move(message);
    o.reason = std::move(reason);
    return o;
  }
};

}  // namespace stampede::clients
