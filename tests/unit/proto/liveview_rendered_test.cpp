#include "proto/liveview_rendered.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace stampede::proto::lv {
namespace {

// Joins with a rendered tree (JSON text) and the given version; fails the test on error.
Rendered joined(const std::string& rendered, const std::string& version = "1.2.10") {
  Rendered view;
  DiffResult out;
  const std::string error = view.merge_join(R"({"liveview_version":")" + version + R"(","rendered":)" + rendered + "}", out);
  EXPECT_EQ(error, "");
  return view;
}

std::string merged(Rendered& view, const std::string& diff) {
  DiffResult out;
  const std::string error = view.merge_diff(diff, out);
  EXPECT_EQ(error, "") << diff;
  return view.to_html();
}

// The keyed-comprehension walk-through of ../shared/phoenix-protocol.md §5.11 (LV 1.2).
TEST(LiveViewRendered, KeyedComprehensionsMoveAndMergeItems) {
  Rendered view = joined(R"({"0":{"k":{"0":{"0":"0","1":"First"},"1":{"0":"0","1":"Second"},"kc":2},"s":0},
      "p":{"0":["<li>"," ","</li>"],"1":["<ul>","</ul>"]},"r":1,"s":1})");
  EXPECT_EQ(view.to_html(), "<ul><li>0 First</li><li>0 Second</li></ul>");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":1,"1":0,"kc":2,"km":true}}})"), "<ul><li>0 Second</li><li>0 First</li></ul>");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":{"0":"1"},"1":{"0":"1"},"kc":2}}})"), "<ul><li>1 Second</li><li>1 First</li></ul>");
  // Old item 1 moves to 0 and is also the base the diff at position 1 merges into.
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":1,"1":{"1":"Third"},"kc":2,"km":true}}})"), "<ul><li>1 First</li><li>1 Third</li></ul>");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":[1,{"0":"2"}],"2":{"0":"9","1":"New"},"kc":3,"km":true}}})"),
            "<ul><li>2 Third</li><li>1 Third</li><li>9 New</li></ul>");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"kc":1}}})"), "<ul><li>2 Third</li></ul>");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"kc":0}}})"), "<ul></ul>");
  EXPECT_EQ(view.version(), (Version{1, 2, 10}));
}

TEST(LiveViewRendered, OldComprehensionsResendEverythingWithTheirOwnTemplates) {
  Rendered view = joined(R"({"0":{"d":[["a",{"0":"x","s":0}],["b",{"0":"y","s":0}]],"p":{"0":["<b>","</b>"]},"s":["<i>","","</i>"]},
      "s":["<div>","</div>"]})", "0.20.17");
  EXPECT_EQ(view.to_html(), "<div><i>a<b>x</b></i><i>b<b>y</b></i></div>");
  EXPECT_EQ(merged(view, R"({"0":{"d":[["c",{"0":"z","s":0}]],"p":{"0":["<u>","</u>"]}}})"), "<div><i>c<u>z</u></i></div>");
  EXPECT_EQ(merged(view, R"({"0":{"d":[]}})"), "<div></div>");
  EXPECT_EQ(view.version(), (Version{0, 20, 17}));
}

TEST(LiveViewRendered, NestedTemplatesMergeOrReplace) {
  Rendered view = joined(R"j({"0":{"0":"a","1":{"0":"b","s":["(",")"]},"s":["[","|","]"]},"s":["<p>","</p>"],"t":"Hi"})j");
  EXPECT_EQ(view.to_html(), "<p>[a|(b)]</p>");
  EXPECT_EQ(view.title(), "Hi");
  EXPECT_EQ(merged(view, R"({"0":{"1":{"0":"c"}}})"), "<p>[a|(c)]</p>");
  EXPECT_EQ(merged(view, R"({"0":{"1":{"0":"d","1":"e","s":["{",",","}"]}}})"), "<p>[a|{d,e}]</p>");
  EXPECT_EQ(merged(view, R"({"0":{"0":"&lt;x&gt;","1":""}})"), "<p>[&lt;x&gt;|]</p>");
}

