// Replays the browser golden transcripts (real Chromium running phoenix_live_view 0.20.17 and
// 1.2.10, copied from ../shared/phoenix-captures/lv-0.20 and lv-1.x): every step's page through
// the page scanner, every inbound lv: frame through Rendered, and after each step the rendered
// HTML against the DOM the browser showed, compared as trees the way the captures' README says
// (attributes the JS client adds are ignored; text nodes must match exactly).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "liveview_capture_file.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_page.hpp"
#include "proto/liveview_rendered.hpp"
#include "proto/url_resolve.hpp"
#include "test_paths.hpp"

namespace stampede::proto::lv {
namespace {

namespace json = boost::json;

using stampede::testing::liveview_captures_dir;
using stampede::testing::read_json_file;
using stampede::testing::string_of;

// ------------------------------------------------------------------------ HTML trees

struct HtmlNode {
  enum class Kind { Element, Text, Comment };
  Kind kind = Kind::Element;
  std::string name;  // tag, text or comment
  std::vector<std::pair<std::string, std::string>> attributes;  // sorted, ignored ones dropped
  std::vector<HtmlNode> children;
};

// Attributes the JS client adds inside the LiveView container (captures README, point 5).
const std::set<std::string, std::less<>> kClientAttributes{
    "data-phx-id",       "data-phx-component",   "data-phx-view",     "data-phx-ref",
    "data-phx-ref-src",  "data-phx-ref-loading", "data-phx-ref-lock", "data-phx-disable-with-restore",
    "data-phx-readonly", "data-phx-disabled",    "data-phx-skip"};

std::vector<HtmlNode> parse_fragment(std::string_view html, const std::set<std::string, std::less<>>& ignored) {
  HtmlNode root;
  std::vector<HtmlNode*> open{&root};
  const auto append_text = [&](std::string text) {
    HtmlNode& parent = *open.back();
    // The parser drops one newline right after <pre>, <textarea> and <listing>.
    if (parent.children.empty() && (parent.name == "pre" || parent.name == "textarea" || parent.name == "listing") &&
        text.starts_with("\n")) {
      text.erase(0, 1);
    }
    if (text.empty()) return;
    if (!parent.children.empty() && parent.children.back().kind == HtmlNode::Kind::Text) {
      parent.children.back().name += text;
      return;
    }
    parent.children.push_back({HtmlNode::Kind::Text, std::move(text), {}, {}});
  };
  scan_html(html, [&](const HtmlToken& token) {
    switch (token.kind) {
      case HtmlToken::Kind::StartTag: {
        HtmlNode node;
        node.name = token.name;
        for (const HtmlAttribute& attribute : token.attributes) {
          if (!ignored.contains(attribute.name)) node.attributes.emplace_back(attribute.name, attribute.value);
        }
        std::sort(node.attributes.begin(), node.attributes.end());
        open.back()->children.push_back(std::move(node));
        if (!is_void_element(token.name)) open.push_back(&open.back()->children.back());
        break;
      }
      case HtmlToken::Kind::EndTag:
        for (std::size_t i = open.size(); i-- > 1;) {
          if (open[i]->name == token.name) {
            open.resize(i);
            break;
          }
        }
        break;
      case HtmlToken::Kind::Text:
        append_text(token.raw_text ? std::string(token.raw) : decode_html_entities(token.raw));
        break;
      case HtmlToken::Kind::Comment:
        open.back()->children.push_back({HtmlNode::Kind::Comment, std::string(token.raw), {}, {}});
        break;
      case HtmlToken::Kind::Doctype:
        break;
    }
    return true;
  });
  return std::move(root.children);
}

std::string show(const HtmlNode& node) {
  switch (node.kind) {
    case HtmlNode::Kind::Text: return "text \"" + node.name + "\"";
    case HtmlNode::Kind::Comment: return "comment \"" + node.name + "\"";
    case HtmlNode::Kind::Element: {
      std::string out = "<" + node.name;
      for (const auto& [name, value] : node.attributes) out += " " + name + "=\"" + value + "\"";
      return out + ">";
    }
  }
  return {};
}

// "" when equal, else where and how they differ.
std::string difference(const std::vector<HtmlNode>& ours, const std::vector<HtmlNode>& dom, const std::string& path) {
  for (std::size_t i = 0; i < std::max(ours.size(), dom.size()); ++i) {
    const std::string here = path + "/" + std::to_string(i);
    if (i >= ours.size()) return here + ": missing " + show(dom[i]);
    if (i >= dom.size()) return here + ": extra " + show(ours[i]);
    const HtmlNode& a = ours[i];
    const HtmlNode& b = dom[i];
    if (a.kind != b.kind || a.name != b.name || a.attributes != b.attributes) {
      return here + ": rendered " + show(a) + " but the browser showed " + show(b);
    }
    const std::string inner = difference(a.children, b.children, here + "(" + a.name + ")");
    if (!inner.empty()) return inner;
  }
  return {};
}

// The children of the [data-phx-main] element the transcript's "dom" holds (its outerHTML).
std::vector<HtmlNode> dom_children(std::string_view outer_html, const std::set<std::string, std::less<>>& ignored) {
  std::vector<HtmlNode> nodes = parse_fragment(outer_html, ignored);
  for (HtmlNode& node : nodes) {
    if (node.kind == HtmlNode::Kind::Element) return std::move(node.children);
  }
  return {};
}

// ------------------------------------------------------------------------ replay

struct StepResult {
  std::string name;
  std::string problem;  // "" = matched
};

class Replay {
 public:
  // Feeds one inbound frame; returns a problem sentence or "".
  std::string in(const json::array& message) {
    const std::string topic = string_of(message.at(2));
    const std::string event = string_of(message.at(3));
    const json::value& payload = message.at(4);
    if (!topic.starts_with("lv:")) return {};
    DiffResult result;
    if (event == "phx_reply") {
      if (string_of(payload.at("status")) != "ok") return {};
      const json::object& response = payload.at("response").as_object();
      if (response.contains("rendered")) {
        Rendered fresh;
        const std::string error = fresh.merge_join(payload.at("response"), result);
        if (!error.empty()) return "join: " + error;
        const json::object& rendered = response.at("rendered").as_object();
        if (rendered.contains("t") && result.title != string_of(rendered.at("t"))) return "join title not reported";
        views_[topic] = std::move(fresh);
        newest_ = topic;
        return {};
      }
      if (const json::value* diff = response.if_contains("diff")) return merge(topic, *diff);
      return {};
    }
    if (event == "diff") return merge(topic, payload);
    return {};
  }

