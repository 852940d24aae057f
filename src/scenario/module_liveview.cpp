// `stampede.liveview`: a LiveView page driven like a browser drives it. The protocol lives in
// clients::LiveViewSession; this file adapts it to coroutines and tables. The Lua half
// (src/scenario/lua/liveview.lua) holds the user-facing methods and turns failed outcomes into
// `stampede.error` objects.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include <lua.hpp>
#include <memory>
#include <string>

#include "clients/liveview_json.hpp"
#include "clients/liveview_session.hpp"
#include "proto/form.hpp"
#include "scenario/lua_handle.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

// Named, and not only anonymous: a unity build (docs/design/023) compiles several modules
// as one translation unit, and each has its own l_connect, l_close, kType...
namespace liveview_bindings {
namespace {

constexpr const char* kType = "stampede.liveview.View";

using clients::LiveOutcome;
using clients::LiveViewSession;

std::shared_ptr<LiveViewSession> view_arg(lua_State* L) {
  auto* p = static_cast<std::shared_ptr<LiveViewSession>*>(luaL_checkudata(L, 1, kType));
  if (!*p) luaL_error(L, "liveview: the view was already released");
  return *p;
}

// JSON text -> Lua value; a string when it is not JSON, nil when empty.
void push_json_text(lua_State* L, const std::string& text) {
  if (text.empty()) {
    lua_pushnil(L);
    return;
  }
  boost::system::error_code ec;
  auto v = clients::parse_live_json(text, ec);
  if (ec) {
    lua_pushlstring(L, text.data(), text.size());
  } else {
    push_json(L, v);
  }
}

// {ok, reply} or {ok = false, kind, message, reason, response, to, status, navigation = {to, kind, flash, status}}
int push_outcome(lua_State* L, const LiveOutcome& o) {
  lua_createtable(L, 0, 8);
  lua_pushboolean(L, o.ok());
  lua_setfield(L, -2, "ok");
  if (o.ok()) {
    push_json_text(L, o.response_json);
    lua_setfield(L, -2, "reply");
    return 1;
  }
  set_string(L, "kind", o.failure);
  set_string(L, "message", o.message);
  set_string(L, "reason", o.reason);
  push_json_text(L, o.response_json);
  lua_setfield(L, -2, "response");
  if (o.status != 0) {
    lua_pushinteger(L, o.status);
    lua_setfield(L, -2, "status");
  }
  if (o.navigated()) {
    set_string(L, "to", o.to);
    lua_createtable(L, 0, 4);
    set_string(L, "to", o.navigation.to);
    if (!o.navigation.history.empty()) set_string(L, "kind", o.navigation.history);
    if (!o.navigation.flash.empty()) set_string(L, "flash", o.navigation.flash);
    if (o.navigation.status != 0) {
      lua_pushinteger(L, o.navigation.status);
      lua_setfield(L, -2, "status");
    }
    lua_setfield(L, -2, "navigation");
  }
  return 1;
}

// Starts a call on the session and yields until its outcome.
template <typename Start>
int call(lua_State* L, const char* what, Start start) {
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, what);
  start([rt, &vu, epoch = vu.epoch](const LiveOutcome& outcome) {
    if (vu.epoch == epoch) vu.note_local_exhaustion(outcome.local_exhaustion);
    rt->resume(vu, epoch, [&outcome](lua_State* co) { return push_outcome(co, outcome); });
  });
  return lua_yield(L, 0);
}

std::string opt_string(lua_State* L, int index, const char* field) {
  if (!lua_istable(L, index)) return {};
  lua_getfield(L, index, field);
  std::string out = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
  lua_pop(L, 1);
  return out;
}

std::optional<int> opt_cid(lua_State* L, int index) {
  if (!lua_istable(L, index)) return std::nullopt;
  lua_getfield(L, index, "target");
  std::optional<int> cid;
  if (lua_type(L, -1) == LUA_TNUMBER) {
    cid = static_cast<int>(lua_tointeger(L, -1));
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    const std::string text = lua_tostring(L, -1);
    try {
      cid = std::stoi(text);
    } catch (const std::exception&) {
      lua_pop(L, 1);
      luaL_error(L, "liveview: target must be a component id (a number), not \"%s\"", text.c_str());
    }
  }
  lua_pop(L, 1);
  return cid;
}

// Form values: a table of names ({post = {title = "Hi"}}, flattened into Plug's nested names by
// proto::nested_form_fields) or a URL-encoded string.
proto::FormFields form_fields(lua_State* L, int index) {
  if (lua_isnoneornil(L, index)) return {};
  if (lua_type(L, index) == LUA_TSTRING) return proto::decode_form(lua_tostring(L, index));
  if (!lua_istable(L, index)) luaL_error(L, "liveview: form values must be a table or a URL-encoded string");
  std::string error;
  try {
    return proto::nested_form_fields(lua_to_json(L, index));
  } catch (const std::exception& e) {
    error = e.what();  // luaL_error longjmps: no exception may be in flight
  }
  luaL_error(L, "liveview: %s", error.c_str());
  return {};
}

clients::LiveViewOptions read_options(lua_State* L, int index, ScenarioRuntime* rt) {
  clients::LiveViewOptions o;
  o.page.insecure = rt->env().insecure;
  if (!lua_istable(L, index)) return o;
  const std::string path = opt_string(L, index, "socket_path");
  if (!path.empty()) o.socket_path = path;
  const Nanos timeout = duration_field(L, index, "timeout", "liveview.connect timeout", 10 * kSecond);
  o.page.timeout = o.connect_timeout = o.join_timeout = timeout;
  o.event_timeout = duration_field(L, index, "event_timeout", "liveview.connect event_timeout", o.event_timeout);
  lua_getfield(L, index, "heartbeat");
  if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    o.heartbeat_interval = 0;
  } else {
    o.heartbeat_interval = duration_arg(L, lua_gettop(L), "liveview.connect heartbeat", o.heartbeat_interval);
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "headers");
  o.page.headers = pairs_arg(L, lua_gettop(L), "liveview.connect", "headers");
  lua_pop(L, 1);
  lua_getfield(L, index, "origin");
  if (lua_type(L, -1) == LUA_TBOOLEAN) {
    o.page_origin = lua_toboolean(L, -1) != 0;
  } else if (lua_isstring(L, -1)) {
    o.origin = lua_tostring(L, -1);
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "params");
  if (lua_istable(L, -1)) {
    std::string error;
    try {
      auto v = lua_to_json(L, lua_gettop(L));
      if (v.is_object()) o.params = v.as_object();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) luaL_error(L, "liveview.connect params: %s", error.c_str());
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "redirects");
  if (lua_type(L, -1) == LUA_TNUMBER) o.page.max_redirects = static_cast<int>(lua_tointeger(L, -1));
  if (lua_type(L, -1) == LUA_TBOOLEAN) o.page.max_redirects = lua_toboolean(L, -1) ? 10 : 0;
  lua_pop(L, 1);
  lua_getfield(L, index, "insecure");
  if (!lua_isnil(L, -1)) o.page.insecure = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  o.buffer_limit = count_field(L, index, "buffer", o.buffer_limit);
  lua_getfield(L, index, "compression");
  o.compression = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);
  lua_getfield(L, index, "transport");
  if (!lua_isnil(L, -1)) {
    const char* name = lua_tostring(L, -1);
    const auto transport = clients::phoenix_transport_named(name != nullptr ? name : "");
    if (!transport) luaL_error(L, "liveview.connect: transport must be \"websocket\" or \"longpoll\"");
    o.transport = *transport;
  }
  lua_pop(L, 1);
  lua_getfield(L, index, "reconnect");
  if (!lua_isnil(L, -1)) {
    if (!lua_isboolean(L, -1)) luaL_error(L, "liveview.connect: reconnect must be true or false");
    o.reconnect = lua_toboolean(L, -1) != 0;
  }
  lua_pop(L, 1);
  return o;
}

