#pragma once
// Reads one recorded browser session of tests/vectors/liveview-captures/ as JSON. Shared by
// the client's LiveView session tests (clients/liveview_capture_flows.hpp), the target's
// capture comparisons (target/liveview_capture.hpp) and the codec's replays of the captures
// (proto/liveview_events_test.cpp, proto/liveview_transcript_test.cpp), which each take what
// they need from it.
#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "test_paths.hpp"

namespace stampede::testing {

// `folder` ("lv-1.x", "lv-0.20"), `flow` ("counter").
inline boost::json::object read_liveview_capture(std::string_view folder, std::string_view flow) {
  const auto path = stampede::testing::tests_dir() / "vectors/liveview-captures" /
                    std::string(folder) / (std::string(flow) + ".json");
  std::ifstream file(path);
  if (!file) throw std::runtime_error("missing capture " + path.string());
  std::stringstream text;
  text << file.rdbuf();
  return boost::json::parse(text.str()).as_object();
}

inline std::filesystem::path liveview_captures_dir() { return tests_dir() / "vectors/liveview-captures"; }

// A capture file whole, as JSON. Rendered trees nest deeper than Boost's default limit (32).
inline boost::json::value read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  boost::json::parse_options options;
  options.max_depth = 512;
  return boost::json::parse(text.str(), {}, options);
}

inline std::string string_of(const boost::json::value& v) {
  return std::string(v.as_string().data(), v.as_string().size());
}

}  // namespace stampede::testing
