// `stampede.http`: get/post/put/patch/delete/head/options/request. Builds a
// clients::HttpRequest from the Lua options, yields, and resumes with a response table.
#include <boost/json/parse.hpp>
#include <boost/json/stream_parser.hpp>
#include <boost/json/serialize.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>
#include <lua.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "proto/duration.hpp"
#include "proto/form.hpp"
#include "scenario/lua_json.hpp"
#include "scenario/lua_modules.hpp"
#include "scenario/module_lua.hpp"
#include "scenario/scenario_runtime.hpp"

namespace stampede::scenario {

namespace {

int response_mt_key;

using Pairs = std::vector<std::pair<std::string, std::string>>;

bool has_header(const Pairs& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() &&
        std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return std::tolower(a) == b; }))
      return true;
  }
  return false;
}

constexpr const char* kRequestOptions[] = {"headers", "query",     "body", "json",     "form",
                                           "timeout", "redirects", "name", "insecure", "http2"};

// A misspelt option (`timeoutt`, `header`) would otherwise be ignored without a word, and
// the request sent without what the scenario meant it to carry. So would all but one of
// body, json and form.
void check_option_names(lua_State* L, int index) {
  int bodies = 0;
  lua_pushnil(L);
  while (lua_next(L, index) != 0) {
    lua_pop(L, 1);
    const char* key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : nullptr;
    const auto known = key != nullptr && std::any_of(std::begin(kRequestOptions), std::end(kRequestOptions),
                                                     [&](const char* k) { return std::strcmp(k, key) == 0; });
    if (!known) {
      std::string known_names;
      for (const char* k : kRequestOptions) known_names += std::string(known_names.empty() ? "" : ", ") + k;
      luaL_error(L, "http: unknown option %s: expected one of %s",
                 key != nullptr ? lua_pushfstring(L, "\"%s\"", key) : luaL_typename(L, -1), known_names.c_str());
    }
    if (std::strcmp(key, "body") == 0 || std::strcmp(key, "json") == 0 || std::strcmp(key, "form") == 0) ++bodies;
  }
  if (bodies > 1) luaL_error(L, "http: give one of body, json or form, not several");
}