// connect(url, opts) -> handle | nil, outcome
int l_connect(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  std::string url = luaL_checkstring(L, 1);
  clients::LiveViewOptions options = read_options(L, 2, rt);
  Vu& vu = require_vu(L, "liveview.connect");
  auto session = std::make_shared<LiveViewSession>(rt->context(), rt->http_of(vu), std::move(options));
  std::weak_ptr<LiveViewSession> weak = session;
  // The iteration owns the session until it ends (then the Lua handle, if it was kept). The
  // completion must not: it is stored inside the session's own socket until the join is
  // answered, and a run that ended mid-connect left that cycle behind (LeakSanitizer, once
  // in CI: the session and its views).
  vu.iteration_cleanup.push_back([session] { session->close("the iteration ended"); });
  session->connect(std::move(url), [rt, &vu, epoch = vu.epoch, weak](const LiveOutcome& outcome) {
    if (vu.epoch == epoch) vu.note_local_exhaustion(outcome.local_exhaustion);
    rt->resume(vu, epoch, [&](lua_State* co) {
      auto live = weak.lock();
      if (outcome.ok() && live) {
        push_handle(co, live, kType);
        return 1;
      }
      lua_pushnil(co);
      push_outcome(co, outcome);
      return 2;
    });
  });
  return lua_yield(L, 0);
}

