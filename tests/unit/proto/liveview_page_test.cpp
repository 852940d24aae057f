#include "proto/liveview_page.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stampede::proto::lv {
namespace {

TEST(LiveViewPageScan, ReadsTokensWhateverTheAttributeOrderAndQuoting) {
  const PageScan scan = scan_page(R"(<!DOCTYPE html><html><head>
    <META content="tok&amp;en" NAME="csrf-token">
    <title>
      Items &amp; more
      · App</title>
    <link phx-track-static rel=stylesheet href=/assets/app.css>
    <script defer phx-track-static type="text/javascript" src='/assets/app.js'></script>
  </head><body>
    <div data-phx-static='ST' data-phx-main id=phx-F1 data-phx-session="SE&quot;SS">dead render</div>
  </body></html>)");
  EXPECT_EQ(scan.csrf_token, "tok&en");
  EXPECT_EQ(scan.title, "Items & more · App");
  EXPECT_EQ(scan.track_static, (std::vector<std::string>{"/assets/app.css", "/assets/app.js"}));
  ASSERT_EQ(scan.views.size(), 1u);
  EXPECT_EQ(scan.views[0].id, "phx-F1");
  EXPECT_EQ(scan.views[0].session, "SE\"SS");
  EXPECT_EQ(scan.views[0].static_token, "ST");
  EXPECT_TRUE(scan.views[0].main);
  EXPECT_FALSE(scan.views[0].sticky);
  ASSERT_EQ(roots_to_join(scan).size(), 1u);
}

TEST(LiveViewPageScan, NestedAndStickyViews) {
  const PageScan scan = scan_page(R"(<div id="main" data-phx-main data-phx-session="M" data-phx-static="MS">
      <section><div id="clock" data-phx-session="" data-phx-static="CS" data-phx-parent-id="main"><p>12:00</p></div></section>
    </div>
    <li id="cart" class="sticky" data-phx-session="C" data-phx-static="" data-phx-sticky></li>)");
  ASSERT_EQ(scan.views.size(), 3u);
  EXPECT_EQ(scan.views[1].id, "clock");
  EXPECT_EQ(scan.views[1].parent_id, "main");
  EXPECT_EQ(scan.views[1].session, "");
  EXPECT_EQ(scan.views[1].static_token, "CS");
  EXPECT_TRUE(scan.views[2].sticky);
  EXPECT_EQ(scan.views[2].static_token, "");
  const std::vector<const LiveViewRoot*> roots = roots_to_join(scan);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0]->id, "main");
  EXPECT_EQ(roots[1]->id, "cart");
}

TEST(LiveViewPageScan, CommentsAndScriptsAreNotMarkup) {
  const PageScan scan = scan_page(R"(<!-- <meta name="csrf-token" content="no"> <div id="x" data-phx-session="no"> -->
    <script>document.write('<div id="y" data-phx-session="no"></div>'); if (a < b) {}</SCRIPT >
    <style>.a>.b{content:"<div id=z data-phx-session=no>"}</style>
    <textarea><div id="t" data-phx-session="no"></textarea>
    <meta name="csrf-token" content="yes">)");
  EXPECT_EQ(scan.csrf_token, "yes");
  EXPECT_TRUE(scan.views.empty());
}

TEST(LiveViewPageScan, PagesWithoutCsrfOrLiveView) {
  const PageScan plain = scan_page("<html><body><h1>Hello</h1><form><input name=a></form></body></html>");
  EXPECT_EQ(plain.csrf_token, "");
  EXPECT_TRUE(plain.views.empty());
  EXPECT_TRUE(roots_to_join(plain).empty());
  EXPECT_EQ(plain.title, "");

  const PageScan no_csrf = scan_page(R"(<div id="v" data-phx-main data-phx-session="S"></div>)");
  EXPECT_EQ(no_csrf.csrf_token, "");
  EXPECT_EQ(roots_to_join(no_csrf).size(), 1u);

  // A container without an id cannot be joined (no topic): it is not reported.
  EXPECT_TRUE(scan_page(R"(<div data-phx-session="S"></div>)").views.empty());
}