  const Rendered* newest() const {
    const auto it = views_.find(newest_);
    return it == views_.end() ? nullptr : &it->second;
  }

 private:
  std::string merge(const std::string& topic, const json::value& diff) {
    const auto it = views_.find(topic);
    if (it == views_.end()) return "diff for an unjoined topic " + topic;
    DiffResult result;
    const std::string error = it->second.merge_diff(diff, result);
    if (!error.empty()) return "diff: " + error;
    const json::value* reply = diff.as_object().if_contains("r");
    if (reply && (result.reply_json.empty() || json::parse(result.reply_json) != *reply)) return "reply \"r\" not reported";
    if (!reply && !result.reply_json.empty()) return "a reply reported where the diff had none";
    if (const json::value* events = diff.as_object().if_contains("e"); events && result.events.size() != events->as_array().size()) {
      return "events \"e\" not reported";
    }
    return {};
  }

  std::map<std::string, Rendered> views_;
  std::string newest_;
};

std::vector<StepResult> replay_file(const std::filesystem::path& file) {
  const json::value transcript = read_json_file(file);
  Replay replay;
  std::vector<StepResult> results;
  for (const json::value& step : transcript.at("steps").as_array()) {
    StepResult& result = results.emplace_back();
    result.name = string_of(step.at("name"));
    for (const json::value& frame : step.at("frames").as_array()) {
      if (string_of(frame.at("dir")) != "in" || string_of(frame.at("kind")) != "text") continue;
      const json::value message = json::parse(string_of(frame.at("data")), {}, [] {
        json::parse_options options;
        options.max_depth = 512;
        return options;
      }());
      const std::string problem = replay.in(message.as_array());
      if (!problem.empty() && result.problem.empty()) result.problem = problem;
    }
    if (!result.problem.empty()) continue;
    const Rendered* view = replay.newest();
    if (view == nullptr) {
      result.problem = "no LiveView joined";
      continue;
    }
    const std::string dom = string_of(step.at("dom"));
    if (dom_children(dom, kClientAttributes).size() < 1 || view->to_html().size() < 20) {
      result.problem = "nothing to compare";
      continue;
    }
    // As the server renders it, compared without what the JS client adds...
    const std::string plain = difference(parse_fragment(view->to_html(), kClientAttributes),
                                         dom_children(dom, kClientAttributes), "");
    // ...and with component marks, which must then sit exactly where the browser put them.
    std::set<std::string, std::less<>> marks_compared = kClientAttributes;
    marks_compared.erase("data-phx-component");
    const std::string marked = difference(parse_fragment(view->to_html({.mark_components = true}), marks_compared),
                                          dom_children(dom, marks_compared), "");
    result.problem = !plain.empty() ? plain : marked.empty() ? std::string() : "with component marks: " + marked;
  }
  return results;
}

// The page of the first step: the HTML document that carries the LiveView (after redirects).
const json::object* first_page(const json::value& transcript) {
  const json::object* page = nullptr;
  for (const json::value& exchange : transcript.at("steps").as_array().at(0).at("http").as_array()) {
    const json::value& body = exchange.at("body");
    if (exchange.at("status").as_int64() == 200 && body.is_string() && string_of(body).find("data-phx-session") != std::string::npos) {
      page = &exchange.as_object();
      break;
    }
  }
  return page;
}

const json::object* first_join(const json::value& transcript) {
  for (const json::value& frame : transcript.at("steps").as_array().at(0).at("frames").as_array()) {
    if (string_of(frame.at("dir")) == "out" && string_of(frame.at("data")).find("\"phx_join\"") != std::string::npos) {
      static json::value parsed;
      parsed = json::parse(string_of(frame.at("data")));
      return &parsed.as_array().at(4).as_object();
    }
  }
  return nullptr;
}

struct CaptureFile {
  std::string folder;
  std::string name;
};

std::vector<CaptureFile> all_capture_files() {
  std::vector<CaptureFile> files;
  for (const char* folder : {"lv-0.20", "lv-1.x"}) {
    for (const char* name : {"counter", "components", "posts", "posts_new", "upload", "login"}) files.push_back({folder, name});
  }
  return files;
}

class LiveViewTranscript : public ::testing::TestWithParam<CaptureFile> {};

TEST_P(LiveViewTranscript, EveryStepRendersWhatTheBrowserShowed) {
  const CaptureFile& capture = GetParam();
  const std::vector<StepResult> results = replay_file(liveview_captures_dir() / capture.folder / (capture.name + ".json"));
  std::size_t matched = 0;
  for (const StepResult& step : results) {
    EXPECT_EQ(step.problem, "") << capture.folder << "/" << capture.name << " step " << step.name;
    if (step.problem.empty()) ++matched;
  }
  std::cout << "[ transcript ] " << capture.folder << "/" << capture.name << ": " << matched << "/" << results.size()
            << " steps match the browser DOM\n";
  EXPECT_FALSE(results.empty());
}

TEST_P(LiveViewTranscript, PageScanFindsWhatTheBrowserJoined) {
  const CaptureFile& capture = GetParam();
  const json::value transcript = read_json_file(liveview_captures_dir() / capture.folder / (capture.name + ".json"));
  const json::object* page = first_page(transcript);
  ASSERT_NE(page, nullptr);
  const json::object* join = first_join(transcript);
  ASSERT_NE(join, nullptr);
  const PageScan scan = scan_page(string_of(page->at("body")));

  const std::string page_url = string_of(join->at("url"));
  EXPECT_EQ(scan.csrf_token, string_of(join->at("params").at("_csrf_token")));
  const std::vector<const LiveViewRoot*> roots = roots_to_join(scan);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_TRUE(roots[0]->main);
  EXPECT_FALSE(roots[0]->sticky);
  EXPECT_EQ(roots[0]->parent_id, "");
  EXPECT_EQ(roots[0]->session, string_of(join->at("session")));
  EXPECT_EQ(roots[0]->static_token, string_of(join->at("static")));
  std::vector<std::string> track_static;
  for (const std::string& href : scan.track_static) track_static.push_back(proto::resolve_url(page_url, href));
  std::vector<std::string> joined_track_static;
  for (const json::value& url : join->at("params").at("_track_static").as_array()) joined_track_static.push_back(string_of(url));
  std::sort(track_static.begin(), track_static.end());
  std::sort(joined_track_static.begin(), joined_track_static.end());
  EXPECT_EQ(track_static, joined_track_static);
  EXPECT_TRUE(scan.title.ends_with(" · Phoenix Framework")) << scan.title;

  // The topic the browser joined is "lv:" + the container id.
  for (const json::value& frame : transcript.at("steps").as_array().at(0).at("frames").as_array()) {
    if (string_of(frame.at("dir")) == "out" && string_of(frame.at("data")).find("\"phx_join\"") != std::string::npos) {
      EXPECT_EQ(string_of(json::parse(string_of(frame.at("data"))).as_array().at(2)), "lv:" + roots[0]->id);
      break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(LiveViewCaptures, LiveViewTranscript, ::testing::ValuesIn(all_capture_files()),
                         [](const ::testing::TestParamInfo<CaptureFile>& param_info) {
                           std::string name = param_info.param.folder + "_" + param_info.param.name;
                           for (char& c : name) {
                             if (c == '-' || c == '.') c = '_';
                           }
                           return name;
                         });

// The comparison must see a one-character change: the counter before the first click against
// the DOM after it.
TEST(LiveViewTranscripts, ComparisonSeesAChangedCounter) {
  const json::value transcript = read_json_file(liveview_captures_dir() / "lv-1.x" / "counter.json");
  Replay replay;
  for (const json::value& frame : transcript.at("steps").as_array().at(0).at("frames").as_array()) {
    if (string_of(frame.at("dir")) == "in") {
      ASSERT_EQ(replay.in(json::parse(string_of(frame.at("data"))).as_array()), "");
    }
  }
  ASSERT_NE(replay.newest(), nullptr);
  const std::string after_click = string_of(transcript.at("steps").as_array().at(1).at("dom"));
  const std::string problem = difference(parse_fragment(replay.newest()->to_html(), kClientAttributes),
                                         dom_children(after_click, kClientAttributes), "");
  EXPECT_NE(problem.find("text \"0\" but the browser showed text \"1\""), std::string::npos) << problem;
}

TEST(LiveViewTranscripts, AllThirtyFourStepsMatch) {
  std::size_t steps = 0;
  std::size_t matched = 0;
  for (const CaptureFile& capture : all_capture_files()) {
    for (const StepResult& step : replay_file(liveview_captures_dir() / capture.folder / (capture.name + ".json"))) {
      ++steps;
      if (step.problem.empty()) ++matched;
    }
  }
  std::cout << "[ transcript ] " << matched << "/" << steps << " steps match across both LiveView versions\n";
  EXPECT_EQ(steps, 34u);
  EXPECT_EQ(matched, steps);
}

}  // namespace
}  // namespace stampede::proto::lv
