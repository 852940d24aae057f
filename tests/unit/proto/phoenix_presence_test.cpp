#include "proto/phoenix_presence.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "proto/phoenix_message.hpp"
#include "test_paths.hpp"

namespace stampede::proto::phx {
namespace {

namespace json = boost::json;
using Outcome = Presence::Outcome;

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

// The phx_refs of a key's metas, in order.
std::vector<std::string> refs(const Presence& p, std::string_view key) {
  std::vector<std::string> out;
  const auto it = p.list().find(key);
  if (it == p.list().end()) return out;
  for (const json::value& meta : it->value().as_object().at("metas").as_array()) {
    out.emplace_back(meta.as_object().at("phx_ref").as_string());
  }
  return out;
}

using Refs = std::vector<std::string>;

constexpr std::string_view kState = R"({
  "alice": {"metas": [{"online_at": "1719830000", "phx_ref": "A1"}, {"online_at": "1719830100", "phx_ref": "A2"}]},
  "bob":   {"metas": [{"online_at": "1719830050", "phx_ref": "B1"}]}})";

TEST(PresenceSync, StateThenDiff) {
  Presence p;
  p.set_join_ref("3");
  EXPECT_TRUE(p.in_pending_sync_state());
  EXPECT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  EXPECT_FALSE(p.in_pending_sync_state());
  EXPECT_EQ(refs(p, "alice"), (Refs{"A1", "A2"}));
  EXPECT_EQ(refs(p, "bob"), (Refs{"B1"}));
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {"carol": {"metas": [{"phx_ref": "C1"}]}},
                                 "leaves": {"bob": {"metas": [{"phx_ref": "B1"}]}}})")),
            Outcome::Applied);
  EXPECT_TRUE(p.has("carol"));
  EXPECT_FALSE(p.has("bob"));
  std::vector<std::string> keys = p.keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"alice", "carol"}));
  EXPECT_EQ(p.list().at("carol"), json::parse(R"({"metas": [{"phx_ref": "C1"}]})"));
}

TEST(PresenceSync, DiffsBeforeTheStateAreHeldThenAppliedInOrder) {
  Presence p;
  p.set_join_ref("3");
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {"carol": {"metas": [{"phx_ref": "C1"}]}}, "leaves": {}})")), Outcome::Held);
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {}, "leaves": {"alice": {"metas": [{"phx_ref": "A1"}]}}})")), Outcome::Held);
  EXPECT_EQ(p.held_diffs(), 2u);
  EXPECT_TRUE(p.list().empty());
  EXPECT_TRUE(p.in_pending_sync_state());
  EXPECT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  EXPECT_EQ(p.held_diffs(), 0u);
  EXPECT_EQ(refs(p, "alice"), (Refs{"A2"}));
  EXPECT_EQ(refs(p, "carol"), (Refs{"C1"}));
  EXPECT_EQ(refs(p, "bob"), (Refs{"B1"}));
}

TEST(PresenceSync, WithoutAJoinRefEveryDiffIsHeld) {
  Presence p;
  EXPECT_TRUE(p.in_pending_sync_state());
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {"x": {"metas": [{"phx_ref": "X"}]}}})")), Outcome::Held);
  // The first state names the join.
  EXPECT_EQ(p.apply_state(obj("{}"), "9"), Outcome::Applied);
  EXPECT_FALSE(p.in_pending_sync_state());
  EXPECT_EQ(refs(p, "x"), (Refs{"X"}));
}

TEST(PresenceSync, RejoinWaitsForTheStateOfTheNewJoin) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  p.set_join_ref("7");
  EXPECT_TRUE(p.in_pending_sync_state());
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {"dave": {"metas": [{"phx_ref": "D1"}]}}, "leaves": {}})")), Outcome::Held);
  // A late state of the old join changes nothing.
  EXPECT_EQ(p.apply_state(obj(R"({"zed": {"metas": [{"phx_ref": "Z1"}]}})"), "3"), Outcome::Stale);
  EXPECT_FALSE(p.has("zed"));
  EXPECT_TRUE(p.in_pending_sync_state());
  // The new state: alice lost A1 and gained A3 (A2 keeps its place), bob is gone, erin is new.
  EXPECT_EQ(p.apply_state(obj(R"({
      "alice": {"metas": [{"phx_ref": "A3"}, {"phx_ref": "A2"}]},
      "erin":  {"metas": [{"phx_ref": "E1"}]}})"),
                          "7"),
            Outcome::Applied);
  EXPECT_FALSE(p.in_pending_sync_state());
  EXPECT_EQ(refs(p, "alice"), (Refs{"A2", "A3"}));
  EXPECT_FALSE(p.has("bob"));
  EXPECT_EQ(refs(p, "erin"), (Refs{"E1"}));
  EXPECT_EQ(refs(p, "dave"), (Refs{"D1"}));  // the held diff, applied after the state
}

