#pragma once
// Server-sent events (text/event-stream) as the dashboard sends them: one event per merged
// second, `start` when a scenario begins and `done` with the full results at its end.
#include <string>
#include <string_view>

namespace stampede::dashboard {

// "event: NAME\n" (unless `event` is empty: a plain message) and one "data: " line per
// line of `data`, then the blank line that ends the event. The browser joins the data
// lines with "\n" again, so any text survives.
std::string format_event(std::string_view event, std::string_view data);

}  // namespace stampede::dashboard