TEST(LiveViewPageScan, TruncatedAndOddInputNeverBreaksIt) {
  for (const char* html : {"", "<", "</", "<!--", "<div id=\"a", "<div id='x' data-phx-session", "<a b=\"c\"d=e f>",
                           "<<<>>>", "&#xFFFFFFFFF;", "<script>", "<title>x", "<!doctype"}) {
    const PageScan scan = scan_page(html);
    EXPECT_TRUE(scan.views.empty()) << html;
  }
  const PageScan cut = scan_page(R"(<div id="v" data-phx-session="S">)");
  EXPECT_EQ(cut.views.size(), 1u);
}

TEST(LiveViewHtml, DecodesEntitiesLikeABrowser) {
  EXPECT_EQ(decode_html_entities("&lt;p&gt; &amp;amp; &#39;&#x27;&quot;"), "<p> &amp; ''\"");
  EXPECT_EQ(decode_html_entities("a&nbsp;b"), "a\xC2\xA0" "b");
  EXPECT_EQ(decode_html_entities("&bogus; & &;"), "&bogus; & &;");
  EXPECT_EQ(decode_html_entities("&amp &copy 2024"), "& \xC2\xA9 2024");
  EXPECT_EQ(decode_html_entities("&#0;&#150;&#x1F600;"), "\xEF\xBF\xBD\xE2\x80\x93\xF0\x9F\x98\x80");
  EXPECT_EQ(decode_html_entities("a\r\nb\rc"), "a\nb\nc");
}

TEST(LiveViewHtml, AttributesKeepTheirFirstValueAndLegacyEntitiesInUrls) {
  std::vector<HtmlAttribute> attributes;
  scan_html(R"(<A HREF="/p?a=1&amp;b=2&copy=3" id=one ID=two bare data-x = 'y'>)", [&](const HtmlToken& token) {
    if (token.kind == HtmlToken::Kind::StartTag) {
      EXPECT_EQ(token.name, "a");
      attributes = token.attributes;
    }
    return true;
  });
  ASSERT_EQ(attributes.size(), 4u);
  EXPECT_EQ(attributes[0].value, "/p?a=1&b=2&copy=3");
  EXPECT_EQ(*find_attribute(attributes, "id"), "one");
  EXPECT_EQ(*find_attribute(attributes, "bare"), "");
  EXPECT_EQ(*find_attribute(attributes, "data-x"), "y");
}

const char* const kPage = R"(
<main>
  <h1 class="title big">Count:   <span id="count">3</span></h1>
  <ul id="posts"><li id="post-1" phx-value-id="1">First<li id="post-2">Second</ul>
  <div data-phx-component="2" id="c"><p>Clicker: <span class="n">7</span></p>
    <button id="bump" phx-click="bump" phx-target="2">bump</button></div>
  <form id="f" phx-change="v"><input id="title" name="post[title]" value="Hi &amp; bye">
    <select name="s"><option>a</option><option value="b" selected>B</option></select>
    <textarea name="t">
text</textarea><input type="checkbox" name="c" checked></form>
  <p>one<p>two
</main>)";

