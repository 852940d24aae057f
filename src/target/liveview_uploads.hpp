#pragma once
// An upload config of a LiveView and its entries (../shared/phoenix-protocol.md §6): what
// allow_upload(socket, :avatar, max_entries: 1, max_file_size: 5_000_000) keeps on the
// server while a file goes through phx-change ("uploads"), the allow_upload preflight, the
// `lvu:` channel's binary chunks, the progress events and consume_uploaded_entries.
//
// Only counts travel to memory: the bytes of a chunk are acknowledged and dropped, since a
// load test uploads files to measure the protocol, not to store them.
#include <boost/json/array.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.hpp"
#include "target/liveview_dialect.hpp"

namespace stampede::target {

class LiveUploads {
 public:
  static constexpr std::size_t kMaxEntries = 1;
  static constexpr std::uint64_t kMaxFileSize = 5'000'000;  // the recorded app's limit
  static constexpr std::uint64_t kChunkSize = 64'000;
  static constexpr Nanos kChunkTimeout = 10 * kSecond;

  struct Entry {
    std::string ref;             // chosen by the client: "0", "1", ...
    std::string name;            // client_name
    std::uint64_t size = 0;      // declared by the client: the channel accepts exactly this many bytes
    std::uint64_t received = 0;  // bytes the upload channel took
    int progress = 0;            // what the client last reported, 0-100
    bool preflighted = false;    // allow_upload gave it a token
    bool channel_joined = false;
    std::string error;  // "too_large" when the declared size is over the limit
  };

  explicit LiveUploads(std::string ref) : ref_(std::move(ref)) {}

  const std::string& ref() const { return ref_; }
  const std::vector<Entry>& entries() const { return entries_; }
  Entry* find(std::string_view entry_ref);

  // The client's entries for this input (phx-change "uploads", or allow_upload "entries"):
  // new ones are registered; with a single-entry config a new file replaces one that has not
  // started uploading, as LiveView does. Returns false when `entries` is malformed.
  bool put_entries(const boost::json::array& entries);

  // allow_upload's preflight. When an entry is invalid: false, and `errors_json` lists them
  // ([["0","too_large"]]); otherwise every entry is marked preflighted and `entries_json`
  // maps each entry ref to the token `sign` makes for it ({"0":"SFMy..."}).
  bool preflight(const std::function<std::string(const Entry&)>& sign, std::string& entries_json,
                 std::string& errors_json);

  // consume_uploaded_entries: false when some entry has not finished (LiveView raises, which
  // crashes the view); otherwise the entries, removed from the config.
  bool consume(std::vector<Entry>& consumed);

  // "0,1": data-phx-active-refs, -done-refs, -preflighted-refs.
  std::string active_refs() const;
  std::string done_refs() const;
  std::string preflighted_refs() const;

 private:
  std::string ref_;
  std::vector<Entry> entries_;
};

// The config object of the allow_upload reply (chunk_timeout only from LiveView 1.0).
std::string upload_config_json(LiveViewDialect dialect);

}  // namespace stampede::target
