#pragma once
// A recorded WebSocket's frames turned into scenario steps, one file per protocol:
// liveview_steps.cpp (a LiveView socket), channels_steps.cpp (a Phoenix Channels socket) and
// websocket_fallback.cpp (anything else, kept as a commented plain-WebSocket replay).
#include <string>
#include <vector>

#include "record/recording.hpp"
#include "record/recording_scope.hpp"
#include "record/scenario_model.hpp"

namespace stampede::record {

enum class SocketKind { LiveView, Channels, Plain };

// What the frames say the socket is: a LiveView's (joins of lv: topics), a Phoenix socket
// (vsn in the URL, or frames Phoenix's serializers read), or a plain WebSocket.
SocketKind socket_kind(const Exchange& socket, const UrlParts& url);

// LiveConnect steps carry the join's absolute URL in `url` (the builder then finds the page
// load that led to it). Counts go to `summary`.
void liveview_socket_steps(const Exchange& socket, const UrlParts& url, Summary& summary, std::vector<Step>& out);
void channels_socket_steps(const Exchange& socket, const UrlParts& url, const std::string& var, Summary& summary,
                           std::vector<Step>& out);
void websocket_fallback_steps(const Exchange& socket, const UrlParts& url, Summary& summary, std::vector<Step>& out);

// A frame for a comment: text as it is, binary as "<N bytes>" with its first bytes in hex,
// either cut to `limit` characters.
std::string frame_excerpt(const WsFrame& frame, std::size_t limit = 160);

}  // namespace stampede::record
