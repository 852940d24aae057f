// Rebuilds every frame the browser sent in the golden transcripts (../shared/phoenix-captures
// lv-0.20 and lv-1.x, copied into tests/vectors) with liveview_events.hpp, from what a user did
// in each step (which button, which keystrokes, which file) and what the page showed (read with
// Rendered, fed the transcript's inbound frames), and compares them with the recorded frames:
// field by field, and key order too (the browser's JSON).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "liveview_capture_file.hpp"
#include "proto/liveview_events.hpp"
#include "proto/liveview_page.hpp"
#include "proto/liveview_rendered.hpp"
#include "proto/phoenix_message.hpp"
#include "proto/url_resolve.hpp"
#include "test_paths.hpp"

namespace stampede::proto::lv {
namespace {

namespace json = boost::json;

using stampede::testing::liveview_captures_dir;
using stampede::testing::read_json_file;
using stampede::testing::string_of;

json::parse_options deep() {
  json::parse_options options;
  options.max_depth = 512;
  return options;
}

std::string base64_decode(std::string_view in) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : in) {
    const std::size_t value = kAlphabet.find(c);
    if (value == std::string::npos) continue;  // '=' padding
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

// What one sent frame should be.
struct Expected {
  std::string topic;
  std::string event;
  std::string payload;  // JSON text, or the raw bytes of a binary push
  bool binary = false;
};

// The page as the browser had it, fed the transcript's inbound frames as they arrive.
class Page {
 public:
  Version version;
  std::string location;
  PageScan scan;
  std::string topic;  // the main view's
  Rendered view;
  EventReply last_reply;
  json::value last_response;  // keeps last_reply's pointers valid
  PreflightReply preflight;
  json::value preflight_response;

  void in(const json::array& message) {
    const std::string frame_topic = string_of(message.at(2));
    const std::string event = string_of(message.at(3));
    const json::value& payload = message.at(4);
    if (!frame_topic.starts_with("lv:")) return;
    DiffResult result;
    if (event == "diff") {
      ASSERT_EQ(view.merge_diff(payload, result), "");
      return;
    }
    if (event != "phx_reply" || string_of(payload.at("status")) != "ok") return;
    const json::value& response = payload.at("response");
    if (response.as_object().contains("rendered")) {
      const JoinReply join = read_join_reply("ok", response);
      ASSERT_TRUE(join.ok);
      ASSERT_TRUE(join.version.has_value());
      EXPECT_EQ(*join.version, version);
      ASSERT_EQ(view.merge_join(response, result), "");
      return;
    }
    if (response.as_object().contains("entries")) {
      preflight_response = response;
      ASSERT_EQ(read_preflight_reply(preflight_response, preflight), "");
    }
    last_response = response;
    last_reply = read_event_reply(last_response);
    if (last_reply.diff != nullptr) {
      ASSERT_EQ(view.merge_diff(*last_reply.diff, result), "");
    }
  }
};

// The virtual user: what it does in each step, as the frames it makes the browser send.
using Action = std::function<Expected(Page&)>;

JoinParams page_join(const Page& page) {
  JoinParams join;
  join.version = page.version;
  join.url = page.location;
  join.csrf_token = page.scan.csrf_token;
  for (const std::string& href : page.scan.track_static) join.track_static.push_back(proto::resolve_url(page.location, href));
  const LiveViewRoot& root = *roots_to_join(page.scan).at(0);
  join.session = root.session;
  join.static_token = root.static_token;
  return join;
}

Action join_page() {
  return [](Page& page) {
    return Expected{page.topic, "phx_join", join_payload(page_join(page))};
  };
}

Action click(std::string selector) {
  return [selector](Page& page) {
    const std::optional<Element> element = page.view.find(selector);
    EXPECT_TRUE(element.has_value()) << selector;
    if (!element) return Expected{};
    const std::string html = page.view.to_html({.mark_components = true});
    return Expected{page.topic, "event",
                    event_payload("click", *find_attribute(element->attributes, "phx-click"), element_value(*element),
                                  event_target_cid(element->attributes, html))};
  };
}

Action patch_link(std::string selector) {
  return [selector](Page& page) {
    const std::optional<Element> link = page.view.find(selector);
    EXPECT_TRUE(link.has_value()) << selector;
    if (!link) return Expected{};
    const std::string url = proto::resolve_url(page.location, *find_attribute(link->attributes, "href"));
    page.location = url;
    return Expected{page.topic, "live_patch", live_patch_payload(url)};
  };
}

// What the user has typed so far, by field name.
struct Typing {
  std::map<std::string, std::string> values;
};

Form filled(const Page& page, std::string_view form_selector, const Typing& typing) {
  std::optional<Form> form = page.view.form(form_selector);
  EXPECT_TRUE(form.has_value()) << form_selector;
  if (!form) return {};
  for (FormControl& control : form->controls) {
    const auto typed = typing.values.find(control.name);
    if (typed != typing.values.end()) {
      control.value = typed->second;
      control.used = true;
    }
  }
  return *form;
}

Action type_into(std::shared_ptr<Typing> typing, std::string form_selector, std::string name, std::string value) {
  return [=](Page& page) {
    typing->values[name] = value;
    const Form form = filled(page, form_selector, *typing);
    FormChange change;
    change.event = *find_attribute(form.attributes, "phx-change");
    change.entries = form_entries(form, FormPurpose::Change);
    change.target = name;
    change.values = form_values(form);
    change.cid = event_target_cid(form.attributes, page.view.to_html({.mark_components = true}));
    return Expected{page.topic, "event", form_change_payload(page.version, change)};
  };
}

Action submit(std::shared_ptr<Typing> typing, std::string form_selector) {
  return [=](Page& page) {
    const Form form = filled(page, form_selector, *typing);
    FormSubmit submission;
    submission.event = *find_attribute(form.attributes, "phx-submit");
    submission.entries = form_entries(form, FormPurpose::Submit);
    submission.values = form_values(form);
    submission.cid = event_target_cid(form.attributes, page.view.to_html({.mark_components = true}));
    return Expected{page.topic, "event", form_submit_payload(page.version, submission)};
  };
}

Action leave() {
  return [](Page& page) { return Expected{page.topic, "phx_leave", "{}"}; };
}

// The live navigation the last reply asked for: a join of the same topic with "redirect".
Action follow_live_redirect() {
  return [](Page& page) {
    EXPECT_EQ(page.last_reply.navigation.kind, Navigation::Kind::LiveRedirect);
    JoinParams join = page_join(page);
    join.url = proto::resolve_url(page.location, page.last_reply.navigation.to);
    join.redirect = true;
    join.live_referer = page.location;
    join.flash = page.last_reply.navigation.flash;
    page.location = join.url;
    return Expected{page.topic, "phx_join", join_payload(join)};
  };
}

// The file the transcripts upload: byte i is i mod 256.
struct Upload {
  UploadFile file;
  std::string content;
  std::uint64_t offset = 0;
  int last_progress = -1;
};

std::string upload_ref(const Page& page) {
  const std::optional<Element> input = page.view.find("input[type=file]");
  EXPECT_TRUE(input.has_value());
  return input ? *find_attribute(input->attributes, "data-phx-upload-ref") : std::string();
}

Action choose_file(std::shared_ptr<Upload> upload) {
  return [=](Page& page) {
    const Form form = filled(page, "#upload-form", {});
    FormChange change;
    change.event = *find_attribute(form.attributes, "phx-change");
    change.entries = form_entries(form, FormPurpose::Change);
    change.target = "avatar";
    change.values = form_values(form);
    change.uploads = change_uploads(upload_ref(page), "avatar", std::span(&upload->file, 1));
    return Expected{page.topic, "event", form_change_payload(page.version, change)};
  };
}

Action preflight(std::shared_ptr<Upload> upload) {
  return [=](Page& page) {
    return Expected{page.topic, "allow_upload", allow_upload_payload(upload_ref(page), std::span(&upload->file, 1), std::nullopt)};
  };
}

Action join_upload_channel(std::shared_ptr<Upload> upload) {
  return [=](Page& page) {
    EXPECT_EQ(page.preflight.tokens.size(), 1u);
    EXPECT_EQ(page.preflight.chunk_size, 64000u);
    const std::string token = page.preflight.tokens.empty() ? std::string() : page.preflight.tokens[0].second;
    return Expected{upload_topic(upload->file.ref), "phx_join", upload_join_payload(token)};
  };
}

Action chunk(std::shared_ptr<Upload> upload) {
  return [=](Page& page) {
    const std::uint64_t length = next_chunk_length(upload->offset, upload->file.size, page.preflight.chunk_size);
    Expected expected{upload_topic(upload->file.ref), "chunk", upload->content.substr(upload->offset, length), true};
    upload->offset += length;
    return expected;
  };
}

Action progress(std::shared_ptr<Upload> upload) {
  return [=](Page& page) {
    const std::optional<int> percent = progress_to_send(upload->offset, upload->file.size, upload->last_progress);
    EXPECT_TRUE(percent.has_value());
    upload->last_progress = percent.value_or(0);
    const std::optional<Element> input = page.view.find("input[type=file]");
    const std::string* progress_event = input ? find_attribute(input->attributes, "phx-progress") : nullptr;
    return Expected{page.topic, "progress",
                    progress_payload(upload_ref(page), upload->file.ref, upload->last_progress,
                                     progress_event ? *progress_event : "", std::nullopt)};
  };
}

// What the user did in each step of each flow.
std::map<std::string, std::vector<Action>> script(const std::string& flow, const json::value& transcript) {
  std::map<std::string, std::vector<Action>> steps;
  if (flow == "counter") {
    steps["load"] = {join_page()};
    steps["click_inc_1"] = {click("#inc")};
    steps["click_inc_2"] = {click("#inc")};
    steps["click_inc_noreply"] = {click("#inc-noreply")};
  } else if (flow == "components") {
    steps["load"] = {join_page()};
    steps["click_bump_1"] = {click("#clicker-btn")};
    steps["click_bump_2"] = {click("#clicker-btn")};
  } else if (flow == "posts") {
    steps["load"] = {join_page()};
    steps["click_next"] = {patch_link("#next")};
  } else if (flow == "posts_new") {
    auto typing = std::make_shared<Typing>();
    steps["load"] = {join_page()};
    steps["type_blank_title"] = {type_into(typing, "#post-form", "post[title]", " ")};
    const std::string title = "Golden post";
    for (std::size_t n = 1; n <= title.size(); ++n) {
      steps["type_valid_title"].push_back(type_into(typing, "#post-form", "post[title]", title.substr(0, n)));
    }
    steps["submit"] = {submit(typing, "#post-form"), leave(), follow_live_redirect()};
  } else if (flow == "upload") {
    auto upload = std::make_shared<Upload>();
    const json::value& file = transcript.at("upload_file");
    upload->file.ref = "0";
    upload->file.name = string_of(file.at("name"));
    upload->file.size = file.at("size").to_number<std::uint64_t>();
    upload->file.type = "application/octet-stream";
    // The file's modification time is the browser's clock: take it from what it sent.
    for (const json::value& frame : transcript.at("steps").as_array().at(1).at("frames").as_array()) {
      if (string_of(frame.at("dir")) == "out" && string_of(frame.at("data")).find("last_modified") != std::string::npos) {
        const json::value message = json::parse(string_of(frame.at("data")));
        const json::object& uploads = message.as_array().at(4).at("uploads").as_object();
        upload->file.last_modified = uploads.begin()->value().as_array().at(0).at("last_modified").to_number<std::int64_t>();
      }
    }
    for (std::uint64_t i = 0; i < upload->file.size; ++i) upload->content.push_back(static_cast<char>(i % 256));
    steps["load"] = {join_page()};
    steps["choose_file"] = {choose_file(upload)};
    auto typing = std::make_shared<Typing>();
    steps["submit"] = {preflight(upload), join_upload_channel(upload)};
    for (int n = 0; n < 3; ++n) {
      steps["submit"].push_back(chunk(upload));
      steps["submit"].push_back(progress(upload));
    }
    steps["submit"].push_back(submit(typing, "#upload-form"));
  } else if (flow == "login") {
    steps["login_redirect"] = {join_page()};
  }
  return steps;
}

const std::string* page_body(const json::value& step) {
  for (const json::value& exchange : step.at("http").as_array()) {
    const json::value& body = exchange.at("body");
    if (exchange.at("status").as_int64() == 200 && body.is_string() &&
        std::string_view(body.as_string().data(), body.as_string().size()).find("data-phx-session") != std::string_view::npos) {
      static std::string text;
      text = string_of(body);
      return &text;
    }
  }
  return nullptr;
}

struct Totals {
  std::size_t frames = 0;
  std::size_t matched = 0;
};

void check_flow(const std::string& folder, const std::string& flow, Totals& totals) {
  const json::value transcript = read_json_file(liveview_captures_dir() / folder / (flow + ".json"));
  Page page;
  page.version = *parse_version(string_of(transcript.at("app").at("phoenix_live_view")));
  std::map<std::string, std::vector<Action>> steps = script(flow, transcript);
  for (const json::value& step : transcript.at("steps").as_array()) {
    const std::string name = string_of(step.at("name"));
    SCOPED_TRACE(folder + "/" + flow + " step " + name);
    if (const std::string* body = page_body(step)) {
      page.scan = scan_page(*body);
      page.location = string_of(step.at("location"));
      ASSERT_FALSE(roots_to_join(page.scan).empty());
      page.topic = "lv:" + roots_to_join(page.scan).at(0)->id;
      // The socket URL the browser opened carries the same parameters.
      for (const json::value& socket : step.at("sockets").as_array()) {
        if (string_of(socket.at("event")) != "created") continue;
        const std::string url = string_of(socket.at("url"));
        EXPECT_EQ(url.substr(url.find('?') + 1), socket_query(page_join(page)));
      }
    }
    std::deque<Action> actions(steps[name].begin(), steps[name].end());
    for (const json::value& frame : step.at("frames").as_array()) {
      const std::string data = string_of(frame.at("data"));
      if (string_of(frame.at("dir")) == "in") {
        page.in(json::parse(data, {}, deep()).as_array());
        continue;
      }
      Expected sent;
      if (string_of(frame.at("kind")) == "binary") {
        const phx::Decoded decoded = phx::decode(base64_decode(data), true, phx::Serializer::V2, phx::Direction::ClientToServer);
        ASSERT_TRUE(std::holds_alternative<phx::Message>(decoded));
        const phx::Message& message = std::get<phx::Message>(decoded);
        sent = {message.topic, message.event, message.payload, true};
      } else {
        const json::value message = json::parse(data, {}, deep());
        sent = {string_of(message.at(2)), string_of(message.at(3)), json::serialize(message.at(4)), false};
      }
      if (sent.topic == "phoenix") continue;  // heartbeats: the channel client's business
      ++totals.frames;
      ASSERT_FALSE(actions.empty()) << "the browser sent " << sent.event << " " << sent.payload.substr(0, 200);
      const Expected built = actions.front()(page);
      actions.pop_front();
      EXPECT_EQ(built.topic, sent.topic);
      EXPECT_EQ(built.event, sent.event);
      EXPECT_EQ(built.binary, sent.binary);
      if (sent.binary) {
        EXPECT_EQ(built.payload.size(), sent.payload.size());
        EXPECT_TRUE(built.payload == sent.payload) << "chunk bytes differ";
      } else {
        // Field by field, then the exact text (key order as the browser's JSON.stringify).
        EXPECT_EQ(json::parse(built.payload, {}, deep()), json::parse(sent.payload, {}, deep())) << built.payload << "\n" << sent.payload;
        EXPECT_EQ(built.payload, sent.payload);
      }
      if (built.topic == sent.topic && built.event == sent.event && built.payload == sent.payload) ++totals.matched;
    }
    EXPECT_TRUE(actions.empty()) << actions.size() << " frames the browser did not send";
  }
}

class LiveViewEvents : public ::testing::TestWithParam<std::string> {};

TEST_P(LiveViewEvents, RebuildsEveryFrameTheBrowserSent) {
  for (const std::string folder : {"lv-0.20", "lv-1.x"}) {
    Totals totals;
    check_flow(folder, GetParam(), totals);
    std::cout << "[ events ] " << folder << "/" << GetParam() << ": " << totals.matched << "/" << totals.frames
              << " sent frames rebuilt exactly\n";
    EXPECT_EQ(totals.matched, totals.frames);
    EXPECT_GT(totals.frames, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(LiveViewCaptures, LiveViewEvents,
                         ::testing::Values("counter", "components", "posts", "posts_new", "upload", "login"));

// ------------------------------------------------------------------------ unit cases

TEST(LiveViewEventPayloads, ClickValueFollowsTheDom) {
  Element button;
  button.tag = "button";
  button.attributes = {{"phx-click", "delete"}, {"phx-value-id", "42"}, {"phx-value-kind", "post"}};
  button.value = "";
  EXPECT_EQ(json::serialize(element_value(button)), R"({"id":"42","kind":"post","value":""})");
  EXPECT_EQ(event_payload("click", "delete", element_value(button), 3),
            R"({"type":"click","event":"delete","value":{"id":"42","kind":"post","value":""},"cid":3})");

  Element unchecked;
  unchecked.tag = "input";
  unchecked.attributes = {{"type", "checkbox"}, {"phx-value-x", "1"}};
  unchecked.value = "on";
  EXPECT_EQ(json::serialize(element_value(unchecked)), R"({"x":"1"})");
  unchecked.checked = true;
  EXPECT_EQ(json::serialize(element_value(unchecked)), R"({"x":"1","value":"on"})");

  Element item;
  item.tag = "li";
  item.value = "0";
  item.value_is_number = true;
  EXPECT_EQ(json::serialize(element_value(item)), R"({"value":0})");

  const json::object extra{{"from", "js"}};
  Element div;
  div.tag = "div";
  EXPECT_EQ(json::serialize(element_value(div, &extra)), R"({"from":"js"})");
  EXPECT_EQ(json::serialize(key_value("Enter", div)), R"({"key":"Enter"})");
  EXPECT_EQ(hook_payload("moved", json::value{{"lat", 1.5}}, std::nullopt), R"({"type":"hook","event":"moved","value":{"lat":1.5E0}})");
}

TEST(LiveViewEventPayloads, TargetsResolveToComponents) {
  const std::string html = R"(<div data-phx-component="7"><span class="x">a</span></div><button phx-target=".x">b</button>)";
  EXPECT_EQ(event_target_cid({{"phx-target", "4"}}, html), 4);
  EXPECT_EQ(event_target_cid({{"phx-target", ".x"}}, html), 7);
  EXPECT_EQ(event_target_cid({{"phx-target", "#none"}}, html), std::nullopt);
  EXPECT_EQ(event_target_cid({}, html), std::nullopt);
}

TEST(LiveViewEventPayloads, FormEntriesAsFormDataWithUnusedMarkers) {
  const std::string html = R"(<form id="f" phx-change="v" phx-submit="s" phx-value-step="2">
    <input type="hidden" name="user[id]" value="9">
    <input name="user[name]" value="Ann">
    <input name="user[email]">
    <input type="checkbox" name="tags[]" value="a" checked><input type="checkbox" name="tags[]" value="b">
    <select name="role"><option value="x">X</option><option selected>Admin </option></select>
    <select name="many" multiple><option selected>1</option><option value="2" selected>two</option></select>
    <textarea name="bio">
hello &amp; bye</textarea>
    <input type="file" name="avatar">
    <fieldset disabled><input name="off" value="1"></fieldset>
    <input name="skipped" disabled value="1">
    <button name="go" value="now">Go</button>
  </form>)";
  std::optional<Form> form = find_form(html, "#f");
  ASSERT_TRUE(form.has_value());
  for (FormControl& control : form->controls) {
    if (control.name == "user[name]") control.used = true;
  }
  const std::vector<FormEntry> entries = form_entries(*form, FormPurpose::Change);
  EXPECT_EQ(encode_form_entries(entries, true),
            "user%5Bid%5D=9&user%5Bname%5D=Ann&user%5B_unused_email%5D=&user%5Bemail%5D=&_unused_tags%5B%5D=&tags%5B%5D=a"
            "&_unused_role=&role=Admin&_unused_many=&many=1&_unused_many=&many=2&_unused_bio=&bio=hello+%26+bye");
  EXPECT_EQ(json::serialize(form_values(*form)), R"({"step":"2"})");

  const FormControl* go = nullptr;
  for (const FormControl& control : form->controls) {
    if (control.name == "go") go = &control;
  }
  ASSERT_NE(go, nullptr);
  const std::vector<FormEntry> submitted = form_entries(*form, FormPurpose::Submit, go);
  EXPECT_EQ(encode_form_entries(submitted, true),
            "user%5Bid%5D=9&user%5Bname%5D=Ann&user%5Bemail%5D=&tags%5B%5D=a&role=Admin&many=1&many=2&bio=hello+%26+bye&go=now");
  EXPECT_EQ(form_entries(*form, FormPurpose::Change, nullptr, "bio").size(), 1u);
}

TEST(LiveViewEventPayloads, FormPayloadsPerVersion) {
  FormChange change;
  change.event = "validate";
  change.entries = {{"post[title]", "Hi", false}, {"post[body]", "", true}};
  change.target = "post[title]";
  change.values = {{"step", "2"}};
  EXPECT_EQ(form_change_payload(Version{1, 2, 10}, change),
            R"({"type":"form","event":"validate","value":"post%5Btitle%5D=Hi&post%5B_unused_body%5D=&post%5Bbody%5D=","meta":{"_target":"post[title]","step":"2"},"uploads":{}})");
  EXPECT_EQ(form_change_payload(Version{1, 0, 5}, change),
            R"({"type":"form","event":"validate","value":"post%5Btitle%5D=Hi&post%5B_unused_body%5D=&post%5Bbody%5D=&_target=post%5Btitle%5D&step=2","uploads":{}})");
  EXPECT_EQ(form_change_payload(Version{0, 20, 17}, change),
            R"({"type":"form","event":"validate","value":"post%5Btitle%5D=Hi&post%5Bbody%5D=&_target=post%5Btitle%5D&step=2","uploads":{}})");
  change.target.clear();
  change.cid = 2;
  EXPECT_EQ(form_change_payload(Version{1, 2, 10}, change),
            R"({"type":"form","event":"validate","value":"post%5Btitle%5D=Hi&post%5B_unused_body%5D=&post%5Bbody%5D=","meta":{"_target":"undefined","step":"2"},"uploads":{},"cid":2})");

  FormSubmit submission;
  submission.event = "save";
  submission.entries = {{"go", "now", false}, {"a", "1", false}};
  submission.submitter_name = "go";
  EXPECT_EQ(form_submit_payload(Version{0, 20, 17}, submission), R"({"type":"form","event":"save","value":"a=1&go=now"})");
  EXPECT_EQ(form_submit_payload(Version{1, 2, 10}, submission), R"({"type":"form","event":"save","value":"go=now&a=1","meta":{}})");
}

TEST(LiveViewEventPayloads, JoinPayloadPerVersion) {
  JoinParams join;
  join.url = "https://app.example/items?x=1";
  join.csrf_token = "tok";
  join.session = "S";
  join.version = Version{0, 20, 17};
  EXPECT_EQ(join_payload(join), R"({"url":"https://app.example/items?x=1","params":{"_csrf_token":"tok","_mounts":0},"session":"S","static":null})");
  join.version = Version{1, 0, 9};
  EXPECT_EQ(join_payload(join), R"({"url":"https://app.example/items?x=1","params":{"_csrf_token":"tok","_mounts":0,"_mount_attempts":0},"session":"S","static":null})");
  join.version = Version{1, 2, 10};
  join.url.clear();  // a nested child
  join.static_token = "T";
  join.sticky = true;
  join.extra_params = {{"tz", "UTC"}};
  EXPECT_EQ(join_payload(join), R"({"params":{"_csrf_token":"tok","tz":"UTC","_mounts":0,"_mount_attempts":0},"session":"S","static":"T","sticky":true})");
  EXPECT_EQ(socket_query(join), "_csrf_token=tok&tz=UTC&_mounts=0&_mount_attempts=0&_live_referer=undefined&vsn=2.0.0");
}

TEST(LiveViewEventPayloads, RepliesAndPushes) {
  const json::value live = json::parse(R"({"live_redirect":{"to":"/posts","kind":"push","flash":"F"}})");
  const EventReply reply = read_event_reply(live);
  EXPECT_EQ(reply.diff, nullptr);
  EXPECT_EQ(reply.navigation.kind, Navigation::Kind::LiveRedirect);
  EXPECT_EQ(reply.navigation.to, "/posts");
  EXPECT_EQ(reply.navigation.history, "push");
  EXPECT_EQ(reply.navigation.flash, "F");

  const json::value with_diff = json::parse(R"({"diff":{"0":"1","r":{"ok":true}}})");
  EXPECT_NE(read_event_reply(with_diff).diff, nullptr);
  EXPECT_TRUE(read_event_reply(json::parse(R"({"link_redirect":true})")).link_redirect);
  EXPECT_EQ(read_event_reply(json::parse(R"({"cids":[3,4]})")).cids, (std::vector<int>{3, 4}));
  EXPECT_NE(read_event_reply(json::parse(R"({"r":{"a":1}})")).reply, nullptr);

  const Navigation redirect = read_push("redirect", json::parse(R"({"to":"/login","status":302})"));
  EXPECT_EQ(redirect.kind, Navigation::Kind::Redirect);
  EXPECT_EQ(redirect.status, 302);
  EXPECT_EQ(read_push("live_patch", json::parse(R"({"to":"/p?x=1","kind":"replace"})")).history, "replace");
  EXPECT_EQ(read_push("diff", json::parse(R"({"0":"x"})")).kind, Navigation::Kind::None);

  const JoinReply stale = read_join_reply("error", json::parse(R"({"reason":"stale"})"));
  EXPECT_FALSE(stale.ok);
  EXPECT_EQ(stale.reason, "stale");
  const JoinReply reload = read_join_reply("error", json::parse(R"({"reason":"reload","status":404,"token":"T"})"));
  EXPECT_EQ(reload.status, 404);
  EXPECT_EQ(reload.token, "T");
  const JoinReply moved = read_join_reply("error", json::parse(R"({"redirect":{"to":"/login","status":302,"flash":"F"},"events":[]})"));
  EXPECT_EQ(moved.navigation.kind, Navigation::Kind::Redirect);
  EXPECT_EQ(moved.navigation.flash, "F");
  const JoinReply joined = read_join_reply("ok", json::parse(R"({"rendered":{"s":["x"]},"container":["li",{"class":"a"}],"liveview_version":"1.1.3","live_patch":{"to":"/p","kind":"replace"}})"));
  EXPECT_TRUE(joined.ok);
  EXPECT_EQ(joined.version, (Version{1, 1, 3}));
  EXPECT_EQ(joined.container_tag, "li");
  EXPECT_EQ(joined.container_attributes.size(), 1u);
  EXPECT_EQ(joined.navigation.kind, Navigation::Kind::LivePatch);
}

TEST(LiveViewEventPayloads, UploadBookkeeping) {
  EXPECT_EQ(next_chunk_length(0, 150000, 64000), 64000u);
  EXPECT_EQ(next_chunk_length(128000, 150000, 64000), 22000u);
  EXPECT_EQ(next_chunk_length(150000, 150000, 64000), 0u);
  EXPECT_EQ(next_chunk_length(0, 10, 0), 10u);
  EXPECT_EQ(progress_to_send(64000, 150000, -1), 42);
  EXPECT_EQ(progress_to_send(64000, 150000, 42), std::nullopt);
  EXPECT_EQ(progress_to_send(150000, 150000, 85), 100);
  EXPECT_EQ(progress_to_send(0, 0, -1), 100);
  // JS doubles: 29/100*100 is 28.999999999999996, so the browser reports 28.
  EXPECT_EQ(progress_to_send(29, 100, -1), 28);

  const json::value error_reply = json::parse(R"({"ref":"phx-A","error":[["0","too_large"]]})");
  PreflightReply preflight;
  ASSERT_EQ(read_preflight_reply(error_reply, preflight), "");
  EXPECT_TRUE(preflight.tokens.empty());
  ASSERT_EQ(preflight.errors.size(), 1u);
  EXPECT_EQ(preflight.errors[0], (std::pair<std::string, std::string>{"0", "too_large"}));
  EXPECT_NE(read_preflight_reply(json::parse("[]"), preflight), "");
  EXPECT_EQ(cids_payload(std::vector<int>{3, 4}), R"({"cids":[3,4]})");
}

}  // namespace
}  // namespace stampede::proto::lv
