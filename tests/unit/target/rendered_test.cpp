// The rendered-diff builder and the dead-render writer on small templates: statics numbered
// in the order nodes close and shared in one "p" table (1.x) or written inline (0.20), keyed
// against "d" comprehensions, diff nodes left out when nothing in them changed, components
// under "c" with inline statics, and the HTML of the same tree.
#include <gtest/gtest.h>

#include <string>

#include "target/rendered_html.hpp"
#include "target/rendered_json.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kPageParts[] = {"<h1>", "</h1>", "<ul>", "</ul>", ""};
constexpr Template kPage{kPageParts, false};
constexpr std::string_view kLinkParts[] = {"<a", ">", "</a>"};
constexpr Template kLink{kLinkParts, true};
constexpr std::string_view kItemParts[] = {"<li>", ":", "</li>"};
constexpr Template kItem{kItemParts, false};
constexpr std::string_view kBoxParts[] = {"<div>", "</div>"};
constexpr Template kBox{kBoxParts, true};

class Box final : public LiveComponent {
 public:
  const Template& statics() const override { return kBox; }
  void render(RenderOutput& out, Changed) const override { out.text(0, "boxed"); }
};

// A page: a title, a link (nested), a list of two items, a component.
void render(RenderOutput& out, const Box& box, bool full) {
  out.begin_root(full ? &kPage : nullptr);
  out.text(0, "Title");
  out.begin(1, full ? &kLink : nullptr);
  out.text(0, " href=\"/x\"");
  out.begin(1, full ? &kLink : nullptr);  // the same template twice: one table entry
  out.text(0, "");
  out.text(1, "inner");
  out.end();
  out.end();
  out.begin_list(2, full ? &kItem : nullptr);
  for (int i = 0; i < 2; ++i) {
    out.begin_item(i);
    out.item_text(0, std::to_string(i), full || i == 1);
    out.item_text(1, "v", full);
    out.end_item();
  }
  out.end_list(2);
  out.component(3, 1, box, Changed::everything());
  out.end_root();
}

TEST(RenderedJson, OneXNumbersTemplatesAsTheyCloseAndSharesThem) {
  Box box;
  std::string json;
  RenderedJson writer(LiveViewDialect::V1, json);
  render(writer, box, true);
  writer.title("T");
  writer.finish();
  EXPECT_EQ(json, R"({"0":"Title","1":{"0":" href=\"/x\"","1":{"0":"","1":"inner","s":0,"r":1},"s":0,"r":1},)"
                  R"("2":{"k":{"0":{"0":"0","1":"v"},"1":{"0":"1","1":"v"},"kc":2},"s":1},"3":1,"s":2,"t":"T",)"
                  R"("c":{"1":{"0":"boxed","s":["<div>","</div>"],"r":1}},)"
                  R"("p":{"0":["<a",">","</a>"],"1":["<li>",":","</li>"],"2":["<h1>","</h1>","<ul>","</ul>",""]}})");
}

TEST(RenderedJson, ZeroTwentyWritesStaticsInlineAndCompleteItems) {
  Box box;
  std::string json;
  RenderedJson writer(LiveViewDialect::V0_20, json);
  render(writer, box, false);
  writer.finish();
  EXPECT_EQ(json, R"({"0":"Title","1":{"0":" href=\"/x\"","1":{"0":"","1":"inner"}},)"
                  R"("2":{"d":[["0","v"],["1","v"]]},"3":1,"c":{"1":{"0":"boxed","s":["<div>","</div>"],"r":1}}})");
}

TEST(RenderedJson, AKeyedDiffCarriesOnlyWhatChanged) {
  Box box;
  std::string json;
  RenderedJson writer(LiveViewDialect::V1, json);
  render(writer, box, false);
  writer.finish();
  EXPECT_NE(json.find(R"("2":{"k":{"1":{"0":"1"},"kc":2}})"), std::string::npos) << json;
}

TEST(RenderedJson, DiffNodesWithNothingInThemAreLeftOut) {
  std::string json;
  RenderedJson writer(LiveViewDialect::V1, json);
  writer.begin_root(nullptr);
  writer.begin(2, nullptr);
  writer.begin(0, nullptr);
  writer.end();
  writer.end();
  writer.end_root();
  writer.finish();
  EXPECT_TRUE(writer.empty());
  EXPECT_EQ(json, "{}");

  Box box;
  RenderedJson update(LiveViewDialect::V1, json);
  update.begin_root(nullptr);
  update.begin(2, nullptr);
  update.component_update(1, box, Changed::only(1));
  update.end();
  update.end_root();
  update.reply(R"({"clicks":1})");
  update.finish();
  EXPECT_EQ(json, R"({"r":{"clicks":1},"c":{"1":{"0":"boxed"}}})");
}

TEST(RenderedJson, EmptyListsSayTheirCount) {
  for (const auto dialect : {LiveViewDialect::V1, LiveViewDialect::V0_20}) {
    std::string json;
    RenderedJson writer(dialect, json);
    writer.begin_root(nullptr);
    writer.begin_list(4, nullptr);
    writer.end_list(0);
    writer.end_root();
    writer.finish();
    EXPECT_EQ(json, dialect == LiveViewDialect::V1 ? R"({"4":{"k":{"kc":0}}})" : R"({"4":{"d":[]}})");
  }
}

TEST(RenderedHtml, InterleavesStaticsAndDynamicsWithComponentsInline) {
  Box box;
  std::string html;
  RenderedHtml writer(html);
  render(writer, box, true);
  EXPECT_EQ(html, "<h1>Title</h1><a href=\"/x\"><a>inner</a></a><ul><li>0:v</li><li>1:v</li></ul><div>boxed</div>");
}

TEST(EscapeHtml, EscapesWhatPhoenixHtmlEscapes) {
  EXPECT_EQ(escape_html("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
}

}  // namespace
}  // namespace stampede::target
