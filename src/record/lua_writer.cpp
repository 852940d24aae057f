#include "record/lua_writer.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "record/lua_literal.hpp"

namespace stampede::record {
namespace {

using Kind = Step::Kind;

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

bool any(const Scenario& s, std::initializer_list<Kind> kinds) {
  return std::any_of(s.steps.begin(), s.steps.end(), [&](const Step& step) {
    return std::find(kinds.begin(), kinds.end(), step.kind) != kinds.end();
  });
}

std::string what_was_recorded(const Summary& s) {
  std::vector<std::string> parts;
  if (s.pages) parts.push_back(plural(s.pages, "page", "pages"));
  if (s.liveviews) parts.push_back(plural(s.liveviews, "LiveView", "LiveViews"));
  if (s.live_events) parts.push_back(plural(s.live_events, "LiveView event", "LiveView events"));
  if (s.live_navigations) parts.push_back(plural(s.live_navigations, "live navigation", "live navigations"));
  if (s.uploads) parts.push_back(plural(s.uploads, "upload", "uploads"));
  if (s.requests) parts.push_back(plural(s.requests, "other request", "other requests"));
  if (s.channel_sockets) {
    std::string topics;
    for (const auto& t : s.topics) topics += (topics.empty() ? "" : ", ") + t;
    parts.push_back(plural(s.channel_sockets, "Channels socket", "Channels sockets") +
                    (topics.empty() ? "" : " (" + topics + ")"));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out.empty() ? "nothing the converter could use" : out;
}

std::string what_was_dropped(const Summary& s) {
  std::vector<std::string> parts;
  if (s.dropped_static) parts.push_back(plural(s.dropped_static, "static asset", "static assets") + " (--keep-static)");
  if (s.dropped_other_origins)
    parts.push_back(plural(s.dropped_other_origins, "request", "requests") + " to other origins (--origin)");
  if (s.dropped_longpoll) parts.push_back(plural(s.dropped_longpoll, "LongPoll request", "LongPoll requests"));
  if (s.dropped_failed) parts.push_back(plural(s.dropped_failed, "request", "requests") + " without a response");
  if (s.dropped_heartbeats) parts.push_back(plural(s.dropped_heartbeats, "heartbeat", "heartbeats"));
  if (s.internal_frames)
    parts.push_back(plural(s.internal_frames, "frame", "frames") +
                    " the clients send by themselves (joins of nested views and uploads, progress, leaves, chunks)");
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out.empty() ? "nothing" : out;
}

// Lines of a comment, wrapped at ~100 columns.
void comment(std::string& out, std::string_view indent, std::string_view text) {
  std::string line;
  std::size_t at = 0;
  while (at <= text.size()) {
    auto space = text.find(' ', at);
    if (space == std::string_view::npos) space = text.size();
    const auto word = text.substr(at, space - at);
    if (!line.empty() && line.size() + word.size() + 1 > 96) {
      out += std::string(indent) + "-- " + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
    at = space + 1;
  }
  if (!line.empty()) out += std::string(indent) + "-- " + line + "\n";
}

std::string duration_text(double ms) {
  const auto whole = static_cast<long long>(std::llround(ms));
  if (whole % 1000 == 0) return "\"" + std::to_string(whole / 1000) + "s\"";
  return "\"" + std::to_string(whole) + "ms\"";
}

std::string check_name(const Step& step) {
  std::string path = step.url.substr(0, step.url.find('?'));
  std::string readable;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path.compare(i, kRefPrefix.size(), kRefPrefix) == 0) {
      const auto end = path.find(kRefEnd, i);
      readable += ":" + path.substr(i + kRefPrefix.size(), end - i - kRefPrefix.size());
      i = end == std::string::npos ? path.size() : end;
      continue;
    }
    readable += path[i];
  }
  return step.method + " " + readable + " is " + std::to_string(step.expect_status);
}

class Writer {
 public:
  Writer(const Scenario& scenario, const WriteOptions& options) : s_(scenario), options_(options) {}

