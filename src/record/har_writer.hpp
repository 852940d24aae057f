#pragma once
// A recording as a HAR 1.2 file (`stampede record --har FILE`), written the way Chromium's
// DevTools writes one ("Save all as HAR with content"): one entry per exchange, the request
// and response heads, text bodies, and for each WebSocket its messages as
// `_webSocketMessages` ({type: send|receive, time: epoch seconds, opcode: 1|2, data}).
// har_reader.hpp reads it back to the same Recording, so `stampede convert` can turn a
// proxy's recording into a scenario again with other options.
//
// JSON strings must be UTF-8: a body or binary frame that is not is written base64 (HAR's
// content.encoding, binary opcode 2); a request body that is not is left out (HAR has no
// encoding for postData), and header values and URLs that are not are read as Latin-1.
#include <string>
#include <string_view>

#include "record/recording.hpp"

namespace stampede::record {

// `creator_version`: the version Stampede writes in log.creator.
std::string write_har(const Recording& recording, std::string_view creator_version);

// "2025-03-01T10:00:00.123Z" for milliseconds since the Unix epoch (UTC, millisecond precision).
std::string format_iso8601_ms(double epoch_ms);

}  // namespace stampede::record
