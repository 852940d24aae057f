#pragma once
// Reads one recorded browser session of tests/vectors/liveview-captures/ as JSON. Shared by
// the client's LiveView session tests (clients/liveview_capture_flows.hpp) and the target's
// capture comparisons (target/liveview_capture.hpp), which each take what they need from it.
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

}  // namespace stampede::testing
