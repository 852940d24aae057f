#include "record/http_steps.hpp"

#include <boost/json/parse.hpp>

#include <algorithm>
#include <array>
#include <cctype>

#include "proto/ascii.hpp"
#include "proto/form.hpp"
#include "record/session_values.hpp"

namespace stampede::record {
namespace {

namespace json = boost::json;

using proto::ascii::lowercase;

// Headers a browser adds by itself, or that the client sets (cookies from the VU's jar,
// content-type from the body, host, lengths, caching).
bool is_browser_header(std::string_view lower_name) {
  static constexpr std::array<std::string_view, 22> kNames{
      "host",           "connection",      "content-length",  "user-agent",      "accept-encoding",
      "accept-language", "cookie",         "referer",         "origin",          "cache-control",
      "pragma",         "upgrade-insecure-requests", "dnt", "priority",        "if-none-match",
      "if-modified-since", "te",           "content-type",    "accept",          "purpose",
      "x-requested-with", "keep-alive"};
  if (lower_name.rfind("sec-", 0) == 0) return true;
  return std::find(kNames.begin(), kNames.end(), lower_name) != kNames.end();
}

}  // namespace

Step http_step(const Exchange& request, const Exchange& final_response, const UrlParts& url, Summary& summary) {
  Step step;
  step.kind = Step::Kind::Http;
  step.method = request.method;
  step.url = url.path_and_query();
  step.at_ms = request.started_ms;
  step.end_ms = std::max(request.ended_ms, final_response.ended_ms);
  step.expect_status = final_response.status;
  step.response_body = final_response.response_body;
  step.response_mime = final_response.response_mime;
  for (const auto& header : request.request_headers) {
    const auto name = lowercase(header.name);
    if (name == "x-csrf-token") {
      step.headers.emplace_back(name, runtime_ref("csrf"));  // filled by correlate()
      continue;
    }
    if (name == "authorization" || is_session_name(name) || is_session_value(header.value)) {
      step.dropped.push_back(name);
      ++summary.hidden_tokens;
      continue;
    }
    if (is_browser_header(name)) continue;
    step.headers.emplace_back(name, header.value);
  }
  // The accept header matters when the app answers JSON or HTML by it.
  if (const auto* accept = request.request_header("accept");
      accept != nullptr && accept->find("json") != std::string::npos && accept->find("html") == std::string::npos)
    step.headers.emplace_back("accept", *accept);
  if (!request.request_body.empty()) {
    const auto mime = lowercase(request.request_mime.empty() && request.request_header("content-type") != nullptr
                                ? *request.request_header("content-type")
                                : request.request_mime);
    json::error_code ec;
    if (mime.find("json") != std::string::npos) {
      auto value = json::parse(request.request_body, ec);
      if (!ec && (value.is_object() || value.is_array())) {
        step.body = Step::Body::Json;
        step.value = std::move(value);
      }
    } else if (mime.find("x-www-form-urlencoded") != std::string::npos) {
      step.body = Step::Body::Form;
      step.fields = proto::decode_form(request.request_body);
    }
    if (step.body == Step::Body::None) {
      step.body = Step::Body::Raw;
      step.raw_body = request.request_body;
      step.content_type = mime;
    }
  }
  const bool page = final_response.response_mime.find("html") != std::string::npos;
  (page ? summary.pages : summary.requests) += 1;
  return step;
}

}  // namespace stampede::record
