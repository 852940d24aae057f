#pragma once
// Browser transcripts for the LiveView session tests, read from tests/vectors/liveview-captures/
// (cut from ../shared/phoenix-captures: lv-1.x is Phoenix 1.8.12 / LiveView 1.2.10, lv-0.20
// Phoenix 1.7.24 / LiveView 0.20.17, recorded with headless Chromium running the apps' own
// JavaScript). A flow keeps the page the browser loaded, the query of the LiveView socket URL
// it opened, and the text frames on LiveView topics (heartbeats left out) of the steps a test
// picks, in the order Chromium saw them. Tokens are signed by the recorded apps and mean
// nothing elsewhere; the tests replay them to the client as they were.
#include <boost/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "liveview_capture_file.hpp"

namespace stampede::testing::lv_capture {

struct CaptureFrame {
  std::string step;
  bool from_browser;  // "out": what the client must send; otherwise what the server sent
  std::string data;   // the V2 JSON frame as recorded
};

struct CaptureFlow {
  std::string host;          // the recorded app's host:port, to be replaced by the test server's
  std::string page;          // the HTML of the page GET
  std::string socket_query;  // the query of the LiveView socket URL the browser opened
  std::vector<CaptureFrame> frames;
};

// `folder` ("lv-1.x", "lv-0.20"), `flow` ("counter"): the recording; `steps`: the steps whose
// frames the test replays (the first step is the page load).
inline CaptureFlow load_flow(std::string_view folder, std::string_view flow, const std::vector<std::string>& steps) {
  namespace json = boost::json;
  const json::object recording = read_liveview_capture(folder, flow);

  CaptureFlow result;
  std::string url(recording.at("app").at("url").as_string());
  result.host = url.substr(url.find("://") + 3);
  const json::object& load = recording.at("steps").as_array().at(0).as_object();
  for (const auto& exchange : load.at("http").as_array()) {
    const auto& type = exchange.at("content_type");
    if (type.is_string() && type.as_string().starts_with("text/html")) {
      result.page = std::string(exchange.at("body").as_string());
      break;
    }
  }
  const std::string socket_url(load.at("frames").as_array().at(0).at("url").as_string());
  result.socket_query = socket_url.substr(socket_url.find('?') + 1);

  for (const auto& value : recording.at("steps").as_array()) {
    const json::object& step = value.as_object();
    const std::string name(step.at("name").as_string());
    if (std::find(steps.begin(), steps.end(), name) == steps.end()) continue;
    for (const auto& frame : step.at("frames").as_array()) {
      if (frame.at("kind") != "text") continue;
      const std::string data(frame.at("data").as_string());
      const json::value message = json::parse(data);
      if (!message.is_array() || message.as_array().size() < 5) continue;
      const auto& topic = message.as_array().at(2);
      if (!topic.is_string() || !topic.as_string().starts_with("lv:")) continue;  // heartbeats and others
      result.frames.push_back({name, frame.at("dir") == "out", data});
    }
  }
  if (result.page.empty() || result.frames.empty()) throw std::runtime_error("capture without a page or frames: " + std::string(folder) + "/" + std::string(flow));
  return result;
}

// The flows the session tests replay, read once.
inline const CaptureFlow& counter(std::string_view folder) {
  static const CaptureFlow v1x = load_flow("lv-1.x", "counter", {"load", "click_inc_1", "click_inc_noreply"});
  static const CaptureFlow v020 = load_flow("lv-0.20", "counter", {"load", "click_inc_1", "click_inc_noreply"});
  return folder == "lv-1.x" ? v1x : v020;
}

inline const CaptureFlow& posts_new(std::string_view folder) {
  static const CaptureFlow v1x = load_flow("lv-1.x", "posts_new", {"load", "type_blank_title", "submit"});
  static const CaptureFlow v020 = load_flow("lv-0.20", "posts_new", {"load", "type_blank_title", "submit"});
  return folder == "lv-1.x" ? v1x : v020;
}

}  // namespace stampede::testing::lv_capture