// event(h, type, event, value, opts)
int l_event(lua_State* L) {
  auto view = view_arg(L);
  clients::LiveEvent e;
  e.type = luaL_checkstring(L, 2);
  e.event = luaL_checkstring(L, 3);
  if (!lua_isnoneornil(L, 4)) {
    std::string error;
    try {
      e.value = lua_to_json(L, 4);
    } catch (const std::exception& ex) {
      error = ex.what();
    }
    if (!error.empty()) luaL_error(L, "liveview %s: the value cannot be sent as JSON: %s", e.type.c_str(), error.c_str());
  }
  e.cid = opt_cid(L, 5);
  e.element = opt_string(L, 5, "element");
  e.view_id = opt_string(L, 5, "view");
  e.timeout = duration_field(L, 5, "timeout", "liveview event timeout", 0);
  return call(L, "view:event", [&](auto done) { view->event(std::move(e), std::move(done)); });
}

// form(h, "change"|"submit", event, fields, opts)
int l_form(lua_State* L) {
  auto view = view_arg(L);
  const std::string kind = luaL_checkstring(L, 2);
  clients::LiveForm f;
  f.event = luaL_checkstring(L, 3);
  f.fields = form_fields(L, 4);
  f.cid = opt_cid(L, 5);
  f.form = opt_string(L, 5, "form");
  f.field = opt_string(L, 5, "field");
  f.view_id = opt_string(L, 5, "view");
  f.timeout = duration_field(L, 5, "timeout", "liveview form timeout", 0);
  if (kind == "change") return call(L, "view:change", [&](auto done) { view->change(std::move(f), std::move(done)); });
  return call(L, "view:submit", [&](auto done) { view->submit(std::move(f), std::move(done)); });
}

// patch(h, url, timeout)
int l_patch(lua_State* L) {
  auto view = view_arg(L);
  std::string url = luaL_checkstring(L, 2);
  const Nanos timeout = duration_arg(L, 3, "view:patch timeout", 0);
  return call(L, "view:patch", [&](auto done) { view->patch(std::move(url), timeout, std::move(done)); });
}

// navigate(h, url, flash)
int l_navigate(lua_State* L) {
  auto view = view_arg(L);
  std::string url = luaL_checkstring(L, 2);
  std::string flash = luaL_optstring(L, 3, "");
  return call(L, "view:navigate",
              [&](auto done) { view->navigate(std::move(url), std::move(flash), std::move(done)); });
}

// load(h, url): a full page load
int l_load(lua_State* L) {
  auto view = view_arg(L);
  std::string url = luaL_checkstring(L, 2);
  return call(L, "view:follow", [&](auto done) { view->load(std::move(url), std::move(done)); });
}

// upload(h, name, {{name =, content =, type =}, ...}, opts)
int l_upload(lua_State* L) {
  auto view = view_arg(L);
  clients::LiveUpload u;
  u.input_name = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  const int n = static_cast<int>(lua_objlen(L, 3));
  for (int i = 1; i <= n; ++i) {
    lua_rawgeti(L, 3, i);
    if (!lua_istable(L, -1)) luaL_error(L, "view:upload: each file is a table {name = ..., content = ..., type = ...}");
    clients::LiveUploadFile file;
    lua_getfield(L, -1, "name");
    file.name = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    lua_getfield(L, -2, "content");
    size_t len = 0;
    const char* content = lua_tolstring(L, -1, &len);
    if (content == nullptr) luaL_error(L, "view:upload: file %d has no content (a string)", i);
    file.content.assign(content, len);
    lua_getfield(L, -3, "type");
    file.type = lua_isstring(L, -1) ? lua_tostring(L, -1) : "";
    lua_pop(L, 4);
    if (file.name.empty()) file.name = fmt::format("file{}", i);
    u.files.push_back(std::move(file));
  }
  u.view_id = opt_string(L, 4, "view");
  u.timeout = duration_field(L, 4, "timeout", "view:upload timeout", 0);
  return call(L, "view:upload", [&](auto done) { view->upload(std::move(u), std::move(done)); });
}