TEST(LiveViewRendered, RepliesEventsAndTitlesComeOut) {
  Rendered view = joined(R"({"0":"0","s":["<b>","</b>"]})");
  DiffResult out;
  ASSERT_EQ(view.merge_diff(R"({"0":"1","r":{"count":1},"e":[["highlight",{"id":"b"}],["early",{},true]],"t":"One"})", out), "");
  EXPECT_EQ(out.reply_json, R"({"count":1})");
  ASSERT_EQ(out.events.size(), 2u);
  EXPECT_EQ(out.events[0].name, "highlight");
  EXPECT_EQ(out.events[0].payload_json, R"({"id":"b"})");
  EXPECT_FALSE(out.events[0].before_patch);
  EXPECT_TRUE(out.events[1].before_patch);
  EXPECT_EQ(out.title, "One");
  EXPECT_EQ(view.title(), "One");
  EXPECT_EQ(view.to_html(), "<b>1</b>");
  ASSERT_EQ(view.merge_diff(R"({})", out), "");
  EXPECT_EQ(out.reply_json, "");
  EXPECT_TRUE(out.events.empty());
  EXPECT_FALSE(out.title.has_value());
}

TEST(LiveViewRendered, ComponentsShareStaticsAndAreMarked) {
  Rendered view = joined(R"({"0":1,"1":"","s":["<main>","","</main>"],
      "c":{"1":{"0":"hello","1":"world","s":["<div class=\"c\">","<span>","</span></div>"]}}})");
  EXPECT_EQ(view.to_html(), R"(<main><div class="c">hello<span>world</span></div></main>)");
  EXPECT_EQ(view.to_html({.mark_components = true}),
            R"(<main><div data-phx-component="1" class="c">hello<span>world</span></div></main>)");
  // diff_test.exs "on addition": component 2 copies the previous component 1.
  EXPECT_EQ(merged(view, R"({"1":2,"c":{"2":{"0":"another","s":-1}}})"),
            R"(<main><div class="c">hello<span>world</span></div><div class="c">another<span>world</span></div></main>)");
  // A positive reference copies another entry of the same diff, after its own diff.
  EXPECT_EQ(merged(view, R"({"1":3,"c":{"3":{"1":"!","s":2},"2":{"0":"two"}}})"),
            R"(<main><div class="c">hello<span>world</span></div><div class="c">two<span>!</span></div></main>)");
  EXPECT_EQ(view.components(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(view.rendered_components(), (std::vector<int>{1, 3}));

  const std::optional<Element> span = view.find("div span");
  ASSERT_TRUE(span.has_value());
  EXPECT_EQ(span->component, 1);
  EXPECT_EQ(view.text("main"), "helloworldtwo!");
}

TEST(LiveViewRendered, ComponentsThatLeaveThePageAreReportedThenPruned) {
  Rendered view = joined(R"({"0":1,"1":2,"s":["<main>","","</main>"],
      "c":{"1":{"0":"a","s":["<p>","</p>"]},"2":{"0":"b","s":["<p>","</p>"]}}})");
  EXPECT_EQ(view.rendered_components(), (std::vector<int>{1, 2}));
  DiffResult out;
  ASSERT_EQ(view.merge_diff(R"({"1":""})", out), "");
  EXPECT_EQ(out.removed_cids, (std::vector<int>{2}));
  const std::vector<int> destroy = view.still_removed(out.removed_cids);
  EXPECT_EQ(destroy, (std::vector<int>{2}));
  view.prune_cids(destroy);
  EXPECT_EQ(view.components(), (std::vector<int>{1}));

  // Component 1 leaves, but comes back before cids_will_destroy is answered: kept.
  ASSERT_EQ(view.merge_diff(R"({"0":""})", out), "");
  EXPECT_EQ(out.removed_cids, (std::vector<int>{1}));
  ASSERT_EQ(view.merge_diff(R"({"1":1})", out), "");
  EXPECT_TRUE(out.removed_cids.empty());
  EXPECT_TRUE(view.still_removed(std::vector<int>{1}).empty());
  view.prune_cids(std::vector<int>{1});
  EXPECT_EQ(view.components(), (std::vector<int>{1}));
  EXPECT_EQ(view.to_html(), "<main><p>a</p></main>");
}

