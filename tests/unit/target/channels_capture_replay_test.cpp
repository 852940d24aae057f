// Replays frames_channels.json (Phoenix 1.7.24 and the official phoenix JS client, both
// serializers) through ChannelsSession: every client frame recorded goes in, in the recorded
// order, and every server frame recorded must come out, with the same content, in the same
// order per socket and topic. Order across topics is not compared: in Phoenix each channel
// is a process of its own and the captures show replies of one overtaking another's (§3.11).
// Presence metas are compared without their values (a random phx_ref, the time).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "target/session_fixture.hpp"
#include "test_paths.hpp"

namespace stampede::target {
namespace {

namespace json = boost::json;
namespace phx = proto::phx;

std::filesystem::path captures_file() {
  return stampede::testing::tests_dir() / "vectors/phoenix-captures/frames_channels.json";
}

std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

void blank_presence_values(json::value& value) {
  if (value.is_array()) {
    for (auto& element : value.as_array()) blank_presence_values(element);
  } else if (value.is_object()) {
    for (auto& [key, element] : value.as_object()) {
      if (key == "online_at" || key == "phx_ref") {
        element = "*";
      } else {
        blank_presence_values(element);
      }
    }
  }
}

struct Frame {
  std::string data;
  bool binary = false;
};

// The topic of a server frame, to group by.
std::string topic_of(const Frame& frame, phx::Serializer serializer) {
  auto decoded = phx::decode(frame.data, frame.binary, serializer, phx::Direction::ServerToClient);
  if (const auto* message = std::get_if<phx::Message>(&decoded)) return message->topic;
  ADD_FAILURE() << "undecodable server frame: " << frame.data;
  return {};
}

// JSON with its object keys sorted: key order is not part of the protocol.
std::string canonical(const json::value& value) {
  if (value.is_array()) {
    std::string out = "[";
    for (const auto& element : value.as_array()) out += canonical(element) + ",";
    return out + "]";
  }
  if (value.is_object()) {
    std::map<std::string, std::string> sorted;
    for (const auto& [key, element] : value.as_object()) sorted[std::string(key)] = canonical(element);
    std::string out = "{";
    for (const auto& [key, element] : sorted) out += json::serialize(json::string_view(key)) + ":" + element + ",";
    return out + "}";
  }
  return json::serialize(value);
}

std::string comparable(const Frame& frame) {
  if (frame.binary) return "binary:" + frame.data;
  auto value = json::parse(frame.data);
  blank_presence_values(value);
  return canonical(value);
}

struct ReplaySocket {
  phx::Serializer serializer = phx::Serializer::V2;
  std::unique_ptr<testing::Peer> peer;
  std::vector<Frame> expected;
};

struct Group {
  testing::SessionWorld world;
  std::map<std::string, ReplaySocket> sockets;  // by label and vsn
};

void compare(const std::string& name, ReplaySocket& socket) {
  std::map<std::string, std::vector<std::string>> expected;
  std::map<std::string, std::vector<std::string>> actual;
  for (const auto& frame : socket.expected) expected[topic_of(frame, socket.serializer)].push_back(comparable(frame));
  while (!socket.peer->idle()) {
    auto sent = socket.peer->take();
    const Frame frame{std::move(sent.data), sent.binary};
    actual[topic_of(frame, socket.serializer)].push_back(comparable(frame));
  }
  EXPECT_EQ(actual, expected) << "socket " << name;
}

TEST(ChannelsCaptureReplay, EveryRecordedServerFrameIsReproduced) {
  std::ifstream file(captures_file());
  ASSERT_TRUE(file) << captures_file();
  std::stringstream text;
  text << file.rdbuf();
  const auto entries = json::parse(text.str()).as_array();

  std::vector<std::unique_ptr<Group>> groups;
  std::size_t client_frames = 0;
  for (const auto& entry_value : entries) {
    const auto& entry = entry_value.as_object();
    const std::string label(entry.at("label").as_string());
    const std::string vsn(entry.at("vsn").as_string());
    const std::string dir(entry.at("dir").as_string());
    const std::string kind(entry.at("kind").as_string());
    const std::string data(entry.at("data").as_string());
    const std::string name = label + " vsn=" + vsn;
    const auto serializer = vsn == "1.0.0" ? phx::Serializer::V1 : phx::Serializer::V2;

    if (kind == "url") {
      // Each pair of sockets starts with its observer, on a target of its own.
      if (groups.empty() || label.rfind("observer", 0) == 0) groups.push_back(std::make_unique<Group>());
      const auto user_at = data.find("user_id=");
      const auto user_end = data.find('&', user_at);
      auto& socket = groups.back()->sockets[name];
      socket.serializer = serializer;
      socket.peer = std::make_unique<testing::Peer>(groups.back()->world.bus, serializer,
                                                    data.substr(user_at + 8, user_end - user_at - 8));
      continue;
    }
    ASSERT_FALSE(groups.empty());
    auto& socket = groups.back()->sockets.at(name);
    const bool binary = kind == "binary";
    const std::string bytes = binary ? from_hex(data) : data;
    if (dir == "out") {
      socket.peer->session.handle_frame(bytes, binary, 0);
      ++client_frames;
    } else {
      socket.expected.push_back({bytes, binary});
    }
  }
  EXPECT_EQ(groups.size(), 2u);
  EXPECT_GT(client_frames, 40u);
  for (auto& group : groups) {
    for (auto& [name, socket] : group->sockets) compare(name, socket);
  }
}

}  // namespace
}  // namespace stampede::target
