#include "clients/longpoll_cycle.hpp"

#include <algorithm>
#include <variant>

#include "proto/base64.hpp"
#include "proto/phoenix_longpoll.hpp"

namespace stampede::clients {

namespace longpoll = proto::phx::longpoll;

namespace {

// What a body that is not a LongPoll answer looks like in a message: its start, printable.
std::string excerpt(std::string_view body) {
  constexpr std::size_t kMax = 60;
  std::string out;
  for (const char c : body.substr(0, kMax)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (body.size() > kMax) out += "...";
  return out;
}

}  // namespace

std::string LongPollCycle::request_url() const {
  return longpoll::request_url(endpoint_, token_ ? std::optional<std::string_view>(*token_) : std::nullopt);
}

LongPollCycle::Close LongPollCycle::end(std::uint16_t code, std::string reason, std::string error_reason,
                                        std::string message, int status) {
  close();
  return Close{code, std::move(reason), std::move(error_reason), std::move(message), status};
}

LongPollCycle::PollResult LongPollCycle::on_poll(int http_status, std::string_view body, std::string_view failure) {
  PollResult result;
  if (state_ == State::Closed) return result;
  if (!failure.empty()) {
    // phoenix.js: the request's own timeout closes 1005 "timeout"; a network error gives a
    // null response, which it treats as status 0: 1011.
    if (failure == "timeout") {
      result.close = end(1005, "timeout", "timeout", "the poll got no answer in time", 0);
    } else {
      result.close = end(1011, "internal server error", std::string(failure),
                         "the poll failed (" + std::string(failure) + ")", 0);
    }
    return result;
  }
  auto decoded = longpoll::decode_response(body);
  if (auto* error = std::get_if<std::string>(&decoded)) {
    // phoenix.js parses what it cannot read as null: status 0, closed 1011.
    result.close = end(1011, "internal server error", "invalid_response",
                       "the poll's answer (HTTP " + std::to_string(http_status) + ") is not a LongPoll response: " +
                           *error + " (body: " + excerpt(body) + ")",
                       http_status);
    return result;
  }
  longpoll::Response& response = std::get<longpoll::Response>(decoded);
  switch (longpoll::poll_outcome(response.status, token_.has_value())) {
    case longpoll::PollOutcome::SessionGone:
      result.close = end(3410, "session_gone", "session_gone", "the server's LongPoll session is gone (status 410)", 410);
      return result;
    case longpoll::PollOutcome::Opened:
      if (!response.token) {
        result.close = end(1011, "internal server error", "invalid_response",
                           "the server opened a LongPoll session (status 410) without a token", 410);
        return result;
      }
      token_ = std::move(response.token);
      state_ = State::Open;
      result.opened = true;
      return result;
    case longpoll::PollOutcome::Messages:
      token_ = std::move(response.token);
      result.messages = std::move(response.messages);
      return result;
    case longpoll::PollOutcome::NoMessages:
      token_ = std::move(response.token);
      return result;
    case longpoll::PollOutcome::Forbidden:
      result.close = end(1008, "forbidden", "forbidden", "the server refused the socket (status 403)", 403);
      return result;
    case longpoll::PollOutcome::ServerError:
      result.close = end(1011, "internal server error", "server_error",
                         "the server failed (status " + std::to_string(response.status) + ")", response.status);
      return result;
    case longpoll::PollOutcome::Unhandled:
      break;
  }
  result.close = end(1011, "unhandled poll status", "unhandled_status",
                     "unhandled poll status " + std::to_string(response.status), response.status);
  return result;
}

bool LongPollCycle::queue(std::string_view frame, bool binary) {
  if (state_ == State::Closed) return false;
  std::string& text = outgoing_.emplace_back();
  if (binary) {
    proto::append_base64(text, frame);
  } else {
    text.assign(frame);
  }
  if (publishing_ || flush_scheduled_) return false;
  flush_scheduled_ = true;
  return true;
}

std::optional<std::string> LongPollCycle::take_batch() {
  flush_scheduled_ = false;
  if (state_ != State::Open || publishing_ || outgoing_.empty()) return std::nullopt;
  const std::size_t n = std::min(outgoing_.size(), longpoll::kMaxBatchMessages);
  std::string body;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) body += '\n';
    body += outgoing_[i];
  }
  outgoing_.erase(outgoing_.begin(), outgoing_.begin() + static_cast<std::ptrdiff_t>(n));
  if (outgoing_.empty()) std::vector<std::string>().swap(outgoing_);  // an idle socket owns no buffer
  publishing_ = true;
  return body;
}

std::optional<LongPollCycle::Close> LongPollCycle::on_publish(int http_status, std::string_view body,
                                                              std::string_view failure) {
  if (state_ == State::Closed) return std::nullopt;
  publishing_ = false;
  if (!failure.empty()) {
    if (failure == "timeout") return end(1005, "timeout", "timeout", "a POST got no answer in time", 0);
    return end(1011, "internal server error", std::string(failure), "a POST failed (" + std::string(failure) + ")", 0);
  }
  auto decoded = longpoll::decode_response(body);
  if (auto* error = std::get_if<std::string>(&decoded)) {
    return end(1011, "internal server error", "invalid_response",
               "a POST's answer (HTTP " + std::to_string(http_status) + ") is not a LongPoll response: " + *error +
                   " (body: " + excerpt(body) + ")",
               http_status);
  }
  const int status = std::get<longpoll::Response>(decoded).status;
  if (status == 200) return std::nullopt;
  if (status == 410) {
    return end(1011, "internal server error", "session_gone",
               "the server's LongPoll session is gone (a POST got status 410)", 410);
  }
  return end(1011, "internal server error", "publish_failed",
             "the server did not take a POST (status " + std::to_string(status) + ")", status);
}

void LongPollCycle::close() {
  state_ = State::Closed;
  std::vector<std::string>().swap(outgoing_);
  publishing_ = false;
  flush_scheduled_ = false;
}

void LongPollCycle::reopen() {
  close();
  token_.reset();
  state_ = State::Connecting;
}

}  // namespace stampede::clients
