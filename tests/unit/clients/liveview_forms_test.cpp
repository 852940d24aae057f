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

TEST(LiveViewForms, FormSelectorsQuoteTheEventAndRefuseWhatCannotBeQuoted) {
  EXPECT_EQ(form_selector("phx-change", "validate"), R"(form[phx-change="validate"])");
  EXPECT_EQ(form_selector("phx-submit", "say \"hi\""), std::nullopt);
}

}  // namespace
}  // namespace stampede::clients
