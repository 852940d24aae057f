// The HTML tokenizer behind scan_html (liveview_page.hpp): tags with their attributes, text,
// comments skipped, raw text inside <script>/<style>/<textarea>/<title>.
#include <functional>
#include <string>
#include <string_view>

#include "proto/liveview_html_text.hpp"
#include "proto/liveview_page.hpp"

namespace stampede::proto::lv {

using detail::append_lower;
using detail::decode_into;
using detail::iequals;
using detail::is_ascii_alpha;
using detail::is_html_space;

namespace {

enum class TextMode { Normal, RawText, Rcdata };

TextMode text_mode_after(std::string_view tag) {
  if (tag == "script" || tag == "style" || tag == "xmp" || tag == "iframe" || tag == "noembed" ||
      tag == "noframes" || tag == "noscript") {
    return TextMode::RawText;  // noscript: a browser runs scripts, so its content is text
  }
  if (tag == "textarea" || tag == "title") return TextMode::Rcdata;
  return TextMode::Normal;
}

class Tokenizer {
 public:
  Tokenizer(std::string_view html, const std::function<bool(const HtmlToken&)>& visit) : in_(html), visit_(visit) {}

  void run() {
    while (pos_ < in_.size()) {
      if (mode_ != TextMode::Normal) {
        if (!raw_text_section()) return;
        continue;
      }
      const bool keep_going = in_[pos_] == '<' ? markup() : text();
      if (!keep_going) return;
    }
  }

 private:
  // Where the text that started at pos_ ends: the next '<' that opens markup.
  std::size_t text_end(std::size_t from) const {
    std::size_t i = from;
    while (true) {
      i = in_.find('<', i);
      if (i == std::string_view::npos || i + 1 >= in_.size()) return in_.size();
      const char next = in_[i + 1];
      if (is_ascii_alpha(next) || next == '!' || next == '/' || next == '?') return i;
      ++i;
    }
  }

  bool emit_text(std::string_view raw, bool raw_text) {
    if (raw.empty()) return true;
    token_.kind = HtmlToken::Kind::Text;
    token_.name.clear();
    token_.attributes.clear();
    token_.self_closing = false;
    token_.raw = raw;
    token_.raw_text = raw_text;
    return visit_(token_);
  }

  bool text() {
    // A '<' that opens nothing is text: include it, then look for the next markup.
    const std::size_t end = text_end(in_[pos_] == '<' ? pos_ + 1 : pos_);
    const std::string_view raw = in_.substr(pos_, end - pos_);
    pos_ = end;
    return emit_text(raw, false);
  }

  // Inside <script>, <style>, <textarea>, <title>...: everything up to "</tagname" is text.
  bool raw_text_section() {
    std::size_t i = pos_;
    std::size_t end = in_.size();
    while ((i = in_.find("</", i)) != std::string_view::npos) {
      const std::size_t name_at = i + 2;
      const std::size_t name_end = name_at + raw_tag_.size();
      if (name_end <= in_.size() && iequals(in_.substr(name_at, raw_tag_.size()), raw_tag_) &&
          (name_end == in_.size() || is_html_space(in_[name_end]) || in_[name_end] == '/' || in_[name_end] == '>')) {
        end = i;
        break;
      }
      i += 2;
    }
    const std::string_view raw = in_.substr(pos_, end - pos_);
    const bool literal = mode_ == TextMode::RawText;
    mode_ = TextMode::Normal;
    pos_ = end;
    return emit_text(raw, literal);
  }

  bool markup() {
    const std::string_view rest = in_.substr(pos_);
    if (rest.size() < 2) return text();
    if (rest.starts_with("<!--")) return comment();
    if (rest[1] == '!' || rest[1] == '?') return bogus(rest[1] == '!' ? HtmlToken::Kind::Doctype : HtmlToken::Kind::Comment);
    if (rest[1] == '/') {
      if (rest.size() >= 3 && is_ascii_alpha(rest[2])) return tag(true);
      if (rest.size() >= 3 && rest[2] == '>') {  // "</>" is dropped
        pos_ += 3;
        return true;
      }
      return bogus(HtmlToken::Kind::Comment);
    }
    if (is_ascii_alpha(rest[1])) return tag(false);
    return text();
  }