TEST(LiveViewRendered, ComponentsNestInsideComponents) {
  Rendered view = joined(R"({"0":1,"s":["",""],"c":{"1":{"0":2,"s":["<div>","</div>"]},"2":{"0":"x","s":["<b>","</b>"]}}})");
  EXPECT_EQ(view.to_html({.mark_components = true}), R"(<div data-phx-component="1"><b data-phx-component="2">x</b></div>)");
  DiffResult out;
  ASSERT_EQ(view.merge_diff(R"({"c":{"1":{"0":""}}})", out), "");
  EXPECT_EQ(out.removed_cids, (std::vector<int>{2}));
}

TEST(LiveViewRendered, StreamsKeepTheirItemsLikeTheDom) {
  // LV 1.1+ stream inserts: [dom_id, at, limit, update_only].
  Rendered view = joined(R"({"0":{"k":{"0":{"0":"a","1":"A"},"1":{"0":"b","1":"B"},"kc":2},
      "s":["<li id=\"","\">","</li>"],"stream":["0",[["a",-1,null,false],["b",-1,null,false]],[]]},"s":["<ul phx-update=\"stream\">","</ul>"]})");
  EXPECT_EQ(view.to_html(), R"(<ul phx-update="stream"><li id="a">A</li><li id="b">B</li></ul>)");
  DiffResult out;
  ASSERT_EQ(view.merge_diff(R"({"0":{"k":{"0":{"0":"c","1":"C"},"kc":1},"stream":["0",[["c",0,null,false]],[]]}})", out), "");
  EXPECT_EQ(view.to_html(), R"(<ul phx-update="stream"><li id="c">C</li><li id="a">A</li><li id="b">B</li></ul>)");
  ASSERT_EQ(out.streams.size(), 1u);
  EXPECT_EQ(out.streams[0].ref, "0");
  EXPECT_EQ(out.streams[0].inserted_ids, (std::vector<std::string>{"c"}));
  EXPECT_TRUE(out.streams[0].deleted_ids.empty());
  EXPECT_FALSE(out.streams[0].reset);
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":{"0":"a","1":"A2"},"kc":1},"stream":["0",[["a",-1,null,false]],["b"]]}})"),
            R"(<ul phx-update="stream"><li id="c">C</li><li id="a">A2</li></ul>)");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":{"0":"d","1":"D"},"kc":1},"stream":["0",[["d",-1,-2,false]],[]]}})"),
            R"(<ul phx-update="stream"><li id="a">A2</li><li id="d">D</li></ul>)");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":{"0":"x","1":"X"},"kc":1},"stream":["0",[["x",-1,null,true]],[]]}})"),
            R"(<ul phx-update="stream"><li id="a">A2</li><li id="d">D</li></ul>)");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"0":{"0":"e","1":"E"},"kc":1},"stream":["0",[["e",-1,null,false]],[],true]}})"),
            R"(<ul phx-update="stream"><li id="e">E</li></ul>)");
  EXPECT_EQ(merged(view, R"({"0":{"k":{"kc":0},"stream":["0",[],["e"]]}})"), R"(<ul phx-update="stream"></ul>)");
}

TEST(LiveViewRendered, OldStreamInsertFormsAreRead) {
  Rendered view = joined(R"({"0":{"d":[["a","A"]],"s":["<li id=\"","\">","</li>"],"stream":["0",{"a":[-1,null]},[]]},"s":["<ul>","</ul>"]})",
                         "0.20.2");
  EXPECT_EQ(view.to_html(), R"(<ul><li id="a">A</li></ul>)");
  EXPECT_EQ(merged(view, R"({"0":{"d":[["b","B"]],"stream":["0",[["b",0,null]],[]]}})"), R"(<ul><li id="b">B</li><li id="a">A</li></ul>)");
}

// ------------------------------------------------------------------------ refused input

// Each refused diff leaves the state as it was.
class LiveViewRenderedErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    view_ = joined(R"({"0":"x","1":{"0":"y","s":["<b>","</b>"]},"2":1,"3":{"k":{"0":{"0":"i"},"kc":1},"s":["<li>","</li>"]},
        "s":["<main>","","","","</main>"],"c":{"1":{"0":"c","s":["<p>","</p>"]}}})");
    before_ = view_.to_html();
  }

  std::string refused(const std::string& diff) {
    DiffResult out;
    const std::string error = view_.merge_diff(diff, out);
    EXPECT_NE(error, "") << diff;
    EXPECT_EQ(view_.to_html(), before_) << diff;
    EXPECT_TRUE(view_.joined());
    return error;
  }

  Rendered view_;
  std::string before_;
};

