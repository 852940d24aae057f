#include "proto/liveview_rendered.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <iterator>

#include "proto/liveview_rendered_html.hpp"
#include "proto/liveview_rendered_merge.hpp"
#include "proto/liveview_rendered_tree.hpp"

namespace stampede::proto::lv {

namespace json = boost::json;
using detail::as_integer;
using detail::HtmlSink;
using detail::kSupported;
using detail::kind_name;
using detail::merge_into;
using detail::MergeOutcome;
using detail::parse_json;
using detail::read_events;
using detail::render_node;
using detail::sv;

struct Rendered::State : detail::State {};

// ------------------------------------------------------------------------------------ public

Rendered::Rendered() : state_(std::make_unique<State>()) {}
Rendered::~Rendered() = default;
Rendered::Rendered(Rendered&&) noexcept = default;
Rendered& Rendered::operator=(Rendered&&) noexcept = default;

std::string Rendered::merge_join(const json::value& response, DiffResult& out) {
  out = DiffResult{};
  const json::object* fields = response.if_object();
  const json::value* rendered = fields ? fields->if_contains("rendered") : nullptr;
  if (rendered == nullptr || !rendered->is_object()) {
    return "LiveView join reply has no \"rendered\" object" + std::string(kSupported);
  }
  auto fresh = std::make_unique<State>();
  fresh->version = Version{0, 20, 0};
  if (const json::value* reported = fields->if_contains("liveview_version"); reported && reported->is_string()) {
    const std::string text(sv(reported->get_string()));
    const std::optional<Version> version = parse_version(text);
    if (!version) return "LiveView join reply has an unreadable liveview_version \"" + text + "\"" + std::string(kSupported);
    if (*version < Version{0, 20, 0}) return "LiveView " + text + " is not supported" + std::string(kSupported);
    fresh->version = *version;
    fresh->version_reported = true;
  }
  // The join's top-level "r" is the root flag, not a reply; events and title apply as usual.
  // ("r", "e", "t" are not dynamic positions, so the tree walkers pass over them.)
  const json::object& diff = rendered->get_object();
  const json::value* events = diff.if_contains("e");
  if (events != nullptr) {
    const std::string problem = read_events(*events, out.events);
    if (!problem.empty()) {
      out = DiffResult{};
      return problem;
    }
  }
  if (const json::value* title = diff.if_contains("t"); title && title->is_string()) out.title = std::string(sv(title->get_string()));
  if (diff.contains("p") && diff.if_contains("s") && as_integer(diff.at("s")) && !fresh->version_reported) {
    fresh->version = Version{1, 1, 0};  // a top-level template table: 1.1 or later
  }
  MergeOutcome outcome = merge_into(*fresh, diff);
  if (!outcome.error.empty()) {
    out = DiffResult{};
    return outcome.error;
  }
  out.streams = std::move(outcome.streams);
  fresh->joined = true;
  if (out.title) fresh->title = *out.title;
  state_ = std::move(fresh);
  return {};
}

std::string Rendered::merge_join(std::string_view response_json, DiffResult& out) {
  std::string error;
  const json::value response = parse_json(response_json, error);
  if (!error.empty()) {
    out = DiffResult{};
    return error;
  }
  return merge_join(response, out);
}

std::string Rendered::merge_diff(const json::value& diff_value, DiffResult& out) {
  out = DiffResult{};
  if (!joined()) return "LiveView diff before a successful join";
  const json::object* fields = diff_value.if_object();
  if (fields == nullptr) return std::string("LiveView diff refused: a diff must be an object, not ") + kind_name(diff_value) + std::string(kSupported);
  DiffResult result;
  const json::object& diff = *fields;
  if (const json::value* reply = diff.if_contains("r")) result.reply_json = json::serialize(*reply);
  if (const json::value* events = diff.if_contains("e")) {
    const std::string problem = read_events(*events, result.events);
    if (!problem.empty()) return problem;
  }
  if (const json::value* title = diff.if_contains("t"); title && title->is_string()) result.title = std::string(sv(title->get_string()));
  const std::vector<int> before = state_->rendered;
  MergeOutcome outcome = merge_into(*state_, diff);
  if (!outcome.error.empty()) {
    if (outcome.state_damaged) state_ = std::make_unique<State>();  // see merge_diff in the header
    return outcome.error;
  }
  std::set_difference(before.begin(), before.end(), state_->rendered.begin(), state_->rendered.end(),
                      std::back_inserter(result.removed_cids));
  if (result.title) state_->title = *result.title;
  result.streams = std::move(outcome.streams);
  out = std::move(result);
  return {};
}

std::string Rendered::merge_diff(std::string_view diff_json, DiffResult& out) {
  std::string error;
  const json::value diff = parse_json(diff_json, error);
  if (!error.empty()) {
    out = DiffResult{};
    return error;
  }
  return merge_diff(diff, out);
}

bool Rendered::joined() const noexcept { return state_ && state_->joined; }

Version Rendered::version() const noexcept { return state_ ? state_->version : Version{}; }

const std::string& Rendered::title() const noexcept {
  static const std::string kNone;
  return state_ ? state_->title : kNone;
}

void Rendered::to_html(std::string& out, const RenderOptions& options) const {
  out.clear();
  if (!joined() || !state_->root) return;
  HtmlSink sink(out, state_->components, options.mark_components);
  render_node(*state_->root, sink);
}

std::string Rendered::to_html(const RenderOptions& options) const {
  std::string out;
  to_html(out, options);
  return out;
}

std::vector<int> Rendered::components() const {
  std::vector<int> cids;
  if (!state_) return cids;
  for (const auto& [cid, component] : state_->components) cids.push_back(cid);
  return cids;
}

std::vector<int> Rendered::rendered_components() const { return state_ ? state_->rendered : std::vector<int>{}; }

std::vector<int> Rendered::still_removed(std::span<const int> cids) const {
  std::vector<int> out;
  for (const int cid : cids) {
    if (!state_ || !std::binary_search(state_->rendered.begin(), state_->rendered.end(), cid)) out.push_back(cid);
  }
  return out;
}

void Rendered::prune_cids(std::span<const int> cids) {
  if (!state_) return;
  for (const int cid : cids) {
    if (!std::binary_search(state_->rendered.begin(), state_->rendered.end(), cid)) state_->components.erase(cid);
  }
}

std::optional<std::string> Rendered::text(std::string_view selector) const {
  return element_text(to_html(RenderOptions{.mark_components = true}), selector);
}

std::optional<Element> Rendered::find(std::string_view selector) const {
  return find_element(to_html(RenderOptions{.mark_components = true}), selector);
}

std::optional<Form> Rendered::form(std::string_view selector) const {
  return find_form(to_html(RenderOptions{.mark_components = true}), selector);
}

}  // namespace stampede::proto::lv
