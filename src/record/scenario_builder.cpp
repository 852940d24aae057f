#include "record/scenario_builder.hpp"

#include <algorithm>
#include <cmath>

#include "proto/liveview_events.hpp"
#include "proto/url_resolve.hpp"
#include "record/http_steps.hpp"
#include "record/recording_scope.hpp"
#include "record/socket_steps.hpp"

namespace stampede::record {
namespace {

constexpr double kShortestPauseMs = 100;  // gaps below this are the browser's, not the user's

bool is_redirect(int status) { return status >= 300 && status < 400 && status != 304; }

struct PageLoadCandidate {
  const Exchange* exchange;
  UrlParts url;
  bool consumed = false;
};

// The page load behind each live.connect: the latest GET of the joined URL before the join,
// and the redirects that led to it (a login route that redirects to the LiveView). connect()
// does that GET itself, redirects included, so those requests are not written twice.
void attach_page_loads(std::vector<Step>& steps, std::vector<PageLoadCandidate>& http, Summary& summary) {
  for (auto& step : steps) {
    if (step.kind != Step::Kind::LiveConnect) continue;
    const auto target = step.url;
    std::size_t found = http.size();
    for (std::size_t j = 0; j < http.size(); ++j) {
      const auto& c = http[j];
      if (c.consumed || c.exchange->method != "GET" || c.exchange->started_ms > step.at_ms) continue;
      if (c.exchange->url == target) found = j;
    }
    if (found < http.size()) {
      http[found].consumed = true;
      for (bool more = true; more;) {
        more = false;
        for (std::size_t k = found; k-- > 0;) {
          const auto& c = http[k];
          const auto* location = c.exchange->response_header("location");
          if (c.consumed || !is_redirect(c.exchange->status) || location == nullptr) continue;
          if (proto::resolve_url(c.exchange->url, *location) != http[found].exchange->url) continue;
          http[k].consumed = true;
          found = k;
          more = true;
          break;
        }
      }
      step.at_ms = std::min(step.at_ms, http[found].exchange->started_ms);
      step.url = http[found].url.path_and_query();
    } else {
      step.url = relative_url(target);
    }
    step.topic = target;  // the joined URL, for follows of full-page redirects
    ++summary.pages;
    summary.live_urls.push_back(step.url);
  }
}

// A full-page redirect that an action was answered with is followed by view:follow(err), which
// loads the page: that page's live.connect is the follow's, not a new one.
void drop_followed_loads(std::vector<Step>& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].follow_to.empty()) continue;
    for (std::size_t j = i + 1; j < steps.size(); ++j) {
      if (steps[j].kind != Step::Kind::LiveConnect) continue;
      const auto& to = steps[i].follow_to;
      if (steps[j].topic == to || relative_url(to) == steps[j].url) steps.erase(steps.begin() + static_cast<long>(j));
      break;
    }
  }
}

// Keystrokes: a run of phx-change of one event and field, each value the previous one plus a
// character, is written as a loop that types the text (one change per keystroke, as recorded).
void collapse_typing(std::vector<Step>& steps) {
  auto value_of = [](const Step& s) -> const std::string* {
    for (const auto& [name, value] : s.fields)
      if (name == s.field) return &value;
    return nullptr;
  };
  auto others_equal = [](const Step& a, const Step& b) {
    if (a.fields.size() != b.fields.size()) return false;
    for (std::size_t i = 0; i < a.fields.size(); ++i) {
      if (a.fields[i].first != b.fields[i].first) return false;
      if (a.fields[i].first != a.field && a.fields[i].second != b.fields[i].second) return false;
    }
    return true;
  };
  std::vector<Step> out;
  for (std::size_t i = 0; i < steps.size();) {
    const auto& first = steps[i];
    const auto* text = first.kind == Step::Kind::LiveChange ? value_of(first) : nullptr;
    std::size_t end = i + 1;
    if (text != nullptr && !first.field.empty() && !first.navigates) {
      std::string previous = *text;
      while (end < steps.size()) {
        const auto& next = steps[end];
        if (next.kind == Step::Kind::Comment) {
          ++end;
          continue;
        }
        const auto* value = next.kind == Step::Kind::LiveChange ? value_of(next) : nullptr;
        if (value == nullptr || next.event != first.event || next.field != first.field || next.view_id != first.view_id ||
            next.cid != first.cid || next.navigates || !others_equal(first, next) ||
            value->size() != previous.size() + 1 || value->compare(0, previous.size(), previous) != 0 ||
            static_cast<unsigned char>(value->back()) >= 0x80)
          break;
        previous = *value;
        ++end;
      }
    }
    std::size_t changes = 0;
    for (std::size_t k = i; k < end; ++k) changes += steps[k].kind == Step::Kind::LiveChange;
    if (changes >= 3 && std::all_of(text->begin(), text->end(), [](unsigned char c) { return c < 0x80; })) {
      Step typing = steps[end - 1].kind == Step::Kind::LiveChange ? steps[end - 1] : steps[i];
      for (std::size_t k = end; k-- > i;)
        if (steps[k].kind == Step::Kind::LiveChange) {
          typing = steps[k];
          break;
        }
      typing.kind = Step::Kind::LiveTyping;
      typing.at_ms = first.at_ms;
      typing.typed_from = text->size();
      for (std::size_t k = i; k < end; ++k)
        if (steps[k].kind == Step::Kind::Comment) out.push_back(steps[k]);
      out.push_back(std::move(typing));
      i = end;
      continue;
    }
    out.push_back(steps[i]);
    ++i;
  }
  steps = std::move(out);
}

