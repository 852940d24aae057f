#include "dashboard/event_stream.hpp"

namespace stampede::dashboard {

std::string format_event(std::string_view event, std::string_view data) {
  std::string out;
  out.reserve(data.size() + event.size() + 16);
  if (!event.empty()) {
    out += "event: ";
    out += event;
    out += '\n';
  }
  // A line break inside the data would end the field early; the format has no escape, so
  // each line gets a field of its own. "\r\n" and "\r" count as breaks too.
  std::size_t start = 0;
  while (true) {
    const auto end = data.find_first_of("\r\n", start);
    out += "data: ";
    out += data.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += '\n';
    if (end == std::string_view::npos) break;
    start = end + (data.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  out += '\n';
  return out;
}

}  // namespace stampede::dashboard