  std::string write() {
    std::string body = run_body();
    std::string out;
    header(out);
    out += "local stampede = require \"stampede\"\n";
    if (any(s_, {Kind::Http}) || s_.needs_csrf_helper) out += "local http = require \"stampede.http\"\n";
    if (any(s_, {Kind::LiveConnect})) out += "local live = require \"stampede.liveview\"\n";
    if (any(s_, {Kind::ChannelsConnect})) out += "local channels = require \"stampede.channels\"\n";
    if (uses_json_null_) out += "local json = require \"stampede.json\"\n";
    out += "\n-- Where the app listens: BASE_URL=https://staging.example.com stampede run ...\n";
    out += "local BASE = stampede.env(\"BASE_URL\", " + lua_string(s_.summary.origin) + ")\n";
    helpers(out);
    out += "\n-- (a local with its type, so editors complete the options and `vu`)\n";
    out += "---@type stampede.Scenario\nlocal scenario = {\n";
    out += "  name = " + lua_string(s_.name) + ",\n";
    out += "  options = {\n";
    out += "    -- `stampede run FILE --vus 50 --duration 1m` replaces these.\n";
    out += "    vus = 10,\n    duration = \"30s\",\n    thresholds = {\n";
    if (any(s_, {Kind::Http})) out += "      { \"http.request\", p95 = 500 },\n";
    if (any(s_, {Kind::LiveConnect})) {
      out += "      { \"live.join\", p95 = 500 },\n";
      if (s_.summary.live_events + s_.summary.live_navigations > 0) out += "      { \"live.event\", p95 = 500 },\n";
    }
    if (any(s_, {Kind::ChannelsJoin})) out += "      { \"channel.join\", p95 = 500 },\n";
    out += "      { \"iteration.errors\", count = 0 },\n";
    out += "    },\n  },\n\n";
    out += "  run = function(vu)\n";
    out += body;
    out += "  end,\n}\n\nreturn scenario\n";
    return out;
  }

 private:
  void header(std::string& out) {
    const auto& sum = s_.summary;
    std::string made = options_.command.empty() ? "stampede convert" : options_.command;
    comment(out, "", s_.name + ": a scenario recorded from " + sum.origin +
                         (sum.started_at.empty() ? "" : " on " + sum.started_at) + " (" + sum.source + "), made by `" +
                         made + "`.");
    comment(out, "", "Recorded: " + what_was_recorded(sum) + ".");
    comment(out, "", "Left out: " + what_was_dropped(sum) + ".");
    if (sum.hidden_tokens || sum.correlated) {
      comment(out, "", "Not hard-coded: " + plural(sum.hidden_tokens, "per-session value", "per-session values") +
                           " (CSRF and session tokens, join refs: the clients read this session's at run time)" +
                           (sum.correlated ? ", " + plural(sum.correlated, "id", "ids") +
                                                 " read from the response that gave them"
                                           : std::string()) +
                           ".");
    }
    if (sum.not_understood) {
      comment(out, "", plural(sum.not_understood, "frame was", "frames were") +
                           " not understood: they are kept below as comments, to adapt by hand.");
    }
    out += "--\n";
    const auto path = options_.output_path.empty() ? std::string("FILE") : options_.output_path;
    out += "--   stampede run " + path + " --vus 50 --duration 1m\n";
    out += "--\n-- Every function and option: docs/reference/lua.md\n";
  }

