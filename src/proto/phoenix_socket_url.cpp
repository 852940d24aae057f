#include "proto/phoenix_socket_url.hpp"

#include <boost/url/parse.hpp>

namespace stampede::proto::phx {
namespace {

namespace urls = boost::urls;

constexpr std::string_view kTransportSegment = "/websocket";

void to_websocket_scheme(urls::url& url) {
  if (url.scheme_id() == urls::scheme::http) url.set_scheme_id(urls::scheme::ws);
  if (url.scheme_id() == urls::scheme::https) url.set_scheme_id(urls::scheme::wss);
}

std::string transport_path(std::string_view path) {
  std::string out(path);
  while (!out.empty() && out.back() == '/') out.pop_back();
  if (!out.ends_with(kTransportSegment)) out += kTransportSegment;
  return out;
}

}  // namespace

std::optional<urls::url> websocket_endpoint(std::string_view endpoint, std::string_view page_url) {
  urls::url url;
  std::string path;
  if (const auto absolute = urls::parse_uri(endpoint)) {
    url = *absolute;
    path = url.encoded_path();
  } else {
    const std::string absolute_path = endpoint.starts_with('/') ? std::string(endpoint) : "/" + std::string(endpoint);
    const auto origin_form = urls::parse_origin_form(absolute_path);
    const auto page = urls::parse_uri(page_url);
    if (!origin_form || !page || !page->has_authority()) return std::nullopt;
    url.set_scheme(page->scheme());
    url.set_encoded_authority(page->encoded_authority());
    if (origin_form->has_query()) url.set_encoded_query(origin_form->encoded_query());
    path = origin_form->encoded_path();
  }
  to_websocket_scheme(url);
  // Set once: Boost.URL 1.81 writes a path of "/" as "/./".
  url.set_encoded_path(transport_path(path));
  return url;
}

std::string socket_url(std::string_view endpoint, const FormFields& params, std::string_view vsn) {
  const auto url = websocket_endpoint(endpoint);
  FormFields query = params;
  query.emplace_back("vsn", std::string(vsn));
  return append_query(url ? std::string_view(url->buffer()) : endpoint, query);
}

}  // namespace stampede::proto::phx