std::string step_label(const Step& step) {
  const auto view = step.view_id.empty() ? std::string() : " (view " + step.view_id + ")";
  const auto target = step.cid >= 0 ? " (component " + std::to_string(step.cid) + ")" : std::string();
  const auto then = step.navigates ? std::string(", then follow the navigation") : std::string();
  switch (step.kind) {
    case Step::Kind::Http: return step.method + " " + step.url + " -> " + std::to_string(step.expect_status);
    case Step::Kind::LiveConnect: return "live.connect " + step.url;
    case Step::Kind::LiveEvent: return step.type + " " + step.event + target + view + then;
    case Step::Kind::LiveChange: return "change " + step.event + " (" + step.field + ")" + target + view;
    case Step::Kind::LiveTyping: return "change " + step.event + " per keystroke (" + step.field + ")" + target + view;
    case Step::Kind::LiveSubmit: return "submit " + step.event + target + view + then;
    case Step::Kind::LivePatch: return "patch " + step.url + then;
    case Step::Kind::LiveNavigate: return "navigate " + step.url;
    case Step::Kind::LiveUpload: return "upload " + step.upload_name + " (" + std::to_string(step.files.size()) + " file(s))";
    case Step::Kind::ChannelsConnect: return "channels.connect " + step.url;
    case Step::Kind::ChannelsJoin: return "join " + step.topic;
    case Step::Kind::ChannelsPush: return "push " + step.topic + " " + step.event;
    case Step::Kind::ChannelsCast: return "cast " + step.topic + " " + step.event;
    case Step::Kind::ChannelsAwait: return "await " + step.topic + " " + step.event;
    case Step::Kind::ChannelsLeave: return "leave " + step.topic;
    case Step::Kind::WebSocketFallback: return "websocket " + step.url + " (not understood: kept as comments)";
    default: return {};
  }
}

bool is_action(const Step& step) {
  return step.kind != Step::Kind::Comment && step.kind != Step::Kind::ChannelsAwait && step.kind != Step::Kind::Sleep;
}

void add_think_times(std::vector<Step>& steps, double cap_ms) {
  if (cap_ms <= 0) return;
  std::vector<Step> out;
  double last_end = -1;
  for (auto& step : steps) {
    if (is_action(step) && last_end >= 0) {
      const double gap = step.at_ms - last_end;
      if (gap >= kShortestPauseMs) {
        Step sleep;
        sleep.kind = Step::Kind::Sleep;
        sleep.at_ms = last_end;
        // Tens of milliseconds: a pause is a person's, finer figures only look exact.
        sleep.end_ms = std::min(cap_ms, std::round(gap / 10.0) * 10.0);
        out.push_back(std::move(sleep));
      }
    }
    if (step.kind != Step::Kind::Comment) last_end = std::max(last_end, std::max(step.end_ms, step.at_ms));
    out.push_back(std::move(step));
  }
  steps = std::move(out);
}

}  // namespace