  void helpers(std::string& out) {
    if (s_.needs_csrf_helper) {
      out += "\n-- The CSRF token a page carries (its form's hidden input, else its meta tag), as the browser sent it.\n";
      out += "local function csrf_token(html)\n";
      out += "  return html:match('name=\"_csrf_token\"[^>]-value=\"([^\"]+)\"')\n";
      out += "    or html:match('value=\"([^\"]+)\"[^>]-name=\"_csrf_token\"')\n";
      out += "    or html:match('name=\"csrf%-token\"[^>]-content=\"([^\"]+)\"')\n";
      out += "    or html:match('content=\"([^\"]+)\"[^>]-name=\"csrf%-token\"')\n";
      out += "    or error(\"no CSRF token on the page\", 2)\n";
      out += "end\n";
    }
    if (s_.needs_follow_helper) {
      out += "\n-- A LiveView action that navigated when it was recorded (push_navigate, redirect): run it\n";
      out += "-- and follow where it leads, as the browser did. Returns the view.\n";
      out += "local function follow(view, action, ...)\n";
      out += "  local ok, err = pcall(view[action], view, ...)\n";
      out += "  if ok then error(action .. \" did not navigate away as it did when recorded\", 2) end\n";
      out += "  if type(err) == \"table\" and (err.kind == \"live_redirect\" or err.kind == \"redirect\") then\n";
      out += "    return view:follow(err)\n";
      out += "  end\n";
      out += "  error(err, 0)\n";
      out += "end\n";
    }
  }

  std::string value(const boost::json::value& v) { return lua_value(v, uses_json_null_); }

  // The options table of a LiveView event call ("" when none).
  static std::string event_options(const Step& step, bool with_field) {
    std::vector<std::string> parts;
    if (with_field && !step.field.empty()) parts.push_back("field = " + lua_string(step.field));
    if (step.cid >= 0) parts.push_back("target = " + std::to_string(step.cid));
    if (!step.view_id.empty()) parts.push_back("view = " + lua_string(step.view_id));
    if (parts.empty()) return {};
    std::string out = "{ ";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
    return out + " }";
  }

  // view:method(args...) or, when it navigated, view = follow(view, "method", args...).
  static std::string live_call(const Step& step, const std::string& method, std::vector<std::string> args) {
    while (!args.empty() && args.back() == "nil") args.pop_back();
    std::string joined;
    for (std::size_t i = 0; i < args.size(); ++i) joined += (i ? ", " : "") + args[i];
    if (step.navigates)
      return step.var + " = follow(" + step.var + ", \"" + method + "\"" + (joined.empty() ? "" : ", " + joined) + ")";
    return step.var + ":" + method + "(" + joined + ")";
  }

  // Whether `field` must be named: the client's default is the first name in sorted order.
  static bool needs_field(const Step& step) {
    if (step.field.empty()) return false;
    std::vector<std::string> names;
    for (const auto& [name, v] : step.fields) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names.empty() || names.front() != step.field;
  }