TEST(PresenceSync, UpdateIsAJoinAndALeaveOfTheSameKey) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(R"({"alice": {"metas": [{"status": "away", "phx_ref": "A1"}]}})"), "3"), Outcome::Applied);
  EXPECT_EQ(p.apply_diff(obj(R"({
      "joins":  {"alice": {"metas": [{"status": "busy", "phx_ref": "A2", "phx_ref_prev": "A1"}]}},
      "leaves": {"alice": {"metas": [{"status": "away", "phx_ref": "A1"}]}}})")),
            Outcome::Applied);
  EXPECT_EQ(p.list().at("alice"),
            json::parse(R"({"metas": [{"status": "busy", "phx_ref": "A2", "phx_ref_prev": "A1"}]})"));
}

TEST(PresenceSync, SeveralMetasPerKeyOldOnesFirst) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(R"({"alice": {"metas": [{"phx_ref": "A1"}, {"phx_ref": "A2"}]}})"), "3"), Outcome::Applied);
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {"alice": {"metas": [{"phx_ref": "A3"}]}}, "leaves": {}})")), Outcome::Applied);
  EXPECT_EQ(refs(p, "alice"), (Refs{"A1", "A2", "A3"}));
  // Re-joining a ref that is already there keeps one copy, at the end.
  p.apply_diff(obj(R"({"joins": {"alice": {"metas": [{"phx_ref": "A1", "again": true}]}}})"));
  EXPECT_EQ(refs(p, "alice"), (Refs{"A2", "A3", "A1"}));
  p.apply_diff(obj(R"({"leaves": {"alice": {"metas": [{"phx_ref": "A2"}]}}})"));
  EXPECT_EQ(refs(p, "alice"), (Refs{"A3", "A1"}));
  p.apply_diff(obj(R"({"leaves": {"alice": {"metas": [{"phx_ref": "A1"}, {"phx_ref": "A3"}]}}})"));
  EXPECT_FALSE(p.has("alice"));
  EXPECT_TRUE(p.list().empty());
}

TEST(PresenceSync, LeavesOfUnknownKeysOrRefsChangeNothing) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  const json::object before = p.list();
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {}, "leaves": {"nobody": {"metas": [{"phx_ref": "N"}]},
                                                         "bob": {"metas": [{"phx_ref": "B9"}]}}})")),
            Outcome::Applied);
  EXPECT_EQ(p.list(), before);
}

TEST(PresenceSync, AStateWithTheSameMetasChangesNothing) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  const json::object before = p.list();
  EXPECT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  EXPECT_EQ(p.list(), before);
  EXPECT_EQ(refs(p, "alice"), (Refs{"A1", "A2"}));
}

TEST(PresenceSync, MalformedPayloadsAreRefusedWhole) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(kState), "3"), Outcome::Applied);
  const json::object before = p.list();
  for (const char* state : {R"({"x": 1})", R"({"x": {}})", R"({"x": {"metas": {}}})", R"({"x": {"metas": [1]}})",
                            R"({"x": {"metas": [{"no_ref": 1}]}})", R"({"x": {"metas": [{"phx_ref": 5}]}})"}) {
    EXPECT_EQ(p.apply_state(obj(state), "3"), Outcome::Malformed) << state;
    const std::string diff = std::string(R"({"joins": )") + state + "}";
    EXPECT_EQ(p.apply_diff(obj(diff)), Outcome::Malformed) << diff;
  }
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": [], "leaves": {}})")), Outcome::Malformed);
  EXPECT_EQ(p.apply_diff(obj(R"({"joins": {}, "leaves": null})")), Outcome::Malformed);
  EXPECT_EQ(p.list(), before);
}

// Fields the app adds through fetch/2 travel with the presence; a join replaces them.
TEST(PresenceSync, ExtraPresenceFieldsComeFromTheLatestJoin) {
  Presence p;
  p.set_join_ref("3");
  ASSERT_EQ(p.apply_state(obj(R"({"u": {"user": {"name": "old"}, "metas": [{"phx_ref": "U1"}]}})"), "3"),
            Outcome::Applied);
  p.apply_diff(obj(R"({"joins": {"u": {"user": {"name": "new"}, "metas": [{"phx_ref": "U2"}]}}})"));
  EXPECT_EQ(p.list().at("u"), json::parse(R"({"user": {"name": "new"}, "metas": [{"phx_ref": "U1"}, {"phx_ref": "U2"}]})"));
}