  bool comment() {
    const std::size_t body = pos_ + 4;
    std::size_t body_end;
    std::size_t next;
    if (in_.substr(body).starts_with(">")) {  // "<!-->"
      body_end = body;
      next = body + 1;
    } else if (in_.substr(body).starts_with("->")) {  // "<!--->"
      body_end = body;
      next = body + 2;
    } else {
      const std::size_t close = in_.find("-->", body);
      body_end = close == std::string_view::npos ? in_.size() : close;
      next = close == std::string_view::npos ? in_.size() : close + 3;
    }
    token_.kind = HtmlToken::Kind::Comment;
    token_.name.clear();
    token_.attributes.clear();
    token_.raw = in_.substr(body, body_end - body);
    token_.raw_text = false;
    pos_ = next;
    return visit_(token_);
  }

  bool bogus(HtmlToken::Kind kind) {
    const std::size_t body = pos_ + 2;
    const std::size_t close = in_.find('>', body);
    const std::size_t body_end = close == std::string_view::npos ? in_.size() : close;
    token_.kind = kind;
    token_.name.clear();
    token_.attributes.clear();
    token_.raw = in_.substr(body, body_end - body);
    token_.raw_text = false;
    pos_ = close == std::string_view::npos ? in_.size() : close + 1;
    return visit_(token_);
  }

  bool tag(bool end_tag) {
    const std::size_t start = pos_;
    std::size_t i = pos_ + (end_tag ? 2 : 1);
    const std::size_t name_at = i;
    while (i < in_.size() && !is_html_space(in_[i]) && in_[i] != '/' && in_[i] != '>') ++i;
    token_.kind = end_tag ? HtmlToken::Kind::EndTag : HtmlToken::Kind::StartTag;
    token_.name.clear();
    append_lower(token_.name, in_.substr(name_at, i - name_at));
    token_.attributes.clear();
    token_.self_closing = false;
    token_.raw_text = false;

    bool closed = false;
    while (i < in_.size()) {
      const char c = in_[i];
      if (is_html_space(c)) {
        ++i;
      } else if (c == '>') {
        ++i;
        closed = true;
        break;
      } else if (c == '/') {
        ++i;
        if (i < in_.size() && in_[i] == '>') {
          token_.self_closing = true;
          ++i;
          closed = true;
          break;
        }
      } else {
        i = attribute(i);
      }
    }
    pos_ = i;
    // A tag cut off by the end of the input is dropped, as the HTML tokenizer does.
    if (!closed) return true;
    token_.raw = in_.substr(start, i - start);
    if (end_tag) token_.attributes.clear();  // end tags carry none in the DOM
    if (!end_tag) {
      mode_ = text_mode_after(token_.name);
      if (mode_ != TextMode::Normal) raw_tag_ = token_.name;
    }
    return visit_(token_);
  }

  // Reads one attribute at in_[i]; returns the position after it.
  std::size_t attribute(std::size_t i) {
    const std::size_t name_at = i;
    ++i;  // the first character may be '=' (a parse error the DOM keeps as a name)
    while (i < in_.size() && !is_html_space(in_[i]) && in_[i] != '/' && in_[i] != '>' && in_[i] != '=') ++i;
    const std::string_view name = in_.substr(name_at, i - name_at);
    std::size_t j = i;
    while (j < in_.size() && is_html_space(in_[j])) ++j;
    std::string_view raw_value;
    bool has_value = false;
    if (j < in_.size() && in_[j] == '=') {
      ++j;
      while (j < in_.size() && is_html_space(in_[j])) ++j;
      has_value = true;
      if (j < in_.size() && (in_[j] == '"' || in_[j] == '\'')) {
        const char quote = in_[j];
        const std::size_t close = in_.find(quote, j + 1);
        const std::size_t value_end = close == std::string_view::npos ? in_.size() : close;
        raw_value = in_.substr(j + 1, value_end - j - 1);
        j = close == std::string_view::npos ? in_.size() : close + 1;
      } else {
        const std::size_t value_at = j;
        while (j < in_.size() && !is_html_space(in_[j]) && in_[j] != '>') ++j;
        raw_value = in_.substr(value_at, j - value_at);
      }
      i = j;
    }
    std::string lower_name;
    append_lower(lower_name, name);
    if (find_attribute(token_.attributes, lower_name) == nullptr) {
      HtmlAttribute& attribute = token_.attributes.emplace_back();
      attribute.name = std::move(lower_name);
      if (has_value) decode_into(raw_value, true, attribute.value);
    }
    return i;
  }

  std::string_view in_;
  const std::function<bool(const HtmlToken&)>& visit_;
  std::size_t pos_ = 0;
  TextMode mode_ = TextMode::Normal;
  std::string raw_tag_;
  HtmlToken token_;
};

}  // namespace

void scan_html(std::string_view html, const std::function<bool(const HtmlToken&)>& visit) {
  Tokenizer(html, visit).run();
}

}  // namespace stampede::proto::lv
