-- The Lua half of `stampede.liveview` (src/scenario/module_liveview.cpp holds the C half and
-- passes its functions in as `c`): the user-facing View methods, and the error objects failed
-- outcomes become. No protocol here: the page, the socket and every payload are the C++
-- client's (clients/liveview_session.hpp); form values are flattened into Plug's nested names
-- by proto/form.hpp. Embedded at build time (cmake/ScenarioLua.cmake), syntax-checked by
-- luac5.1 (test_docs_reference.py) and tested with a stand-in `c`
-- (tests/unit/scenario/module_lua_test.cpp).
local c = ...
local errors = require "stampede.error"
local now = require("stampede").now

local M = {}
local View = {}
View.__index = View

-- An outcome table from C -> the reply, or a stampede.error object of its kind.
local function check(r, level)
  if r.ok then return r.reply end
  local extra = { reason = r.reason ~= "" and r.reason or nil, to = r.to, status = r.status }
  if r.kind == "live_redirect" then extra.live_redirect = r.navigation end
  if r.kind == "redirect" then extra.redirect = r.navigation end
  errors.raise(r.kind, "liveview: " .. r.message, r.response, (level or 2) + 1, extra)
end

function M.connect(url, opts)
  local handle, failure = c.connect(url, opts)
  if not handle then check(failure, 2) end
  return setmetatable({ _h = handle }, View)
end

for _, kind in ipairs({ "click", "keyup", "keydown", "blur", "focus", "hook" }) do
  View[kind] = function(self, event, value, opts)
    return check(c.event(self._h, kind, event, value, opts), 2)
  end
end

-- values: {post = {title = "Hi"}} (sent as post[title]=Hi) or a URL-encoded string
function View:change(event, values, opts)
  return check(c.form(self._h, "change", event, values, opts), 2)
end

function View:submit(event, values, opts)
  return check(c.form(self._h, "submit", event, values, opts), 2)
end

function View:patch(url, opts)
  opts = opts or {}
  check(c.patch(self._h, url, opts.timeout), 2)
  return self
end

function View:navigate(url, opts)
  opts = opts or {}
  check(c.navigate(self._h, url, opts.flash), 2)
  return self
end

-- Follows a live_redirect or redirect error the way the browser would.
function View:follow(err)
  if errors.is(err, "live_redirect") then
    check(c.navigate(self._h, err.live_redirect.to, err.live_redirect.flash), 2)
  elseif errors.is(err, "redirect") then
    check(c.load(self._h, err.redirect.to), 2)
  else
    error("view:follow(err): err must be a live_redirect or redirect error, not " .. tostring(err), 2)
  end
  return self
end

function View:upload(name, files, opts)
  check(c.upload(self._h, name, files, opts), 2)
end

-- await({event = name, match = fn(payload, msg), timeout = ms}) -> payload, msg
-- msg: {kind = "diff"|"event"|"live_patch", view = id, event = name, to = url, payload = ...}
function View:await(opts)
  opts = opts or {}
  local budget = opts.timeout == nil and 10000 or opts.timeout
  local deadline = type(budget) == "number" and (now() + budget) or nil
  local after = 0
  while true do
    local remaining = deadline and math.max(0, deadline - now()) or budget
    local msg = c.next(self._h, after, remaining)
    if msg then
      local wanted = (opts.event == nil or (msg.kind == "event" and msg.event == opts.event))
      if wanted and (not opts.match or opts.match(msg.payload, msg)) then
        c.consume(self._h, msg.seq)
        return msg.payload, msg
      end
      after = msg.seq
    else
      local state = c.state(self._h)
      if not state.ok then check(state, 2) end
      if not deadline or now() >= deadline then
        errors.raise("timeout", "liveview: view:await" .. (opts.event and (" " .. opts.event) or "") ..
          ": nothing matching arrived in time", nil, 2)
      end
    end
  end
end

function View:html() return c.html(self._h) end
function View:text(selector) return c.text(self._h, selector) end
function View:url() return c.url(self._h) end
function View:title() return c.title(self._h) end
function View:version() return c.version(self._h) end
function View:is_open() return c.is_open(self._h) end
function View:close() c.close(self._h) end

return M
