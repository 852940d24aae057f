#include "dashboard/event_hub.hpp"

#include <algorithm>

#include "dashboard/event_stream.hpp"
#include "dashboard/http_connection.hpp"

namespace stampede::dashboard {

void EventHub::begin(std::string scenario_json) {
  history_.clear();
  broadcast(std::make_shared<const std::string>(format_event("start", scenario_json)));
}

void EventHub::add_second(std::string second_json) {
  broadcast(std::make_shared<const std::string>(format_event("", second_json)));
}

void EventHub::finish(std::string results_json) {
  auto event = std::make_shared<const std::string>(format_event("done", results_json));
  results_ = std::move(results_json);
  broadcast(event);
}

void EventHub::subscribe(const std::shared_ptr<HttpConnection>& stream) {
  for (const auto& event : history_) stream->send(event);
  streams_.push_back(stream);
}

void EventHub::broadcast(const std::shared_ptr<const std::string>& event) {
  history_.push_back(event);
  // Browsers that left are forgotten here, not when they leave: no callback to wire up.
  std::erase_if(streams_, [](const std::weak_ptr<HttpConnection>& weak) {
    auto stream = weak.lock();
    return !stream || !stream->is_open();
  });
  for (const auto& weak : streams_) weak.lock()->send(event);
}

}  // namespace stampede::dashboard
