// /upload (DemoWeb.UploadLive): one live_file_input (allow_upload :avatar, one entry of at
// most 5,000,000 bytes), the entries with their progress, and the list of what "save"
// consumed: "Uploaded <name>: <size> bytes". The protocol side (preflight tokens, the `lvu:`
// channel and its chunks) is in liveview_uploads.hpp and the channel session; this file is
// what the view renders at each step, as the recorded upload flow shows it.
#include <string>
#include <vector>

#include "target/liveview_pages.hpp"
#include "target/liveview_uploads.hpp"

namespace stampede::target {
namespace {

constexpr std::string_view kUploadParts[] = {
    "<h1>Upload</h1>\n<form id=\"upload-form\" phx-submit=\"save\" phx-change=\"validate\">\n  ", "\n  ", "\n  ",
    "\n  <button type=\"submit\">Upload</button>\n</form>\n<ul id=\"uploaded\">\n  ", "\n</ul>"};
constexpr Template kUpload{kUploadParts, false};
// <.live_file_input>: 0.20 wrote data-phx-update="ignore" as a static and had one dynamic less.
constexpr std::string_view kInput1Parts[] = {
    "<input", " type=\"file\"", "", " data-phx-hook=\"Phoenix.LiveFileUpload\"", "", "", "", "", "", "", ">"};
constexpr Template kInput1{kInput1Parts, true};
constexpr std::string_view kInput020Parts[] = {
    "<input", " type=\"file\"",
    "",       " data-phx-hook=\"Phoenix.LiveFileUpload\" data-phx-update=\"ignore\"",
    "",       "",
    "",       "",
    "",       ">"};
constexpr Template kInput020{kInput020Parts, true};
constexpr std::string_view kEntryParts[] = {"<div class=\"entry\">\n    ", " (", " bytes) ", "%\n    ", "\n  </div>"};
constexpr Template kEntry{kEntryParts, false};
constexpr std::string_view kUploadedParts[] = {"<li>Uploaded ", ": ", " bytes</li>"};
constexpr Template kUploaded{kUploadedParts, false};

// A view that lives for hours keeps only the last uploads it lists.
constexpr std::size_t kMaxListed = 100;

std::string attribute(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + escape_html(value) + "\"";
}

std::string entry_errors(const LiveUploads::Entry& entry) {
  return entry.error.empty() ? std::string() : "<p class=\"error\">" + escape_html(entry.error) + "</p>";
}

class UploadLive final : public LiveView {
 public:
  UploadLive(LiveViewDialect dialect, std::string ref)
      : LiveView(LiveViewPage::Upload), uploads_(std::move(ref)), dialect_(dialect) {}

  const Template& statics(LiveViewDialect) const override { return kUpload; }

  void render(RenderOutput& out, Changed changed) const override {
    if (changed.any(kInputRefs | kInputTouched)) render_input(out, changed);
    if (changed.any(kEntries | kEntryProgress | kEntryErrors)) render_entries(out, changed);
    if (changed.any(kConfigErrors)) out.text(2, "");
    if (changed.any(kListed)) render_listed(out, changed.full);
  }

  ViewOutcome handle_event(const LiveEvent& event) override {
    if (event.cid || event.type != "form") return ViewOutcome::crash();
    if (event.name == "validate") {
      const auto* entries = event.uploads != nullptr ? event.uploads->if_contains(uploads_.ref()) : nullptr;
      if (entries == nullptr) return ViewOutcome::render(Changed{});
      if (!entries->is_array() || !uploads_.put_entries(entries->as_array())) return ViewOutcome::crash();
      note_entries_rendered();
      return ViewOutcome::render(Changed::only(kInputRefs | kEntries | kConfigErrors));
    }
    if (event.name == "save") {
      std::vector<LiveUploads::Entry> consumed;
      if (!uploads_.consume(consumed)) return ViewOutcome::crash();  // an entry still uploading
      if (consumed.empty()) return ViewOutcome::render(Changed{});
      listed_statics_needed_ = listed_.empty();
      first_new_listed_ = listed_.size();
      for (auto& entry : consumed) listed_.push_back({std::move(entry.name), entry.received});
      if (listed_.size() > kMaxListed) {
        listed_.erase(listed_.begin(), listed_.end() - static_cast<std::ptrdiff_t>(kMaxListed));
        first_new_listed_ = 0;  // every position shows another upload now
      }
      note_entries_rendered();
      ViewOutcome outcome = ViewOutcome::render(Changed::only(kListed));
      outcome.consumed_uploads = true;
      outcome.then_push = Changed::only(kInputRefs | kEntries | kConfigErrors);
      return outcome;
    }
    return ViewOutcome::crash();
  }