// Reads the options table at `index` into `req`. Errors are Lua errors with the option name.
void read_request_options(lua_State* L, int index, clients::HttpRequest& req) {
  if (lua_isnil(L, index)) return;
  if (!lua_istable(L, index)) luaL_error(L, "http: the options must be a table");
  check_option_names(L, index);
  lua_getfield(L, index, "headers");
  req.headers = pairs_arg(L, lua_gettop(L), "http", "headers");
  lua_pop(L, 1);

  lua_getfield(L, index, "query");
  if (!lua_isnil(L, -1)) req.url = proto::append_query(req.url, pairs_arg(L, lua_gettop(L), "http", "query"));
  lua_pop(L, 1);

  lua_getfield(L, index, "body");
  if (!lua_isnil(L, -1)) {
    if (!lua_isstring(L, -1)) luaL_error(L, "http: body must be a string (use json = {...} for JSON)");
    size_t n = 0;
    const char* s = lua_tolstring(L, -1, &n);
    req.body.assign(s, n);
  }
  lua_pop(L, 1);

  lua_getfield(L, index, "json");
  if (!lua_isnil(L, -1)) {
    std::string error;
    try {
      req.body = boost::json::serialize(lua_to_json(L, lua_gettop(L)));
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) luaL_error(L, "http: json: %s", error.c_str());
    if (!has_header(req.headers, "content-type")) req.headers.emplace_back("content-type", "application/json");
  }
  lua_pop(L, 1);

  lua_getfield(L, index, "form");
  if (!lua_isnil(L, -1)) {
    req.body = proto::encode_form(pairs_arg(L, lua_gettop(L), "http", "form"));
    if (!has_header(req.headers, "content-type"))
      req.headers.emplace_back("content-type", "application/x-www-form-urlencoded");
  }
  lua_pop(L, 1);

  lua_getfield(L, index, "timeout");
  if (!lua_isnil(L, -1)) req.timeout = duration_arg(L, lua_gettop(L), "http: timeout", req.timeout);
  lua_pop(L, 1);

  lua_getfield(L, index, "redirects");
  if (lua_type(L, -1) == LUA_TBOOLEAN) {
    req.max_redirects = lua_toboolean(L, -1) ? 10 : 0;
  } else if (lua_type(L, -1) == LUA_TNUMBER) {
    const double n = lua_tonumber(L, -1);
    if (!(n >= 0) || n != std::floor(n) || n > 1000)
      luaL_error(L, "http: redirects is true, false or how many to follow (0-1000), not %s", lua_tostring(L, -1));
    req.max_redirects = static_cast<int>(n);
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "http: redirects is true, false or how many to follow, not a %s", luaL_typename(L, -1));
  }
  lua_pop(L, 1);

  // A name that is not a string used to be ignored, and the row it was meant for never
  // appeared; an empty one would name no row either.
  lua_getfield(L, index, "name");
  if (lua_type(L, -1) == LUA_TSTRING) {
    req.name = lua_tostring(L, -1);
    if (req.name.empty()) luaL_error(L, "http: name is the row http.request.<name>: give a non-empty string");
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "http: name is the row http.request.<name>: a string, not a %s", luaL_typename(L, -1));
  }
  lua_pop(L, 1);

  lua_getfield(L, index, "insecure");
  if (!lua_isnil(L, -1)) req.insecure = lua_toboolean(L, -1) != 0;
  lua_pop(L, 1);

  lua_getfield(L, index, "http2");
  if (lua_type(L, -1) == LUA_TBOOLEAN) {
    req.http2 = lua_toboolean(L, -1) != 0;
  } else if (!lua_isnil(L, -1)) {
    luaL_error(L, "http: http2 is true or false, not a %s", luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

// The response table's own keys, interned once per Lua state and kept in a registry
// array: a response is built once per request, and interning a key each time (hashing it
// and walking the string table) cost more than the rest of the table (callgrind: ~300
// instructions per lua_setfield with a C string key).
// A key's number is its index in kResponseKeyNames plus one (the registry array's index).
// The protocol names res.proto takes are interned the same way, after the keys.
enum ResponseKey { kStatus = 1, kBody, kUrl, kDuration, kError, kErrorReason, kHeaders, kProto, kHttp11, kHttp10, kHttp2 };
constexpr const char* kResponseKeyNames[] = {"status",  "body",  "url",      "duration", "error",  "error_reason",
                                             "headers", "proto", "HTTP/1.1", "HTTP/1.0", "HTTP/2"};
constexpr int kResponseKeyCount = static_cast<int>(std::size(kResponseKeyNames));
static_assert(kHttp2 == kResponseKeyCount, "one name per ResponseKey, in the enum's order");

ResponseKey proto_name(std::string_view proto) {
  if (proto == "HTTP/2") return kHttp2;
  return proto == "HTTP/1.0" ? kHttp10 : kHttp11;
}
int response_keys_key;

void make_response_keys(lua_State* L) {
  lua_pushlightuserdata(L, &response_keys_key);
  lua_createtable(L, kResponseKeyCount, 0);
  for (int i = 0; i < kResponseKeyCount; ++i) {
    lua_pushstring(L, kResponseKeyNames[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_rawset(L, LUA_REGISTRYINDEX);
}

// Repeated names are rare (Set-Cookie, Vary): only a name seen earlier in this response
// needs the table searched for a value to join.
bool seen_before(const std::vector<proto::HttpHeader>& headers, std::size_t i) {
  for (std::size_t j = 0; j < i; ++j) {
    if (headers[j].name == headers[i].name) return true;
  }
  return false;
}

int push_response(lua_State* L, const clients::HttpResponse& res) {
  lua_pushlightuserdata(L, &response_keys_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  const int keys = lua_gettop(L);
  // Sets field `key` of the table just below the value on top of the stack.
  const auto set = [L, keys](ResponseKey key) {
    lua_rawgeti(L, keys, key);
    lua_insert(L, -2);
    lua_rawset(L, -3);
  };
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, res.status);
  set(kStatus);
  lua_pushlstring(L, res.body.data(), res.body.size());
  set(kBody);
  lua_pushlstring(L, res.url.data(), res.url.size());
  set(kUrl);
  lua_pushnumber(L, static_cast<double>(res.duration) / kMilli);
  set(kDuration);
  lua_rawgeti(L, keys, proto_name(res.proto));
  set(kProto);
  if (!res.error.empty()) {
    lua_pushlstring(L, res.error.data(), res.error.size());
    set(kError);
    lua_pushlstring(L, res.error_reason.data(), res.error_reason.size());
    set(kErrorReason);
  }
  // Repeated headers are joined with ", " (Set-Cookie with "\n", since dates contain commas).
  lua_createtable(L, 0, static_cast<int>(res.headers.size()));
  for (std::size_t i = 0; i < res.headers.size(); ++i) {
    const proto::HttpHeader& h = res.headers[i];
    lua_pushlstring(L, h.name.data(), h.name.size());
    if (seen_before(res.headers, i)) {
      lua_pushvalue(L, -1);
      lua_rawget(L, -3);  // the earlier value
      lua_pushstring(L, h.name == "set-cookie" ? "\n" : ", ");
      lua_pushlstring(L, h.value.data(), h.value.size());
      lua_concat(L, 3);
    } else {
      lua_pushlstring(L, h.value.data(), h.value.size());
    }
    lua_rawset(L, -3);
  }
  set(kHeaders);
  lua_pushlightuserdata(L, &response_mt_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_setmetatable(L, -2);
  lua_remove(L, keys);
  return 1;
}

// http.request(method, url, options)
int l_request(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  clients::HttpRequest req;
  req.method = luaL_checkstring(L, 1);
  for (char& c : req.method) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');  // methods are ASCII tokens
  }
  std::size_t url_size = 0;
  const char* url = luaL_checklstring(L, 2, &url_size);
  req.url = rt->context().take_text();  // given back when the request is done: no allocation
  req.url.assign(url, url_size);
  req.insecure = rt->env().insecure;
  req.http2 = rt->http2_default();
  read_request_options(L, 3, req);
  Vu& vu = require_vu(L, "http.request");
  const bool named = !req.name.empty();
  std::string clash;
  try {
    // Two words of captures: std::function keeps them without allocating (the runtime is the
    // one whose session this is, found again through the VU's epoch-checked resume).
    rt->http_of(vu).request(std::move(req), [&vu, epoch = vu.epoch](clients::HttpResponse&& res) {
      if (vu.epoch == epoch) vu.note_local_exhaustion(res.local_exhaustion);
      vu.runtime->resume(vu, epoch, [&res](lua_State* co) { return push_response(co, res); });
    });
  } catch (const std::invalid_argument& e) {
    clash = e.what();  // raised below, outside the handler: luaL_error does not return
  }
  // A row the client records under exists as another kind (a counter: `name = "errors"`,
  // or one the scenario made with stampede.increment): an error at the scenario's line, like
  // stampede.*'s, rather than a throw out of the worker's loop when the response arrives.
  if (!clash.empty()) {
    return named ? luaL_error(L, "http: name: %s; give the request another name", clash.c_str())
                 : luaL_error(L, "http: %s, and the HTTP client records it", clash.c_str());
  }
  return lua_yield(L, 0);
}

// One request of a batch: a URL (GET), or { method, url, options } as http.request takes them.
clients::HttpRequest batch_entry(lua_State* L, ScenarioRuntime* rt, int list, int i) {
  clients::HttpRequest req;
  req.insecure = rt->env().insecure;
  req.http2 = rt->http2_default();
  lua_rawgeti(L, list, i);
  const int entry = lua_gettop(L);
  if (lua_type(L, entry) == LUA_TSTRING) {
    req.url = lua_tostring(L, entry);
  } else if (lua_istable(L, entry)) {
    lua_rawgeti(L, entry, 1);
    lua_rawgeti(L, entry, 2);
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING) {
      luaL_error(L, "http.batch: request %d is { method, url, options }: method and url are strings", i);
    }
    req.method = lua_tostring(L, -2);
    for (char& c : req.method) {
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    req.url = lua_tostring(L, -1);
    lua_pop(L, 2);
    lua_rawgeti(L, entry, 3);
    read_request_options(L, lua_gettop(L), req);
    lua_pop(L, 1);
  } else {
    luaL_error(L, "http.batch: request %d is a URL or { method, url, options }, not a %s", i, luaL_typename(L, entry));
  }
  lua_pop(L, 1);
  return req;
}

// The default of `parallel`: k6's for http.batch (its `batch` option).
constexpr int kBatchParallel = 20;

// http.batch(requests, { parallel = N }): the responses, in the requests' order.
int l_batch(lua_State* L) {
  ScenarioRuntime* rt = runtime_of(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  const int count = static_cast<int>(lua_objlen(L, 1));
  if (count == 0) luaL_error(L, "http.batch: give at least one request");
  int parallel = kBatchParallel;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 2) != 0) {
      lua_pop(L, 1);
      if (lua_type(L, -1) != LUA_TSTRING || std::strcmp(lua_tostring(L, -1), "parallel") != 0) {
        luaL_error(L, "http.batch: unknown option %s: expected parallel",
                   lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
      }
    }
    lua_getfield(L, 2, "parallel");
    if (!lua_isnil(L, -1)) {
      const double n = lua_tonumber(L, -1);
      if (lua_type(L, -1) != LUA_TNUMBER || !(n >= 1) || n != std::floor(n) || n > 1000) {
        luaL_error(L, "http.batch: parallel is how many requests may be in flight at once (1-1000)");
      }
      parallel = static_cast<int>(n);
    }
    lua_pop(L, 1);
  }
  std::vector<clients::HttpRequest> requests;
  requests.reserve(static_cast<std::size_t>(count));
  for (int i = 1; i <= count; ++i) requests.push_back(batch_entry(L, rt, 1, i));
  Vu& vu = require_vu(L, "http.batch");
  std::string clash;
  try {
    rt->http_of(vu).batch(std::move(requests), static_cast<std::size_t>(parallel),
                          [&vu, epoch = vu.epoch](std::vector<clients::HttpResponse>&& responses) {
                            bool exhausted = false;
                            for (const auto& res : responses) exhausted = exhausted || res.local_exhaustion;
                            if (vu.epoch == epoch) vu.note_local_exhaustion(exhausted);
                            vu.runtime->resume(vu, epoch, [&responses](lua_State* co) {
                              lua_createtable(co, static_cast<int>(responses.size()), 0);
                              for (std::size_t i = 0; i < responses.size(); ++i) {
                                push_response(co, responses[i]);
                                lua_rawseti(co, -2, static_cast<int>(i + 1));
                              }
                              return 1;
                            });
                          });
  } catch (const std::invalid_argument& e) {
    clash = e.what();
  }
  if (!clash.empty()) return luaL_error(L, "http.batch: name: %s; give the request another name", clash.c_str());
  return lua_yield(L, 0);
}

// res:json(): decoded on first use and cached in the response table.
int l_response_json(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "_json");
  if (!lua_isnil(L, -1)) return 1;
  lua_pop(L, 1);
  lua_getfield(L, 1, "body");
  size_t n = 0;
  const char* body = lua_tolstring(L, -1, &n);
  // A stream parser, to say where the body stops being JSON: "not JSON" alone leaves the
  // user to fetch the body by hand to see what came back instead.
  boost::json::stream_parser parser;
  boost::system::error_code ec;
  const std::size_t used = parser.write_some(body ? body : "", n, ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    lua_getfield(L, 1, "url");
    const char* url = lua_tostring(L, -1);
    const std::string_view text(body ? body : "", n);
    const std::size_t at = std::min(used, n);
    std::string near(text.substr(at > 20 ? at - 20 : 0, 40));
    for (char& c : near) c = (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
    return luaL_error(L, "res:json(): the body%s%s is not JSON (%s at byte %d of %d, near \"%s\")", url ? " of " : "",
                      url ? url : "", ec.message().c_str(), static_cast<int>(at), static_cast<int>(n), near.c_str());
  }
  auto value = parser.release();
  push_json(L, value);
  lua_pushvalue(L, -1);
  lua_setfield(L, 1, "_json");
  return 1;
}


}  // namespace

int open_http_module(lua_State* L) {
  make_response_keys(L);
  // The metatable of response tables: res:json().
  lua_pushlightuserdata(L, &response_mt_key);
  lua_createtable(L, 0, 1);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, l_response_json);
  lua_setfield(L, -2, "json");
  lua_setfield(L, -2, "__index");
  lua_rawset(L, LUA_REGISTRYINDEX);

  lua_createtable(L, 0, 10);
  lua_pushcfunction(L, l_request);
  lua_setfield(L, -2, "request");
  lua_pushcfunction(L, l_batch);
  lua_setfield(L, -2, "batch");
  run_module_lua(L, module_lua::http_lua, "=stampede.http");
  return 1;
}

}  // namespace stampede::scenario