TEST(LiveViewHtml, FindsElementsBySimpleSelectors) {
  EXPECT_EQ(element_text(kPage, "#count"), "3");
  EXPECT_EQ(element_text(kPage, "h1"), "Count: 3");
  EXPECT_EQ(element_text(kPage, ".big"), "Count: 3");
  EXPECT_EQ(element_text(kPage, "h1.title.big"), "Count: 3");
  EXPECT_EQ(element_text(kPage, "[phx-value-id=1]"), "First");
  EXPECT_EQ(element_text(kPage, "[id=\"post-2\"]"), "Second");  // the implied </li> closed post-1
  EXPECT_EQ(element_text(kPage, "#posts li"), "First");
  EXPECT_EQ(element_text(kPage, "main ul [id='post-2']"), "Second");
  EXPECT_EQ(element_text(kPage, "p"), "Clicker: 7");
  EXPECT_EQ(element_text(kPage, "main > p"), std::nullopt);
  EXPECT_EQ(element_text(kPage, "#missing"), std::nullopt);
  EXPECT_EQ(element_text(kPage, "#f p"), std::nullopt);

  const std::optional<Element> bump = find_element(kPage, "button[phx-click]");
  ASSERT_TRUE(bump.has_value());
  EXPECT_EQ(bump->component, 2);
  EXPECT_EQ(bump->value, "");
  EXPECT_EQ(*find_attribute(bump->attributes, "phx-target"), "2");
  EXPECT_EQ(find_element(kPage, "#count")->component, std::nullopt);
  EXPECT_EQ(find_element(kPage, ".n")->component, 2);

  EXPECT_EQ(find_element(kPage, "#title")->value, "Hi & bye");
  EXPECT_EQ(find_element(kPage, "select")->value, "b");
  EXPECT_EQ(find_element(kPage, "textarea")->value, "text");
  EXPECT_EQ(find_element(kPage, "#post-1")->value, "0");
  EXPECT_TRUE(find_element(kPage, "#post-1")->value_is_number);
  EXPECT_TRUE(find_element(kPage, "input[type=checkbox]")->checked);
  EXPECT_EQ(find_element(kPage, "div")->value, std::nullopt);
}

TEST(LiveViewHtml, BadSelectorsAreExplained) {
  EXPECT_EQ(selector_error("#a .b[c=d] e"), "");
  for (const char* bad : {"", "   ", "a > b", "a, b", "a:hover", "#", ".", "[", "[=x]", "[a='x]", "a~b"}) {
    EXPECT_NE(selector_error(bad), "") << bad;
    EXPECT_EQ(find_element(kPage, bad), std::nullopt) << bad;
  }
}

TEST(LiveViewHtml, FindsFormsAndTheirControls) {
  const std::optional<Form> form = find_form(kPage, "#title");
  ASSERT_TRUE(form.has_value());
  EXPECT_EQ(*find_attribute(form->attributes, "id"), "f");
  ASSERT_EQ(form->controls.size(), 4u);
  EXPECT_EQ(form->controls[0].name, "post[title]");
  EXPECT_EQ(form->controls[0].type, "text");
  EXPECT_EQ(form->controls[0].value, "Hi & bye");
  EXPECT_EQ(form->controls[1].type, "select-one");
  EXPECT_EQ(form->controls[1].selected, (std::vector<std::string>{"b"}));
  EXPECT_EQ(form->controls[2].type, "textarea");
  EXPECT_EQ(form->controls[2].value, "text");
  EXPECT_EQ(form->controls[3].type, "checkbox");
  EXPECT_EQ(form->controls[3].value, "on");
  EXPECT_TRUE(form->controls[3].checked);
  EXPECT_EQ(find_form(kPage, "#f")->controls.size(), 4u);
  EXPECT_EQ(find_form(kPage, "#count"), std::nullopt);

  const std::optional<Form> in_component =
      find_form(R"(<div data-phx-component="5"><form id="g"><input name="a"></form></div>)", "input");
  ASSERT_TRUE(in_component.has_value());
  EXPECT_EQ(in_component->component, 5);
}

TEST(LiveViewVersion, ParsesReleaseStrings) {
  EXPECT_EQ(parse_version("0.20.17"), (Version{0, 20, 17}));
  EXPECT_EQ(parse_version("1.2.10"), (Version{1, 2, 10}));
  EXPECT_EQ(parse_version("1.1.0-rc.2"), (Version{1, 1, 0}));
  EXPECT_EQ(parse_version("1.0"), (Version{1, 0, 0}));
  EXPECT_EQ(parse_version("1"), std::nullopt);
  EXPECT_EQ(parse_version("x.y"), std::nullopt);
  EXPECT_EQ(parse_version("1.2.3.4"), std::nullopt);
  EXPECT_EQ(to_string(Version{0, 20, 17}), "0.20.17");
  EXPECT_LT((Version{0, 20, 17}), (Version{1, 0, 0}));
}

}  // namespace
}  // namespace stampede::proto::lv
