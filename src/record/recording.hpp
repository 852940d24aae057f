#pragma once
// What was recorded, whatever recorded it: a HAR file (har_reader.hpp) or the recording proxy
// (recording_proxy.hpp). HTTP exchanges in the order they started, each WebSocket with its
// frames both ways. Times are milliseconds since the recording started, so that think times
// and "what came after what" read the same from either source.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::record {

struct Header {
  std::string name;   // as recorded (HAR keeps the browser's case; compare case-insensitively)
  std::string value;
};

// One WebSocket message (fragments already joined; control frames are not kept).
struct WsFrame {
  double at_ms = 0;
  bool sent = false;    // browser -> server
  bool binary = false;  // opcode 2: `data` holds the raw bytes
  std::string data;
};

struct Exchange {
  double started_ms = 0;
  double ended_ms = 0;  // the response's last byte (a WebSocket: its last frame)
  std::string method;
  std::string url;      // absolute: scheme://host[:port]/path?query
  std::vector<Header> request_headers;
  std::string request_body;
  std::string request_mime;
  int status = 0;       // 0: no response (refused, cancelled, blocked)
  std::vector<Header> response_headers;
  std::string response_mime;
  // Kept for text bodies (HTML, JSON, plain text) up to a size limit; the reader drops the
  // rest (scripts, images...) as it streams, which is what bounds its memory.
  std::string response_body;
  bool response_body_kept = false;
  std::string resource_type;  // Chromium's _resourceType ("document", "xhr", "websocket"...) when known
  bool websocket = false;     // an upgrade that was answered 101 (or a HAR entry with frames)
  std::vector<WsFrame> frames;

  // The first header of that name (case-insensitive), or nullptr.
  const std::string* request_header(std::string_view name) const;
  const std::string* response_header(std::string_view name) const;
};

struct Recording {
  std::string source;        // "HAR 1.2 from Chromium 156" or "stampede record"
  std::string started_at;    // ISO 8601 of the first exchange ("" when unknown)
  std::vector<Exchange> exchanges;  // in start order
  std::uint64_t dropped_bodies = 0;  // response bodies not kept (not text, or too large)
  std::uint64_t cut_frames = 0;      // WebSocket frames too large to keep, or undecodable
};

}  // namespace stampede::record
