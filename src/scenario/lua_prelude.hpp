#pragma once
// Lua code built into the binary. Chunk names start with "=" so that error locations and
// the error handler never point into Stampede's own code, only into the user's files.

namespace stampede::scenario {

// Called with (DONE): returns (vu_main, lifecycle_main, handler).
// vu_main(run, vu) loops forever: each resume from the engine runs one iteration, then
// yields (DONE, ok, message). The handler turns any error value into a message that starts
// with the user's file:line where one is known.
inline constexpr const char* kVuLoopLua = R"lua(
local DONE = ...
local getinfo, tostring, type, pcall = debug.getinfo, tostring, type, pcall
local pairs, ipairs, getmetatable = pairs, ipairs, getmetatable
local format, sort, concat = string.format, table.sort, table.concat

local function user_location(level)
  while true do
    local info = getinfo(level, "Sl")
    if not info then return nil end
    if info.what ~= "C" and info.source:sub(1, 1) == "@" and (info.currentline or 0) > 0 then
      return info.short_src .. ":" .. info.currentline
    end
    level = level + 1
  end
end

-- A table raised without a __tostring would read "table: 0x7feb...", a new message (and a
-- new row of the summary) for every iteration. Its fields instead, in a stable order.
local function plain_value(v)
  if type(v) == "string" then return format("%q", v) end
  if type(v) == "number" or type(v) == "boolean" then return tostring(v) end
  return type(v) == "table" and "{...}" or type(v)
end

local function describe_table(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for i, k in ipairs(keys) do
    if i > 8 then parts[#parts + 1] = "..." break end
    local name = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or "[" .. plain_value(k) .. "]"
    parts[#parts + 1] = name .. " = " .. plain_value(t[k])
  end
  return "error {" .. concat(parts, ", ") .. "}"
end

local function handler(err)
  local msg
  local mt = type(err) == "table" and getmetatable(err)
  if type(err) == "string" then
    msg = err
  elseif type(err) == "table" and not (type(mt) == "table" and mt.__tostring) then
    msg = describe_table(err)
  else
    local ok, s = pcall(tostring, err)
    msg = ok and s or "(an error object whose __tostring failed)"
  end
  if not msg:find("^[^\n]-:%d+: ") then
    local loc = user_location(3)
    if loc then msg = loc .. ": " .. msg end
  end
  return msg
end

local yield, xpcall = coroutine.yield, xpcall
local function vu_main(run, vu)
  while true do
    local ok, err = xpcall(run, handler, vu)
    yield(DONE, ok, err)
  end
end

local function lifecycle_main(fn, arg)
  local ok, result = xpcall(fn, handler, arg)
  yield(DONE, ok, result)
end

return vu_main, lifecycle_main, handler
)lua";

}  // namespace stampede::scenario
