// A WebSocket the converter does not understand (not Phoenix): its messages are kept, never
// dropped silently, as a plain stampede.websocket replay in comments, for a person to adapt.
#include <cstdio>

#include "record/socket_steps.hpp"

namespace stampede::record {

std::string frame_excerpt(const WsFrame& frame, std::size_t limit) {
  std::string text;
  if (frame.binary) {
    text = "<" + std::to_string(frame.data.size()) + " bytes:";
    for (std::size_t i = 0; i < frame.data.size() && i < 16; ++i) {
      char hex[4];
      std::snprintf(hex, sizeof hex, " %02x", static_cast<unsigned char>(frame.data[i]));
      text += hex;
    }
    text += frame.data.size() > 16 ? " ...>" : ">";
    return text;
  }
  for (const char c : frame.data) {
    if (text.size() >= limit) {
      text += "...";
      break;
    }
    text += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return text;
}

void websocket_fallback_steps(const Exchange& socket, const UrlParts& url, Summary& summary, std::vector<Step>& out) {
  Step step;
  step.kind = Step::Kind::WebSocketFallback;
  step.at_ms = socket.started_ms;
  step.end_ms = socket.ended_ms;
  step.url = url.path_and_query();
  std::size_t sent = 0, received = 0;
  for (const auto& frame : socket.frames) (frame.sent ? sent : received) += 1;
  summary.not_understood += socket.frames.size();
  step.lines.push_back("A WebSocket that is not Phoenix's (" + std::to_string(sent) + " messages sent, " +
                       std::to_string(received) + " received), kept as a plain replay to adapt:");
  step.lines.push_back("local ws = websocket.connect((BASE:gsub(\"^http\", \"ws\")) .. \"" + url.path_and_query() + "\")");
  for (const auto& frame : socket.frames) {
    if (!frame.sent) {
      step.lines.push_back("ws:await()  -- received: " + frame_excerpt(frame, 80));
      continue;
    }
    if (frame.binary) {
      step.lines.push_back("ws:send_binary(...)  -- " + frame_excerpt(frame));
    } else {
      std::string quoted;
      for (const char c : frame_excerpt(frame, 400)) {
        if (c == '"' || c == '\\') quoted += '\\';
        quoted += c;
      }
      step.lines.push_back("ws:send(\"" + quoted + "\")");
    }
  }
  out.push_back(std::move(step));
}

}  // namespace stampede::record