  LiveUploads* uploads() override { return &uploads_; }

  Changed upload_changed(UploadStep step) override {
    switch (step) {
      case UploadStep::Preflighted: return Changed::only(kInputRefs | kEntryErrors | kConfigErrors);
      case UploadStep::ChannelJoined: return Changed::only(kInputTouched | kEntryErrors | kConfigErrors);
      case UploadStep::Progress: return Changed::only(kInputRefs | kEntryProgress | kConfigErrors);
    }
    return {};
  }

 private:
  // What a re-render covers, as LiveView's change tracking drew the line in the recordings.
  static constexpr std::uint32_t kInputRefs = 1;      // the input's accept, *-refs and last attributes
  static constexpr std::uint32_t kInputTouched = 2;   // the input's accept and last attributes only
  static constexpr std::uint32_t kEntries = 4;        // the entry list, item by item in full
  static constexpr std::uint32_t kEntryProgress = 8;  // each entry's progress and errors
  static constexpr std::uint32_t kEntryErrors = 16;   // each entry's errors
  static constexpr std::uint32_t kConfigErrors = 32;  // the config's errors
  static constexpr std::uint32_t kListed = 64;        // the consumed uploads

  struct Listed {
    std::string name;
    std::uint64_t size = 0;
  };

  // The entry list is about to be rendered whole: its statics go with it unless they went
  // already.
  void note_entries_rendered() {
    entry_statics_needed_ = !entry_statics_sent_ && !uploads_.entries().empty();
    entry_statics_sent_ = entry_statics_sent_ || entry_statics_needed_;
  }

  void render_input(RenderOutput& out, Changed changed) const {
    const bool full = changed.full;
    const int last = dialect_ == LiveViewDialect::V0_20 ? 8 : 9;
    out.begin(0, full ? (dialect_ == LiveViewDialect::V0_20 ? &kInput020 : &kInput1) : nullptr);
    if (full) out.text(0, attribute("id", uploads_.ref()));
    if (full) out.text(1, " name=\"avatar\"");
    out.text(2, "");
    if (full) out.text(3, attribute("data-phx-upload-ref", uploads_.ref()));
    if (changed.any(kInputRefs)) {
      out.text(4, attribute("data-phx-active-refs", uploads_.active_refs()));
      out.text(5, attribute("data-phx-done-refs", uploads_.done_refs()));
      out.text(6, attribute("data-phx-preflighted-refs", uploads_.preflighted_refs()));
    }
    for (int slot = 7; full && slot < last; ++slot) out.text(slot, "");
    out.text(last, "");
    out.end();
  }

  void render_entries(RenderOutput& out, Changed changed) const {
    const auto& entries = uploads_.entries();
    if (changed.full) {
      // Mounted with no entries: an empty comprehension prints nothing.
      out.text(1, "");
      return;
    }
    const bool whole = changed.any(kEntries);
    out.begin_list(1, whole && entry_statics_needed_ ? &kEntry : nullptr);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& entry = entries[i];
      out.begin_item(static_cast<int>(i));
      out.item_text(0, escape_html(entry.name), whole);
      out.item_text(1, std::to_string(entry.size), whole);
      out.item_text(2, std::to_string(entry.progress), whole || changed.any(kEntryProgress));
      out.item_text(3, entry_errors(entry), true);
      out.end_item();
    }
    out.end_list(static_cast<int>(entries.size()));
  }

  void render_listed(RenderOutput& out, bool full) const {
    if (listed_.empty()) {
      out.text(3, "");
      return;
    }
    out.begin_list(3, full || listed_statics_needed_ ? &kUploaded : nullptr);
    for (std::size_t i = 0; i < listed_.size(); ++i) {
      const bool fresh = full || i >= first_new_listed_;
      out.begin_item(static_cast<int>(i));
      out.item_text(0, escape_html(listed_[i].name), fresh);
      out.item_text(1, std::to_string(listed_[i].size), fresh);
      out.end_item();
    }
    out.end_list(static_cast<int>(listed_.size()));
  }

  LiveUploads uploads_;
  std::vector<Listed> listed_;
  std::size_t first_new_listed_ = 0;  // the items the last save added start here
  LiveViewDialect dialect_;
  bool entry_statics_sent_ = false;
  bool entry_statics_needed_ = false;
  bool listed_statics_needed_ = false;
};

}  // namespace

std::unique_ptr<LiveView> mount_upload(const MountContext& context) {
  // A new upload ref on every mount: the dead render's and the connected view's differ.
  return std::make_unique<UploadLive>(context.scope.dialect, new_phx_id(context.random));
}

}  // namespace stampede::target
