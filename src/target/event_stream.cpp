#include "target/event_stream.hpp"

#include <boost/asio/write.hpp>
#include <boost/url/params_view.hpp>
#include <charconv>
#include <cmath>

#include "target/worker.hpp"

namespace stampede::target {

namespace {

bool parse_u64(std::string_view text, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool parse_rate(std::string_view text, double& out) {
  const std::string copy(text);
  char* end = nullptr;
  out = std::strtod(copy.c_str(), &end);
  return !copy.empty() && end == copy.c_str() + copy.size() && std::isfinite(out);
}

bool valid_type(std::string_view type) {
  for (const char c : type) {
    if (c == '\r' || c == '\n') return false;
  }
  return true;
}

}  // namespace

EventStreamAnswer plan_event_stream(const proto::HttpRequest& request, std::string_view query) {
  EventStreamAnswer answer;
  EventStreamPlan plan;
  double rate = 1;
  try {
    // An absent query is a null view, which Boost.URL 1.81 would read as a C string.
    if (!query.empty()) {
      const boost::urls::params_view view(query, boost::urls::encoding_opts(true));
      for (const auto& param : view) {
        if (param.key == "rate") {
          if (!parse_rate(param.value, rate) || rate < 0.01 || rate > 1000) {
            answer.error = "rate must be a number of events per second from 0.01 to 1000\n";
            return answer;
          }
        } else if (param.key == "count") {
          if (!parse_u64(param.value, plan.count)) {
            answer.error = "count must be a whole number of events (0: endless)\n";
            return answer;
          }
        } else if (param.key == "retry") {
          std::uint64_t ms = 0;
          if (!parse_u64(param.value, ms)) {
            answer.error = "retry must be a whole number of milliseconds\n";
            return answer;
          }
          plan.retry_ms = ms;
        } else if (param.key == "event") {
          if (!valid_type(param.value)) {
            answer.error = "event must be one line\n";
            return answer;
          }
          plan.type = param.value;
        }
      }
    }
  } catch (const boost::system::system_error&) {
    answer.error = "malformed query string\n";
    return answer;
  }
  plan.interval = static_cast<Nanos>(static_cast<double>(kSecond) / rate);
  std::uint64_t last = 0;
  if (const std::string* id = request.header("last-event-id"); id != nullptr && parse_u64(*id, last)) {
    plan.next_id = last + 1;
  }
  answer.plan = std::move(plan);
  return answer;
}

std::string event_stream_head(const EventStreamPlan& plan) {
  std::string out =
      "HTTP/1.1 200 OK\r\n"
      "Content-Type: text/event-stream\r\n"
      "Cache-Control: no-cache\r\n"
      "Connection: close\r\n"
      "\r\n";
  if (plan.retry_ms) out += "retry: " + std::to_string(*plan.retry_ms) + "\n";
  out += ": stampede target event stream\n\n";
  return out;
}

void append_event(std::string& out, const EventStreamPlan& plan, std::uint64_t id) {
  const std::string n = std::to_string(id);
  out += "id: ";
  out += n;
  out += '\n';
  if (!plan.type.empty()) {
    out += "event: ";
    out += plan.type;
    out += '\n';
  }
  out += "data: {\"n\":";
  out += n;
  out += "}\n\n";
}

EventStreamConnection::EventStreamConnection(Worker& worker, Socket socket, EventStreamPlan plan)
    : worker_(worker), socket_(std::move(socket)), timer_(worker.io().get_executor()), plan_(std::move(plan)) {}

void EventStreamConnection::start() {
  boost::system::error_code ignored;
  socket_.non_blocking(true, ignored);
  next_at_ = SteadyClock::monotonic_now();
  send_next();
  wait_readable();
}

void EventStreamConnection::arm() {
  timer_.expires_at(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(next_at_)));
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_) return;
    self->send_next();
  });
}

void EventStreamConnection::send_next() {
  if (closed_) return;
  append_event(out_, plan_, plan_.next_id + sent_);
  ++sent_;
  next_at_ += plan_.interval;
  writing_ = true;
  asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this()](const boost::system::error_code& ec, std::size_t) {
    self->writing_ = false;
    self->out_.clear();
    if (ec || self->closed_) return self->close();
    if (self->plan_.count != 0 && self->sent_ >= self->plan_.count) {
      // The end of a close-delimited body: the client reconnects.
      boost::system::error_code ignored;
      self->socket_.shutdown(Socket::shutdown_send, ignored);
      return;
    }
    self->arm();
  });
}

void EventStreamConnection::wait_readable() {
  socket_.async_wait(Socket::wait_read, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_) return self->close();
    char scratch[512];
    boost::system::error_code read_ec;
    const std::size_t n = self->socket_.read_some(asio::buffer(scratch), read_ec);
    if (read_ec || n == 0) return self->close();  // the client went away (or half-closed)
    self->wait_readable();
  });
}

void EventStreamConnection::close() {
  if (closed_) return;
  closed_ = true;
  timer_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace stampede::target
