// Forms filled in as a browser would hold them after the user typed the scenario's values:
// the whole form in DOM order, _unused_ markers for untouched fields (LiveView >= 1.0), and the
// payload the recorded browsers sent for the same typing.
#include "clients/liveview_forms.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace stampede::clients {
namespace {

namespace lv = proto::lv;

constexpr std::string_view kPostForm = R"(<form phx-submit="save" phx-change="validate" id="post-form">
  <label for="post_title">Title</label>
  <input type="text" id="post_title" name="post[title]" value="">
  <label for="post_body">Body</label>
  <textarea id="post_body" name="post[body]"></textarea>
  <button type="submit" phx-disable-with="Saving...">Save</button>
</form>)";

lv::Form post_form() { return lv::find_form(kPostForm, "#post-form").value(); }

TEST(LiveViewForms, ChangeSendsTheWholeFormWithUnusedMarkersLikeLiveView12) {
  lv::FormChange change;
  change.event = "validate";
  change.entries = fill_form(post_form(), {{"post[title]", " "}}, {}, lv::FormPurpose::Change);
  change.target = "post[title]";
  // lv-1.x/posts_new.json, step type_blank_title.
  EXPECT_EQ(boost::json::parse(lv::form_change_payload(lv::Version{1, 2, 10}, change)),
            boost::json::parse(R"({"type":"form","event":"validate",
              "value":"post%5Btitle%5D=+&post%5B_unused_body%5D=&post%5Bbody%5D=",
              "meta":{"_target":"post[title]"},"uploads":{}})"));
}

TEST(LiveViewForms, ChangeLikeLiveView020PutsTargetInTheValue) {
  lv::FormChange change;
  change.event = "validate";
  change.entries = fill_form(post_form(), {{"post[title]", " "}}, {}, lv::FormPurpose::Change);
  change.target = "post[title]";
  // lv-0.20/posts_new.json, step type_blank_title.
  EXPECT_EQ(boost::json::parse(lv::form_change_payload(lv::Version{0, 20, 17}, change)),
            boost::json::parse(R"({"type":"form","event":"validate",
              "value":"post%5Btitle%5D=+&post%5Bbody%5D=&_target=post%5Btitle%5D","uploads":{}})"));
}

TEST(LiveViewForms, FieldsTouchedEarlierLoseTheirUnusedMarker) {
  const auto entries = fill_form(post_form(), {{"post[title]", "Hi"}}, {"post[body]"}, lv::FormPurpose::Change);
  EXPECT_EQ(lv::encode_form_entries(entries, true), "post%5Btitle%5D=Hi&post%5Bbody%5D=");
}

TEST(LiveViewForms, SubmitMarksNothingUnused) {
  const auto entries = fill_form(post_form(), {{"post[title]", "Golden post"}}, {}, lv::FormPurpose::Submit);
  EXPECT_EQ(lv::encode_form_entries(entries, true), "post%5Btitle%5D=Golden+post&post%5Bbody%5D=");
}

TEST(LiveViewForms, ValuesTheFormDoesNotHaveComeAfterItsOwn) {
  const auto entries =
      fill_form(post_form(), {{"post[extra]", "x"}, {"post[body]", "b"}}, {}, lv::FormPurpose::Submit);
  EXPECT_EQ(lv::encode_form_entries(entries, false), "post%5Btitle%5D=&post%5Bbody%5D=b&post%5Bextra%5D=x");
}

TEST(LiveViewForms, WithoutAFormTheValuesAloneAreSent) {
  const auto entries = fill_form(std::nullopt, {{"q", "a b"}, {"tags[]", "1"}, {"tags[]", "2"}}, {},
                                 lv::FormPurpose::Change);
  EXPECT_EQ(lv::encode_form_entries(entries, true), "q=a+b&tags%5B%5D=1&tags%5B%5D=2");
}

TEST(LiveViewForms, CheckboxesRadiosAndSelectsTakeTheirValues) {
  const auto form = lv::find_form(R"(<form id="f">
      <input type="checkbox" name="tags[]" value="a"><input type="checkbox" name="tags[]" value="b">
      <input type="checkbox" name="agree">
      <input type="radio" name="size" value="s" checked><input type="radio" name="size" value="l">
      <select name="color"><option value="red">Red</option><option value="blue">Blue</option></select>
      <input type="text" name="items[]" value="x"><input type="text" name="items[]" value="y">
    </form>)", "#f");
  ASSERT_TRUE(form);
  const auto entries = fill_form(*form,
                                 {{"tags[]", "b"}, {"tags[]", "a"}, {"agree", "true"}, {"size", "l"},
                                  {"color", "blue"}, {"items[]", "1"}, {"items[]", "2"}, {"items[]", "3"}},
                                 {}, lv::FormPurpose::Submit);
  EXPECT_EQ(lv::encode_form_entries(entries, false),
            "tags%5B%5D=a&tags%5B%5D=b&agree=on&size=l&color=blue&items%5B%5D=1&items%5B%5D=2&items%5B%5D=3");
}