// --- The presence frames of the captures (phoenix 1.7.24, both serializers) ---

std::filesystem::path channels_frames_file() {
  return stampede::testing::tests_dir() / "vectors/phoenix-captures/frames_channels.json";
}

// Replays each connection's presence:lobby traffic as a channel client would: the join sets the
// join_ref, presence_state and presence_diff go to the Presence. V1 frames carry no join_ref,
// so the state is attributed to the channel's current join, as phoenix.js does.
TEST(PresenceCaptures, ReplaysThePresenceFramesOfBothSerializers) {
  std::ifstream in(channels_frames_file());
  ASSERT_TRUE(in) << channels_frames_file();
  std::stringstream text;
  text << in.rdbuf();

  struct Connection {
    Serializer serializer = Serializer::V2;
    std::string join_ref;
    Presence presence;
    std::vector<Outcome> outcomes;
    std::vector<std::vector<std::string>> keys_after;
  };
  std::vector<Connection> connections;
  std::map<std::string, std::size_t> connection_of_label;
  const json::value entries = json::parse(text.str());
  for (const json::value& v : entries.as_array()) {
    const json::object& entry = v.as_object();
    const std::string label(entry.at("label").as_string());
    const std::string data(entry.at("data").as_string());
    if (entry.at("kind").as_string() == "url") {
      connection_of_label[label] = connections.size();
      connections.emplace_back();
      connections.back().serializer = data.find("vsn=2.0.0") != std::string::npos ? Serializer::V2 : Serializer::V1;
      continue;
    }
    if (entry.at("kind").as_string() != "text") continue;
    Connection& c = connections.at(connection_of_label.at(label));
    const bool out = entry.at("dir").as_string() == "out";
    Decoded d = decode(data, false, c.serializer, out ? Direction::ClientToServer : Direction::ServerToClient);
    ASSERT_TRUE(std::holds_alternative<Message>(d)) << data;
    const Message& m = std::get<Message>(d);
    if (m.topic != "presence:lobby") continue;
    if (out && m.event == "phx_join") {
      c.join_ref = m.join_ref.value_or(*m.ref);
      c.presence.set_join_ref(c.join_ref);
    } else if (!out && m.event == "presence_state") {
      if (c.serializer == Serializer::V2) {
        EXPECT_EQ(m.join_ref, c.join_ref);
      }
      c.outcomes.push_back(c.presence.apply_state(json::parse(m.payload).as_object(), m.join_ref.value_or(c.join_ref)));
      c.keys_after.push_back(c.presence.keys());
    } else if (!out && m.event == "presence_diff") {
      EXPECT_FALSE(m.join_ref);
      c.outcomes.push_back(c.presence.apply_diff(json::parse(m.payload).as_object()));
      c.keys_after.push_back(c.presence.keys());
    }
  }

  int replayed = 0;
  for (Connection& c : connections) {
    if (c.outcomes.empty()) continue;  // the observers did not join presence:lobby
    ++replayed;
    const std::string user = c.serializer == Serializer::V2 ? "user-2.0.0" : "user-1.0.0";
    SCOPED_TRACE(user);
    // The server's own join diff overtook presence_state: it is held, then the state applies.
    EXPECT_EQ(c.outcomes, (std::vector<Outcome>{Outcome::Held, Outcome::Applied, Outcome::Applied}));
    EXPECT_EQ(c.keys_after.at(0), std::vector<std::string>{});
    EXPECT_EQ(c.keys_after.at(1), std::vector<std::string>{user});
    EXPECT_EQ(c.keys_after.at(2), std::vector<std::string>{});  // the leave after phx_leave
  }
  EXPECT_EQ(replayed, 2);
}

// What the held join diff and the state agree on is kept once, not twice.
TEST(PresenceCaptures, HeldJoinOfTheSameMetaIsNotDuplicated) {
  Presence p;
  p.set_join_ref("22");
  const char* meta = R"({"online_at":1796013598,"phx_ref":"GOy42jhEPE8RVAUh"})";
  EXPECT_EQ(p.apply_diff(obj(std::string(R"({"joins":{"user-2.0.0":{"metas":[)") + meta + R"(]}},"leaves":{}})")),
            Outcome::Held);
  EXPECT_EQ(p.apply_state(obj(std::string(R"({"user-2.0.0":{"metas":[)") + meta + "]}}"), "22"), Outcome::Applied);
  EXPECT_EQ(refs(p, "user-2.0.0"), (Refs{"GOy42jhEPE8RVAUh"}));
}

}  // namespace
}  // namespace stampede::proto::phx
