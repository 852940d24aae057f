// /posts/new (DemoWeb.PostLive.New): a form for a post. phx-change "validate" re-renders the
// form with the values sent and "can't be blank" under an empty title; phx-submit "save"
// stores a valid post and push_navigates to /posts with the flash "Post created" (the
// recorded submit: a {"e":[]} diff push, live_redirect in the reply, then the view stops).
//
// What a validate resends is what LiveView 0.20 and 1.2 resent in the recordings: the whole
// form's attributes and fields, and the error list only when it appears or goes.
#include <string>

#include "target/liveview_pages.hpp"
#include "target/liveview_posts_store.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kPostsNewParts[] = {"<h1>New post</h1>\n", ""};
constexpr Template kPostsNew{kPostsNewParts, false};
constexpr std::string_view kFormParts[] = {"<form", ">\n  ", "\n  ", "\n  ", "\n</form>"};
constexpr Template kFormTemplate{kFormParts, true};
constexpr std::string_view kFieldsParts[] = {
    "\n  <label",
    ">Title</label>\n  <input type=\"text\"",
    "",
    "",
    ">\n  ",
    "\n  <label",
    ">Body</label>\n  <textarea",
    "",
    ">",
    "</textarea>\n  <button type=\"submit\" phx-disable-with=\"Saving...\">Save</button>\n"};
constexpr Template kFieldsTemplate{kFieldsParts, false};
constexpr std::string_view kErrorParts[] = {"<p class=\"error\">", "</p>"};
constexpr Template kErrorTemplate{kErrorParts, false};

// Phoenix.HTML writes the attributes in the order the template gives them; the two recorded
// apps' templates differ.
constexpr std::string_view kFormAttributes1 = " phx-submit=\"save\" phx-change=\"validate\" id=\"post-form\"";
constexpr std::string_view kFormAttributes020 = " id=\"post-form\" phx-change=\"validate\" phx-submit=\"save\"";
constexpr std::string_view kBlank = "can&#39;t be blank";

bool blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

class PostsNewLive final : public LiveView {
 public:
  PostsNewLive(LiveViewScope scope, LiveViewPostsStore& posts)
      : LiveView(LiveViewPage::PostsNew), posts_(posts), scope_(scope) {}

  const Template& statics(LiveViewDialect) const override { return kPostsNew; }

  void render(RenderOutput& out, Changed changed) const override {
    if (!changed.any(kFormChanged)) return;
    out.begin(0, changed.full ? &kFormTemplate : nullptr);
    out.text(0, scope_.dialect == LiveViewDialect::V0_20 ? kFormAttributes020 : kFormAttributes1);
    out.text(1, "");
    out.text(2, "");
    out.begin(3, changed.full ? &kFieldsTemplate : nullptr);
    out.text(0, " for=\"post_title\"");
    out.text(1, " id=\"post_title\"");
    out.text(2, " name=\"post[title]\"");
    out.text(3, " value=\"" + escape_html(title_) + "\"");
    if (changed.full) {
      out.text(4, "");  // an empty error list renders as nothing
    } else if (changed.any(kErrorsChanged)) {
      out.begin_list(4, error_statics_sent_ ? nullptr : &kErrorTemplate);
      if (title_error_) {
        out.begin_item(0);
        out.item_text(0, kBlank, true);
        out.end_item();
      }
      out.end_list(title_error_ ? 1 : 0);
    }
    out.text(5, " for=\"post_body\"");
    out.text(6, " id=\"post_body\"");
    out.text(7, " name=\"post[body]\"");
    out.text(8, escape_html(body_));
    out.end();
    out.end();
  }

  ViewOutcome handle_event(const LiveEvent& event) override {
    if (event.cid || event.type != "form") return ViewOutcome::crash();
    if (event.name != "validate" && event.name != "save") return ViewOutcome::crash();
    title_ = std::string(event.field("post[title]"));
    body_ = std::string(event.field("post[body]"));
    const bool error = blank(title_);
    if (event.name == "save" && !error) {
      posts_.create(title_, body_);
      ViewOutcome outcome;
      outcome.kind = ViewOutcome::Kind::Navigate;
      outcome.navigate_to = std::string(scope_.prefix) + "/posts";
      outcome.flash = "Post created";
      return outcome;
    }
    std::uint32_t changed = kFormChanged;
    // The statics of the error list went out with the first rendering that had an item.
    error_statics_sent_ = error_statics_sent_ || title_error_;
    if (error != title_error_) changed |= kErrorsChanged;
    title_error_ = error;
    return ViewOutcome::render(Changed::only(changed));
  }

 private:
  static constexpr std::uint32_t kFormChanged = 1;
  static constexpr std::uint32_t kErrorsChanged = 2;

  LiveViewPostsStore& posts_;
  std::string title_;
  std::string body_;
  LiveViewScope scope_;
  bool title_error_ = false;         // the error list as last rendered
  bool error_statics_sent_ = false;  // the client has the error list's statics
};

}  // namespace

std::unique_ptr<LiveView> mount_posts_new(const MountContext& context) {
  return std::make_unique<PostsNewLive>(context.scope, context.posts);
}

}  // namespace stampede::target
