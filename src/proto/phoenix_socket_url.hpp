#pragma once
// Where a Phoenix socket's WebSocket transport listens, as phoenix.js's Socket.endPointURL()
// builds it: the socket's endpoint ("/socket", or an absolute URL such as
// "https://example.com/socket") with "/websocket" after it, http(s) turned into ws(s), then the
// params and "vsn" last in the query. The one place the channels and LiveView clients build
// that URL (with Boost.URL, not by slicing strings). Pure.
#include <boost/url/url.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "proto/form.hpp"

namespace stampede::proto::phx {

// The transport's URL without the socket's params: `endpoint` (a path is taken relative to
// `page_url`'s origin, as the browser takes `new Socket("/live")` relative to the page) with
// its trailing slashes dropped and "/websocket" added unless it already ends so; http becomes
// ws and https wss. Query and fragment of an absolute endpoint are kept. nullopt when
// `endpoint` is not a URL and not a path, or is a path and `page_url` is not an absolute URL.
std::optional<boost::urls::url> websocket_endpoint(std::string_view endpoint, std::string_view page_url = {});

// The full URL `channels.connect(url, {params = ..., serializer = ...})` opens: the endpoint,
// then `params` in order, then vsn. An `endpoint` that is not a URL is kept as written, for the
// connection to report what is wrong with it.
std::string socket_url(std::string_view endpoint, const FormFields& params, std::string_view vsn);

}  // namespace stampede::proto::phx