TEST_F(LiveViewRenderedErrors, MissingTemplates) {
  EXPECT_NE(refused(R"({"1":{"0":"z","s":5},"p":{"0":["a","b"]}})").find("template 5 is missing"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"0":"z","s":0}})").find("no template table"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"0":"z","s":0},"p":{"0":"nope"}})").find("not a list of strings"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"0":"z","s":[]}})").find("at least one string"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"s":["a","b"]}})").find("only 0 dynamics"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"0":"a","1":"b","s":["<",">"]}})").find("slots"), std::string::npos);
}

TEST_F(LiveViewRenderedErrors, BadComponentReferences) {
  EXPECT_NE(refused(R"({"0":9})").find("component 9, which was never sent"), std::string::npos);
  EXPECT_NE(refused(R"({"c":{"5":{"0":"x"}}})").find("component 5 is new but has no statics"), std::string::npos);
  EXPECT_NE(refused(R"({"c":{"5":{"0":"x","s":-4}}})").find("component 4, which is not held"), std::string::npos);
  EXPECT_NE(refused(R"({"c":{"5":{"0":"x","s":6}}})").find("component 6, which this diff does not contain"), std::string::npos);
  EXPECT_NE(refused(R"({"c":{"5":{"s":6},"6":{"s":5}}})").find("loop"), std::string::npos);
  EXPECT_NE(refused(R"({"c":{"x":{"0":"x","s":["a","b"]}}})").find("not a positive integer"), std::string::npos);
  EXPECT_NE(refused(R"({"0":-1})").find("positive integer"), std::string::npos);
}

TEST_F(LiveViewRenderedErrors, MalformedDiffs) {
  EXPECT_NE(refused("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(refused("[1,2]").find("must be an object"), std::string::npos);
  EXPECT_NE(refused(R"({"0":true})").find("not a boolean"), std::string::npos);
  EXPECT_NE(refused(R"({"0":{"0":"z"}})").find("no template to merge it into"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"7":"z"}})").find("slots"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"0":{"0":"a"},"kc":5}}})").find("counts items the diff does not send"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"2":{"0":"a"},"kc":3}}})").find("new item 1 is not sent"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"0":4,"kc":1}}})").find("did not exist"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"1":{"0":"a","1":"b"},"kc":2}}})").find("slots"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"0":"a"}}})").find("\"kc\""), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"d":[["a"]]}})").find("keyed"), std::string::npos);
  EXPECT_NE(refused(R"({"1":{"k":{"kc":0}}})").find("comprehension diff"), std::string::npos);
  EXPECT_NE(refused(R"({"3":{"k":{"kc":0},"stream":["0"]}})").find("stream"), std::string::npos);
  EXPECT_NE(refused(R"({"e":{"x":1}})").find("\"e\""), std::string::npos);
  EXPECT_NE(refused(R"({"0":"ok","e":[["x"]]})").find("\"e\""), std::string::npos);
  // Nesting deeper than the merger walks: refused whether the text or a parsed value comes in.
  std::string deep = "{\"1\":";
  for (int i = 0; i < 300; ++i) deep += "{\"s\":[\"\",\"\"],\"0\":";
  deep += "\"x\"" + std::string(301, '}');
  refused(deep);
  boost::json::parse_options options;
  options.max_depth = 1000;
  const boost::json::value parsed = boost::json::parse(deep, {}, options);
  DiffResult out;
  EXPECT_NE(view_.merge_diff(parsed, out).find("nested too deeply"), std::string::npos);
  EXPECT_EQ(view_.to_html(), before_);
  // Every shape error names the versions this client speaks.
  EXPECT_NE(refused(R"({"0":9})").find("0.20.x and 1.0 to 1.2"), std::string::npos);
}

