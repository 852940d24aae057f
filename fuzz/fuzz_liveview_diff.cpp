// Arbitrary lines as a LiveView session: line 1 a join reply's response, each further line a
// diff (as in the seeds taken from the browser transcripts). Nothing may crash; after every
// accepted join or diff to_html works and the component bookkeeping is consistent; a refused
// diff leaves the rendered page exactly as it was (unless the merger says it dropped the state).
// Every 7th line also goes through the reply readers of liveview_events.hpp.
#include <boost/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "proto/liveview_events.hpp"
#include "proto/liveview_rendered.hpp"

namespace lv = stampede::proto::lv;

namespace {

std::vector<std::string_view> lines(std::string_view s) {
  std::vector<std::string_view> out;
  while (!s.empty() && out.size() < 64) {
    const std::size_t nl = s.find('\n');
    out.push_back(s.substr(0, nl));
    if (nl == std::string_view::npos) break;
    s.remove_prefix(nl + 1);
  }
  return out;
}

bool subset(const std::vector<int>& small, const std::vector<int>& big) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

void check_consistent(const lv::Rendered& view) {
  std::string html;
  view.to_html(html);
  std::string marked;
  view.to_html(marked, {.mark_components = true});
  if (marked.size() < html.size()) std::abort();
  const std::vector<int> held = view.components();
  const std::vector<int> shown = view.rendered_components();
  if (!std::is_sorted(held.begin(), held.end()) || !std::is_sorted(shown.begin(), shown.end()) || !subset(shown, held)) {
    std::abort();
  }
  if (!view.still_removed(shown).empty()) std::abort();
  (void)view.text("p");
  (void)view.find("div");
  (void)view.form("form");
}

void read_replies(std::string_view text) {
  boost::json::parse_options options;
  options.max_depth = 64;
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec, {}, options);
  if (ec) return;
  (void)lv::read_event_reply(value);
  (void)lv::read_join_reply("ok", value);
  (void)lv::read_join_reply("error", value);
  (void)lv::read_push("live_redirect", value);
  lv::PreflightReply preflight;
  (void)lv::read_preflight_reply(value, preflight);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string_view> docs = lines(std::string_view(reinterpret_cast<const char*>(data), size));
  if (docs.empty()) return 0;
  lv::Rendered view;
  lv::DiffResult out;
  if (!view.merge_join(docs[0], out).empty()) {
    if (view.joined() || !view.to_html().empty()) std::abort();
    return 0;
  }
  check_consistent(view);
  for (std::size_t i = 1; i < docs.size(); ++i) {
    if (i % 7 == 0) read_replies(docs[i]);
    const std::string before = view.to_html();
    const std::vector<int> shown_before = view.rendered_components();
    const std::string error = view.merge_diff(docs[i], out);
    if (!error.empty()) {
      if (view.joined() && view.to_html() != before) std::abort();
      if (!view.joined()) return 0;
      continue;
    }
    check_consistent(view);
    if (!subset(out.removed_cids, shown_before)) std::abort();
    // The browser's destroy handshake, every other diff.
    if (i % 2 == 0) view.prune_cids(view.still_removed(out.removed_cids));
    check_consistent(view);
  }
  return 0;
}