  std::string run_body() {
    std::string out;
    const std::string in = "    ";
    bool declared_view = false, declared_res = false;
    std::set<std::string> sockets;
    for (const auto& step : s_.steps) {
      switch (step.kind) {
        case Kind::Comment:
          for (const auto& line : step.lines) comment(out, in, line);
          break;
        case Kind::Sleep:
          out += in + "stampede.sleep(" + duration_text(step.end_ms) + ")\n";
          break;
        case Kind::Http: {
          std::string call;
          static const std::set<std::string> kShort{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
          std::string method = step.method;
          std::transform(method.begin(), method.end(), method.begin(), ::tolower);
          call = kShort.count(step.method) ? "http." + method + "(" + lua_url(step.url)
                                           : "http.request(" + lua_string(step.method) + ", " + lua_url(step.url);
          std::vector<std::string> opts;
          if (step.body == Step::Body::Json) opts.push_back("json = " + value(step.value));
          if (step.body == Step::Body::Form) opts.push_back("form = " + lua_fields(step.fields));
          if (step.body == Step::Body::Raw) opts.push_back("body = " + lua_string(step.raw_body));
          Fields headers = step.headers;
          if (step.body == Step::Body::Raw && !step.content_type.empty())
            headers.emplace_back("content-type", step.content_type);
          if (!headers.empty()) {
            std::string h = "headers = { ";
            for (std::size_t i = 0; i < headers.size(); ++i)
              h += (i ? ", " : "") + lua_key(headers[i].first) + " = " + lua_text(headers[i].second);
            opts.push_back(h + " }");
          }
          if (step.expect_status >= 300 && step.expect_status < 400) opts.push_back("redirects = 0");
          if (!opts.empty()) {
            call += ", { ";
            for (std::size_t i = 0; i < opts.size(); ++i) call += (i ? ", " : "") + opts[i];
            call += " }";
          }
          call += ")";
          for (const auto& dropped : step.dropped)
            comment(out, in, "left out: the " + dropped + " header (a per-session value: log in as your users do)");
          std::string var = step.var.empty() ? "res" : step.var;
          if (step.var.empty()) {
            out += in + (declared_res ? "" : "local ") + "res = " + call + "\n";
            declared_res = true;
          } else {
            out += in + "local " + var + " = " + call + "\n";
          }
          out += in + "stampede.check(" + lua_string(check_name(step)) + ", " + var + ".status == " +
                 std::to_string(step.expect_status) + ")\n";
          for (const auto& [name, expression] : step.extracts) out += in + "local " + name + " = " + expression + "\n";
          break;
        }
        case Kind::LiveConnect: {
          std::vector<std::string> opts;
          if (!step.socket_path.empty()) opts.push_back("socket_path = " + lua_string(step.socket_path));
          if (!step.params.empty()) opts.push_back("params = " + value(step.params));
          std::string call = "live.connect(" + lua_url(step.url);
          if (!opts.empty()) {
            call += ", { ";
            for (std::size_t i = 0; i < opts.size(); ++i) call += (i ? ", " : "") + opts[i];
            call += " }";
          }
          call += ")";
          if (declared_view) {
            out += in + "view:close()  -- a new page: the browser left the last one\n";
            out += in + "view = " + call + "\n";
          } else {
            out += in + "local view = " + call + "\n";
            declared_view = true;
          }
          break;
        }
        case Kind::LiveEvent: {
          const auto options = event_options(step, false);
          out += in + live_call(step, step.type,
                                {lua_string(step.event), step.value.is_null() ? "nil" : value(step.value),
                                 options.empty() ? "nil" : options}) +
                 "\n";
          break;
        }
        case Kind::LiveChange:
        case Kind::LiveSubmit: {
          const bool change = step.kind == Kind::LiveChange;
          const auto options = event_options(step, change && needs_field(step));
          out += in + live_call(step, change ? "change" : "submit",
                                {lua_string(step.event), lua_fields(step.fields), options.empty() ? "nil" : options}) +
                 "\n";
          break;
        }
        case Kind::LiveTyping: {
          std::string typed;
          Fields fields = step.fields;
          for (auto& [name, v] : fields)
            if (name == step.field) {
              typed = v;
              v = runtime_ref("(" + lua_string(typed) + "):sub(1, n)");
            }
          const auto options = event_options(step, needs_field(step));
          comment(out, in, "typing " + lua_string(typed) + " into " + step.field + ": one phx-change per keystroke, as recorded");
          out += in + "for n = " + std::to_string(step.typed_from) + ", " + std::to_string(typed.size()) + " do\n";
          out += in + "  " + live_call(step, "change", {lua_string(step.event), lua_fields(fields),
                                                        options.empty() ? "nil" : options}) +
                 "\n";
          out += in + "end\n";
          break;
        }
        case Kind::LivePatch:
          out += in + live_call(step, "patch", {lua_string(step.url)}) + "\n";
          break;
        case Kind::LiveNavigate:
          out += in + step.var + ":navigate(" + lua_string(step.url) + ")\n";
          break;
        case Kind::LiveUpload: {
          std::string files = "{ ";
          for (std::size_t i = 0; i < step.files.size(); ++i) {
            const auto& f = step.files[i];
            files += (i ? ", " : "") + std::string("{ name = ") + lua_string(f.name) + ", content = (\"x\"):rep(" +
                     std::to_string(f.size) + ")" + (f.type.empty() ? "" : ", type = " + lua_string(f.type)) + " }";
          }
          files += " }";
          comment(out, in, "the file's content is made up: only its size (and name) were recorded");
          std::string call = step.var + ":upload(" + lua_string(step.upload_name) + ", " + files;
          if (!step.view_id.empty()) call += ", { view = " + lua_string(step.view_id) + " }";
          out += in + call + ")\n";
          break;
        }
        case Kind::ChannelsConnect: {
          std::vector<std::string> opts;
          if (!step.params.empty()) opts.push_back("params = " + value(step.params));
          if (!step.serializer.empty()) opts.push_back("serializer = " + lua_string(step.serializer));
          for (const auto& name : step.dropped)
            comment(out, in, "left out of params: " + name +
                                 " (a per-session value: give each VU its own, e.g. from setup() or a login)");
          std::string call = "channels.connect(" + lua_url(step.url);
          if (!opts.empty()) {
            call += ", { ";
            for (std::size_t i = 0; i < opts.size(); ++i) call += (i ? ", " : "") + opts[i];
            call += " }";
          }
          call += ")";
          out += in + (sockets.insert(step.var).second ? "local " : "") + step.var + " = " + call + "\n";
          break;
        }
        case Kind::ChannelsJoin: {
          const bool empty = step.value.is_object() && step.value.get_object().empty();
          out += in + step.var + ":join(" + lua_string(step.topic) + (empty ? "" : ", " + value(step.value)) + ")\n";
          break;
        }
        case Kind::ChannelsPush:
        case Kind::ChannelsCast: {
          const auto payload = step.is_binary ? "channels.binary(" + lua_string(step.binary) + ")" : value(step.value);
          out += in + step.var + (step.kind == Kind::ChannelsPush ? ":push(" : ":cast(") + lua_string(step.topic) + ", " +
                 lua_string(step.event) + ", " + payload + ")\n";
          break;
        }
        case Kind::ChannelsAwait:
          out += in + step.var + ":await(" + lua_string(step.topic) + ", " + lua_string(step.event) + ")\n";
          break;
        case Kind::ChannelsLeave:
          out += in + step.var + ":leave(" + lua_string(step.topic) + ")\n";
          break;
        case Kind::WebSocketFallback:
          for (std::size_t i = 0; i < step.lines.size(); ++i) {
            if (i == 0) {
              comment(out, in, step.lines[i]);
            } else {
              out += in + "-- " + step.lines[i] + "\n";
            }
          }
          break;
      }
    }
    return out;
  }

  const Scenario& s_;
  WriteOptions options_;
  bool uses_json_null_ = false;
};

}  // namespace

std::string write_lua(const Scenario& scenario, const WriteOptions& options) { return Writer(scenario, options).write(); }

std::string describe(const Scenario& scenario) {
  const auto& s = scenario.summary;
  std::string out;
  out += "origin:    " + s.origin + "\n";
  out += "source:    " + s.source + (s.started_at.empty() ? "" : ", started " + s.started_at) + "\n";
  out += "recorded:  " + what_was_recorded(s) + "\n";
  if (!s.live_urls.empty()) {
    out += "LiveViews: ";
    for (std::size_t i = 0; i < s.live_urls.size(); ++i) out += (i ? ", " : "") + s.live_urls[i];
    out += "\n";
  }
  if (!s.topics.empty()) {
    out += "topics:    ";
    for (std::size_t i = 0; i < s.topics.size(); ++i) out += (i ? ", " : "") + s.topics[i];
    out += "\n";
  }
  out += "left out:  " + what_was_dropped(s) + "\n";
  out += "not hard-coded: " + std::to_string(s.hidden_tokens) + " per-session values, " + std::to_string(s.correlated) +
         " correlated ids\n";
  if (s.not_understood) out += "not understood: " + std::to_string(s.not_understood) + " frames (kept as comments)\n";
  out += "actions:\n";
  for (const auto& event : s.events) out += "  " + event + "\n";
  return out;
}

}  // namespace stampede::record