BuildResult build_scenario(const Recording& recording, const ConvertOptions& options) {
  BuildResult result;
  auto& scenario = result.scenario;
  auto& summary = scenario.summary;
  scenario.name = options.name;
  summary.source = recording.source;
  summary.started_at = recording.started_at;
  std::string origin = options.origin;
  if (!origin.empty()) {
    const auto parts = split_url(origin);
    if (!parts) {
      result.error = "--origin " + origin + " is not a URL like http://127.0.0.1:4000";
      return result;
    }
    origin = parts->origin();
  } else {
    origin = detect_origin(recording);
  }
  if (origin.empty()) {
    result.error = "the recording has no requests";
    return result;
  }
  summary.origin = origin;

  std::vector<Step> steps;
  std::vector<PageLoadCandidate> http;
  std::size_t channel_sockets = 0;
  std::size_t live_sockets_without_frames = 0;
  bool liveview_page = false;
  for (const auto& exchange : recording.exchanges) {
    auto url = split_url(exchange.url);
    if (!url || url->origin() != origin) {
      ++summary.dropped_other_origins;
      continue;
    }
    if (exchange.websocket) {
      const auto kind = socket_kind(exchange, *url);
      if (exchange.frames.empty()) {
        if (kind == SocketKind::LiveView) ++live_sockets_without_frames;
        continue;
      }
      if (kind == SocketKind::LiveView) {
        liveview_socket_steps(exchange, *url, summary, steps);
      } else if (kind == SocketKind::Channels) {
        ++channel_sockets;
        const auto var = channel_sockets == 1 ? std::string("socket") : "socket" + std::to_string(channel_sockets);
        channels_socket_steps(exchange, *url, var, summary, steps);
      } else {
        websocket_fallback_steps(exchange, *url, summary, steps);
      }
      continue;
    }
    if (is_longpoll(*url)) {
      ++summary.dropped_longpoll;
      continue;
    }
    if (exchange.status == 0) {
      ++summary.dropped_failed;
      continue;
    }
    if (!options.keep_static && is_static_asset(exchange, *url)) {
      ++summary.dropped_static;
      continue;
    }
    if (exchange.response_body.find("data-phx-session") != std::string::npos) liveview_page = true;
    http.push_back({&exchange, std::move(*url)});
  }
  if (summary.liveviews == 0 && (live_sockets_without_frames > 0 || liveview_page)) {
    if (recording.source.rfind(kProxySource, 0) == 0) {
      result.error =
          "the recording has LiveView pages but no WebSocket frames: keep a page open until it has connected, "
          "and browse the proxy's address only (a page loaded from the app's own address connects to the app)";
    } else {
      result.error =
          "this HAR has no WebSocket frames: export it with content, from the tab that had the LiveView open "
          "(Chromium: DevTools > Network > \"Save all as HAR with content\"; keep DevTools open while you click)";
    }
    return result;
  }

  if (steps.empty() && http.empty()) {
    result.error = "the recording has nothing from " + origin + " (" + std::to_string(summary.dropped_other_origins) +
                   " requests to other origins, " + std::to_string(summary.dropped_static) +
                   " static assets): is it a recording of this app? (--origin)";
    return result;
  }
  attach_page_loads(steps, http, summary);
  for (std::size_t i = 0; i < http.size(); ++i) {
    if (http[i].consumed) continue;
    http[i].consumed = true;
    const Exchange* final_hop = http[i].exchange;
    // Redirects the client follows by itself: the hops after the first are its own.
    for (std::size_t j = i + 1; j < http.size() && is_redirect(final_hop->status); ++j) {
      const auto* location = final_hop->response_header("location");
      if (location == nullptr) break;
      if (http[j].consumed || http[j].exchange->method != "GET" ||
          http[j].exchange->url != proto::resolve_url(final_hop->url, *location))
        continue;
      http[j].consumed = true;
      final_hop = http[j].exchange;
    }
    steps.push_back(http_step(*http[i].exchange, *final_hop, http[i].url, summary));
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.at_ms < b.at_ms; });
  drop_followed_loads(steps);
  collapse_typing(steps);
  correlate(steps, scenario);
  for (const auto& step : steps)
    if (step.navigates) scenario.needs_follow_helper = true;
  // What --check lists: the actions in the order they will run.
  summary.events.clear();
  for (const auto& step : steps) {
    const auto label = step_label(step);
    if (!label.empty()) summary.events.push_back(label);
  }
  add_think_times(steps, options.think_time_cap_ms);
  scenario.steps = std::move(steps);
  return result;
}

}  // namespace stampede::record