constexpr std::string_view kPage = R"(<main><h1>New post</h1>
<form phx-submit="save" phx-change="validate" id="post-form">
  <input type="text" id="post_title" name="post[title]" value="">
  <textarea id="post_body" name="post[body]"></textarea>
  <input type="text" name="post[slug]" disabled>
  <button type="submit">Save</button>
</form>
<form id="search" phx-submit="[[&quot;push&quot;,{&quot;event&quot;:&quot;search&quot;}]]">
  <input type="text" name="q" value="">
  <select name="sort" phx-change="sort"><option value="new">New</option></select>
</form></main>)";

TEST(LiveViewForms, TheFormIsFoundByItsEvent) {
  ActionForm found;
  ASSERT_EQ(find_action_form(kPage, "phx-change", "validate", "", {{"post[title]", "Hi"}}, "", found), "");
  EXPECT_EQ(*lv::find_attribute(found.form.attributes, "id"), "post-form");
  EXPECT_EQ(found.only_name, "");
  ASSERT_EQ(find_action_form(kPage, "phx-submit", "save", "", {}, "", found), "");
  EXPECT_EQ(*lv::find_attribute(found.form.attributes, "id"), "post-form");
}

TEST(LiveViewForms, AJsPushIsTheFormsEvent) {
  ActionForm found;
  ASSERT_EQ(find_action_form(kPage, "phx-submit", "search", "", {{"q", "x"}}, "", found), "");
  EXPECT_EQ(*lv::find_attribute(found.form.attributes, "id"), "search");
}

TEST(LiveViewForms, AnInputWithItsOwnPhxChangeSendsItsFieldAlone) {
  ActionForm found;
  ASSERT_EQ(find_action_form(kPage, "phx-change", "sort", "", {{"sort", "new"}}, "", found), "");
  EXPECT_EQ(*lv::find_attribute(found.form.attributes, "id"), "search");
  EXPECT_EQ(found.only_name, "sort");
  const auto entries = fill_form(found.form, {{"sort", "new"}}, {}, lv::FormPurpose::Change, found.only_name);
  EXPECT_EQ(lv::encode_form_entries(entries, false), "sort=new");
}

TEST(LiveViewForms, AMisspelledEventNamesTheFormsOnThePage) {
  ActionForm found;
  const std::string error = find_action_form(kPage, "phx-change", "validat", "", {{"post[title]", "x"}}, "", found);
  EXPECT_NE(error.find(R"(no form with phx-change="validat")"), std::string::npos) << error;
  EXPECT_NE(error.find(R"(form#post-form phx-change="validate" phx-submit="save")"), std::string::npos) << error;
  EXPECT_NE(error.find("form#search"), std::string::npos) << error;
  EXPECT_NE(find_action_form("<p>no forms</p>", "phx-submit", "save", "", {}, "", found).find("the view has no form"),
            std::string::npos);
}

TEST(LiveViewForms, AnUnknownOrDisabledFieldNamesTheFormsFields) {
  ActionForm found;
  std::string error = find_action_form(kPage, "phx-change", "validate", "", {{"post[titel]", "x"}}, "", found);
  EXPECT_EQ(error, R"(form#post-form phx-change="validate" phx-submit="save" has no enabled input, select or )"
                   R"(textarea named "post[titel]" (its fields: "post[title]", "post[body]"))");
  error = find_action_form(kPage, "phx-change", "validate", "", {{"post[slug]", "x"}}, "", found);
  EXPECT_NE(error.find(R"(named "post[slug]")"), std::string::npos) << error;
  error = find_action_form(kPage, "phx-change", "validate", "", {{"post[title]", "x"}}, "post[titel]", found);
  EXPECT_NE(error.find(R"(named "post[titel]")"), std::string::npos) << error;
  error = find_action_form(kPage, "phx-change", "validate", "#post-form", {{"post[titel]", "x"}}, "", found);
  EXPECT_NE(error.find(R"(named "post[titel]")"), std::string::npos) << error;
}

TEST(LiveViewForms, ASelectorFindsTheFormOrTheFormAroundAnInput) {
  ActionForm found;
  ASSERT_EQ(find_action_form(kPage, "phx-change", "anything", "#post_title", {{"post[body]", "b"}}, "", found), "");
  EXPECT_EQ(*lv::find_attribute(found.form.attributes, "id"), "post-form");
  const std::string error = find_action_form(kPage, "phx-change", "validate", "#nope", {}, "", found);
  EXPECT_NE(error.find("no form matches #nope"), std::string::npos) << error;
}

}  // namespace
}  // namespace stampede::clients