int push_push(lua_State* L, const clients::LivePush* p) {
  if (p == nullptr) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 6);
  lua_pushnumber(L, static_cast<double>(p->seq));
  lua_setfield(L, -2, "seq");
  set_string(L, "kind", p->kind);
  set_string(L, "view", p->view_id);
  if (p->kind == "event") set_string(L, "event", p->event);
  if (p->kind == "live_patch") set_string(L, "to", p->event);
  push_json_text(L, p->payload_json);
  lua_setfield(L, -2, "payload");
  return 1;
}

// next(h, after_seq, timeout) -> push | nil (timeout, or the view left: see state)
int l_next(lua_State* L) {
  auto view = view_arg(L);
  const auto after = static_cast<std::uint64_t>(luaL_checknumber(L, 2));
  const Nanos timeout = duration_arg(L, 3, "view:await timeout", 10 * kSecond);
  if (const auto* p = view->pushes().find(after)) return push_push(L, p);
  if (!view->main_state().ok()) return push_push(L, nullptr);
  ScenarioRuntime* rt = runtime_of(L);
  Vu& vu = require_vu(L, "view:await");
  view->pushes().wait(after, timeout, [rt, &vu, epoch = vu.epoch](const clients::LivePush* p) {
    rt->resume(vu, epoch, [p](lua_State* co) { return push_push(co, p); });
  });
  return lua_yield(L, 0);
}

int l_consume(lua_State* L) {
  view_arg(L)->pushes().consume(static_cast<std::uint64_t>(luaL_checknumber(L, 2)));
  return 0;
}

int l_state(lua_State* L) { return push_outcome(L, view_arg(L)->main_state()); }

int l_html(lua_State* L) {
  const std::string html = view_arg(L)->html();
  lua_pushlstring(L, html.data(), html.size());
  return 1;
}

int l_text(lua_State* L) {
  auto view = view_arg(L);
  const char* selector = luaL_checkstring(L, 2);
  if (std::string bad = proto::lv::selector_error(selector); !bad.empty()) {
    luaL_error(L, "view:text(\"%s\"): %s", selector, bad.c_str());
  }
  const auto text = view->text(selector);
  if (!text) {
    lua_pushnil(L);
  } else {
    lua_pushlstring(L, text->data(), text->size());
  }
  return 1;
}

int l_url(lua_State* L) {
  lua_pushstring(L, view_arg(L)->url().c_str());
  return 1;
}

int l_title(lua_State* L) {
  lua_pushstring(L, view_arg(L)->title().c_str());
  return 1;
}

int l_version(lua_State* L) {
  lua_pushstring(L, view_arg(L)->version().c_str());
  return 1;
}

int l_is_open(lua_State* L) {
  lua_pushboolean(L, view_arg(L)->is_open());
  return 1;
}

int l_close(lua_State* L) {
  view_arg(L)->close();
  return 0;
}


}  // namespace
}  // namespace liveview_bindings

int open_liveview_module(lua_State* L) {
  using namespace liveview_bindings;
  const luaL_Reg functions[] = {{"connect", l_connect}, {"event", l_event},     {"form", l_form},
                                {"patch", l_patch},     {"navigate", l_navigate}, {"load", l_load},
                                {"upload", l_upload},   {"next", l_next},       {"consume", l_consume},
                                {"state", l_state},     {"html", l_html},       {"text", l_text},
                                {"url", l_url},         {"title", l_title},     {"version", l_version},
                                {"is_open", l_is_open}, {"close", l_close},     {nullptr, nullptr}};
  return open_module(L, functions, module_lua::liveview_lua, "=stampede.liveview");
}

}  // namespace stampede::scenario
