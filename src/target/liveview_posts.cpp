// /posts (DemoWeb.PostLive.Index): the posts, two per page, with "Prev" / "Next" links that
// live_patch to ?page=N (handle_params re-renders in place, the click_next step) and a
// "New post" link that navigates to /posts/new.
//
// A patch resends what LiveView resent in the recordings: the page number, the list (0.20:
// the whole "d"; 1.x: per item, only the fields that differ from the item shown before at
// that position), the Prev link (whole when it appears, its href and id when it stays, ""
// when it goes) and the Next link's href and id.
#include <string>
#include <vector>

#include "target/liveview_pages.hpp"
#include "target/liveview_posts_store.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kPostsParts[] = {
    "<h1>Posts (page <span id=\"page\">", "</span>)</h1>\n<ul id=\"posts\">\n  ", "\n</ul>\n", "\n", "\n", ""};
constexpr Template kPosts{kPostsParts, false};
constexpr std::string_view kItemParts[] = {"<li id=\"post-", "\">", ": ", "</li>"};
constexpr Template kItem{kItemParts, false};
// <.link patch=...> and <.link navigate=...>, and their inner blocks.
constexpr std::string_view kPatchLinkParts[] = {"<a", " data-phx-link=\"patch\"", "", ">", "</a>"};
constexpr Template kPatchLink{kPatchLinkParts, true};
constexpr std::string_view kRedirectLinkParts[] = {"<a", " data-phx-link=\"redirect\"", "", ">", "</a>"};
constexpr Template kRedirectLink{kRedirectLinkParts, true};
constexpr std::string_view kNextParts[] = {"Next"};
constexpr Template kNext{kNextParts, false};
constexpr std::string_view kPrevParts[] = {"Prev"};
constexpr Template kPrev{kPrevParts, false};
constexpr std::string_view kNewPostParts[] = {"New post"};
constexpr Template kNewPost{kNewPostParts, false};
// <%= if @page > 1 do %>...<% end %>
constexpr std::string_view kIfParts[] = {"", ""};
constexpr Template kIf{kIfParts, false};

class PostsLive final : public LiveView {
 public:
  PostsLive(LiveViewScope scope, LiveViewPostsStore& posts, std::uint32_t page)
      : LiveView(LiveViewPage::Posts), posts_(posts), scope_(scope), page_(page), shown_page_(page) {}

  const Template& statics(LiveViewDialect) const override { return kPosts; }

  void render(RenderOutput& out, Changed changed) const override {
    if (!changed.any(kPage)) return;
    out.text(0, std::to_string(page_));
    render_list(out, changed.full);
    render_prev(out, changed.full);
    if (changed.full) {
      render_link(out, 3, kPatchLink, href(page_ + 1), " id=\"next\"", kNext);
      render_link(out, 4, kRedirectLink, std::string(scope_.prefix) + "/posts/new", " id=\"new\"", kNewPost);
    } else {
      out.begin(3, nullptr);
      out.text(0, " href=\"" + escape_html(href(page_ + 1)) + "\"");
      out.text(2, " id=\"next\"");
      out.end();
    }
  }

  ViewOutcome handle_params(std::string_view query) override {
    shown_page_ = page_;
    page_ = page_number(query);
    return ViewOutcome::render(page_ == shown_page_ ? Changed{} : Changed::only(kPage));
  }

 private:
  static constexpr std::uint32_t kPage = 1;

  std::string href(std::uint32_t page) const {
    return std::string(scope_.prefix) + "/posts?page=" + std::to_string(page);
  }

  void render_list(RenderOutput& out, bool full) const {
    const auto posts = posts_.page(page_);
    const auto before = full ? std::vector<StoredPost>() : posts_.page(shown_page_);
    if (posts.empty()) {
      // Nothing printed the first time; an emptied list says so; an empty one stays quiet.
      if (full) {
        out.text(1, "");
      } else if (!before.empty()) {
        out.begin_list(1, nullptr);
        out.end_list(0);
      }
      return;
    }
    // The statics went out with the first rendering that had items.
    out.begin_list(1, full || before.empty() ? &kItem : nullptr);
    for (std::size_t i = 0; i < posts.size(); ++i) {
      const auto* old = i < before.size() && !full ? &before[i] : nullptr;
      out.begin_item(static_cast<int>(i));
      out.item_text(0, std::to_string(posts[i].id), old == nullptr || old->id != posts[i].id);
      out.item_text(1, escape_html(posts[i].title), old == nullptr || old->title != posts[i].title);
      out.item_text(2, escape_html(posts[i].body), old == nullptr || old->body != posts[i].body);
      out.end_item();
    }
    out.end_list(static_cast<int>(posts.size()));
  }

  void render_prev(RenderOutput& out, bool full) const {
    const bool has_prev = page_ > 1;
    const bool had_prev = !full && shown_page_ > 1;
    if (!has_prev) {
      if (full || had_prev) out.text(2, "");
      return;
    }
    if (had_prev) {
      out.begin(2, nullptr);
      out.begin(0, nullptr);
      out.text(0, " href=\"" + escape_html(href(page_ - 1)) + "\"");
      out.text(2, " id=\"prev\"");
      out.end();
      out.end();
      return;
    }
    out.begin(2, &kIf);
    render_link(out, 0, kPatchLink, href(page_ - 1), " id=\"prev\"", kPrev);
    out.end();
  }

  static void render_link(RenderOutput& out, int slot, const Template& link, const std::string& to, std::string_view id,
                          const Template& label) {
    out.begin(slot, &link);
    out.text(0, " href=\"" + escape_html(to) + "\"");
    out.text(1, " data-phx-link-state=\"push\"");
    out.text(2, id);
    out.begin(3, &label);
    out.end();
    out.end();
  }

  LiveViewPostsStore& posts_;
  LiveViewScope scope_;
  std::uint32_t page_;
  std::uint32_t shown_page_;  // the page the client showed before the last patch
};

}  // namespace

std::unique_ptr<LiveView> mount_posts(const MountContext& context) {
  return std::make_unique<PostsLive>(context.scope, context.posts, page_number(context.query));
}

}  // namespace stampede::target
