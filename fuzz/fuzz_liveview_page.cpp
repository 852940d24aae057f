// Arbitrary bytes as a LiveView page: the scanner, the tokenizer, the element and form finders
// must never crash or read outside the input, and what they report must come from it: every
// token's raw text lies inside the input, every view has an id, roots are views. The first line
// doubles as a selector (valid or not) for the finders.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "proto/liveview_page.hpp"

namespace lv = stampede::proto::lv;

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() || (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view html(reinterpret_cast<const char*>(data), size);

  lv::scan_html(html, [&](const lv::HtmlToken& token) {
    if (!inside(token.raw, html)) std::abort();
    if ((token.kind == lv::HtmlToken::Kind::StartTag || token.kind == lv::HtmlToken::Kind::EndTag) && token.name.empty()) std::abort();
    for (const lv::HtmlAttribute& attribute : token.attributes) {
      if (attribute.name.empty()) std::abort();
    }
    if (token.kind == lv::HtmlToken::Kind::Text && !token.raw_text) (void)lv::decode_html_entities(token.raw);
    return true;
  });

  const lv::PageScan page = lv::scan_page(html);
  for (const lv::LiveViewRoot& view : page.views) {
    if (view.id.empty()) std::abort();
  }
  for (const lv::LiveViewRoot* root : lv::roots_to_join(page)) {
    if (root->session.empty() || !root->parent_id.empty()) std::abort();
  }
  if (page.title.starts_with(' ') || page.title.ends_with(' ')) std::abort();

  const std::string_view selector = html.substr(0, std::min(html.find('\n'), std::size_t{64}));
  const bool valid = lv::selector_error(selector).empty();
  for (const std::string_view query : {selector, std::string_view("div"), std::string_view("#a .b [c=d]"),
                                       std::string_view("input[name=x]"), std::string_view("form")}) {
    const std::optional<lv::Element> element = lv::find_element(html, query);
    if (query == selector && !valid && element) std::abort();
    if (element && element->tag.empty()) std::abort();
    (void)lv::element_text(html, query);
    if (const std::optional<lv::Form> form = lv::find_form(html, query)) {
      for (const lv::FormControl& control : form->controls) {
        if (control.tag.empty()) std::abort();
      }
    }
  }
  (void)lv::parse_version(selector);
  return 0;
}
