#include "proto/liveview_page.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>

#include "proto/liveview_html_text.hpp"

namespace stampede::proto::lv {

using detail::collapse_whitespace;
using detail::decode_into;

std::optional<Version> parse_version(std::string_view text) {
  Version version;
  int* parts[] = {&version.major, &version.minor, &version.patch};
  std::size_t i = 0;
  int count = 0;
  for (; count < 3; ++count) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), value);
    if (ec != std::errc() || value < 0) return std::nullopt;
    *parts[count] = value;
    i = static_cast<std::size_t>(end - text.data());
    if (i == text.size() || text[i] != '.') break;
    ++i;
  }
  if (count == 0) return std::nullopt;  // one number is not a version
  if (count == 1) version.patch = 0;
  if (i < text.size() && text[i] != '-' && text[i] != '+') return std::nullopt;
  return version;
}

std::string to_string(const Version& version) {
  return std::to_string(version.major) + "." + std::to_string(version.minor) + "." + std::to_string(version.patch);
}

const std::string* find_attribute(const HtmlAttributes& attributes, std::string_view name) {
  for (const HtmlAttribute& attribute : attributes) {
    if (attribute.name == name) return &attribute.value;
  }
  return nullptr;
}

std::string decode_html_entities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  decode_into(text, false, out);
  return out;
}

bool is_void_element(std::string_view tag) {
  static constexpr std::array<std::string_view, 16> kVoid{"area", "base",  "br",   "col",  "command", "embed",
                                                          "hr",   "img",   "input", "keygen", "link", "meta",
                                                          "param", "source", "track", "wbr"};
  return std::find(kVoid.begin(), kVoid.end(), tag) != kVoid.end();
}

PageScan scan_page(std::string_view html) {
  PageScan page;
  bool have_csrf = false;
  bool in_title = false;
  bool have_title = false;
  std::string title;
  const std::function<bool(const HtmlToken&)> visit = [&](const HtmlToken& token) {
    if (token.kind == HtmlToken::Kind::Text) {
      if (in_title) decode_into(token.raw, false, title);
      return true;
    }
    if (token.kind == HtmlToken::Kind::EndTag) {
      if (token.name == "title") in_title = false;
      return true;
    }
    if (token.kind != HtmlToken::Kind::StartTag) return true;
    const HtmlAttributes& attributes = token.attributes;
    if (token.name == "title" && !have_title) {
      in_title = true;
      have_title = true;
    }
    if (!have_csrf && token.name == "meta") {
      const std::string* name = find_attribute(attributes, "name");
      const std::string* content = find_attribute(attributes, "content");
      if (name && content && *name == "csrf-token") {
        page.csrf_token = *content;
        have_csrf = true;
      }
    }
    if (const std::string* session = find_attribute(attributes, "data-phx-session")) {
      const std::string* id = find_attribute(attributes, "id");
      if (id != nullptr && !id->empty()) {
        LiveViewRoot& view = page.views.emplace_back();
        view.id = *id;
        view.session = *session;
        if (const std::string* token_static = find_attribute(attributes, "data-phx-static")) view.static_token = *token_static;
        if (const std::string* parent = find_attribute(attributes, "data-phx-parent-id")) view.parent_id = *parent;
        view.main = find_attribute(attributes, "data-phx-main") != nullptr;
        view.sticky = find_attribute(attributes, "data-phx-sticky") != nullptr;
      }
    }
    if (find_attribute(attributes, "phx-track-static") != nullptr) {
      const std::string* url = find_attribute(attributes, "src");
      if (url == nullptr) url = find_attribute(attributes, "href");
      if (url != nullptr && !url->empty()) page.track_static.push_back(*url);
    }
    return true;
  };
  scan_html(html, visit);
  page.title = collapse_whitespace(title);
  return page;
}

std::vector<const LiveViewRoot*> roots_to_join(const PageScan& page) {
  std::vector<const LiveViewRoot*> roots;
  for (const LiveViewRoot& view : page.views) {
    if (!view.session.empty() && view.parent_id.empty()) roots.push_back(&view);
  }
  return roots;
}

}  // namespace stampede::proto::lv