TEST(LiveViewRenderedJoin, RefusesWhatItCannotSpeak) {
  Rendered view;
  DiffResult out;
  EXPECT_NE(view.merge_diff(R"({"0":"x"})", out), "");  // before any join
  const std::string old = view.merge_join(R"({"liveview_version":"0.19.5","rendered":{"s":["x"]}})", out);
  EXPECT_NE(old.find("LiveView 0.19.5 is not supported"), std::string::npos);
  EXPECT_NE(old.find("0.20.x and 1.0 to 1.2"), std::string::npos);
  EXPECT_NE(view.merge_join(R"({"liveview_version":"1.2.10"})", out), "");
  EXPECT_NE(view.merge_join(R"({"rendered":{"0":"x"}})", out), "");
  EXPECT_FALSE(view.joined());
  EXPECT_EQ(view.to_html(), "");

  // No liveview_version (servers before 0.20.15): the dialect comes from the tree's shape.
  ASSERT_EQ(view.merge_join(R"({"rendered":{"0":{"k":{"kc":0},"s":0},"p":{"0":["<li>","</li>"]},"s":["<ul>","</ul>"]}})", out), "");
  EXPECT_EQ(view.version(), (Version{1, 1, 0}));
  ASSERT_EQ(view.merge_join(R"({"rendered":{"0":{"d":[],"s":["<li>","</li>"]},"s":["<ul>","</ul>"]}})", out), "");
  EXPECT_EQ(view.version(), (Version{0, 20, 0}));
}

TEST(LiveViewRenderedJoin, ComponentLoopsDropTheState) {
  Rendered view = joined(R"({"0":1,"s":["",""],"c":{"1":{"0":"x","s":["<p>","</p>"]}}})");
  DiffResult out;
  const std::string error = view.merge_diff(R"({"c":{"1":{"0":2},"2":{"0":1,"s":["<b>","</b>"]}}})", out);
  EXPECT_NE(error.find("contains itself"), std::string::npos) << error;
  EXPECT_FALSE(view.joined());
  EXPECT_EQ(view.to_html(), "");
}

TEST(LiveViewRenderedJoin, ExplosiveCopiesAreRefusedBeforeTheyAllocate) {
  // Lists of 1000-item lists, the outer one doubled by moves each diff: the copies would pass a
  // million items at 1024 rows; the diff that would do it is refused and the state kept.
  std::string inner = R"({"k":{)";
  for (int i = 0; i < 1000; ++i) inner += "\"" + std::to_string(i) + "\":{\"0\":\"v\"},";
  inner += R"("kc":1000},"s":["<i>","</i>"]})";
  Rendered view = joined(R"({"0":{"k":{"0":{"0":)" + inner + R"(},"kc":1},"s":["<li>","</li>"]},"s":["<ul>","</ul>"]})");
  std::string error;
  std::size_t rows = 1;
  while (error.empty() && rows < 4096) {
    std::string diff = R"({"0":{"k":{)";
    for (std::size_t i = 0; i < 2 * rows; ++i) diff += "\"" + std::to_string(i) + "\":" + std::to_string(i % rows) + ",";
    diff += "\"kc\":" + std::to_string(2 * rows) + "}}}";
    DiffResult out;
    error = view.merge_diff(diff, out);
    if (error.empty()) rows *= 2;
  }
  EXPECT_NE(error.find("more than 1000000"), std::string::npos) << error;
  EXPECT_EQ(rows, 512u);
  EXPECT_TRUE(view.joined());
  EXPECT_EQ(view.to_html().size(), 9u + 512u * (9u + 1000u * 8u));
}

TEST(LiveViewRenderedJoin, ComponentFanOutThatWouldRenderTooMuchDropsTheState) {
  // Component 1 shows component 2 a thousand times, which shows component 3 a thousand times.
  std::string many_2 = R"({"k":{)";
  std::string many_3 = R"({"k":{)";
  for (int i = 0; i < 1000; ++i) {
    many_2 += "\"" + std::to_string(i) + "\":{\"0\":2},";
    many_3 += "\"" + std::to_string(i) + "\":{\"0\":3},";
  }
  many_2 += R"("kc":1000},"s":["",""]})";
  many_3 += R"("kc":1000},"s":["",""]})";
  Rendered view = joined(R"({"0":"","s":["<main>","</main>"]})");
  DiffResult out;
  const std::string error = view.merge_diff(R"({"0":1,"c":{"1":{"0":)" + many_2 + R"(,"s":["<div>","</div>"]},"2":{"0":)" + many_3 +
                                                R"(,"s":["<p>","</p>"]},"3":{"0":")" + std::string(100, 'x') + R"(","s":["<b>","</b>"]}}})",
                                            out);
  EXPECT_NE(error.find("more than 64 MiB"), std::string::npos) << error;
  EXPECT_FALSE(view.joined());
}

}  // namespace
}  // namespace stampede::proto::lv
