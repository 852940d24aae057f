---@meta stampede.error

---The errors the clients raise are tables with a `kind`, a `message` and a `__tostring`
---that reads well in the summary; catch them with `pcall`.
---@class stampede.Error
---@field kind string connect_error, join_error, push_error, leave_error, timeout, channel_crashed, channel_closed, closed, page_error, version_error, event_error, upload_error, view_crashed, not_found, live_redirect, redirect, ...
---@field message string
---@field response? any The server's reply, where there is one.
---@field reason? string A short reason, e.g. "unauthorized".
---@field status? integer An HTTP status (connect errors, page errors).
---@field to? string Where a live_redirect or redirect leads (an absolute URL).

---`require "stampede.error"`: raise and recognise errors of the same shape in your own modules.
local errors = {}

---Makes an error object (not raised).
---@param kind string
---@param message string
---@param response? any
---@param extra? table more fields
---@return stampede.Error
function errors.new(kind, message, response, extra) end

---Raises an error object; `level` as in Lua's `error`.
---@param kind string
---@param message string
---@param response? any
---@param level? integer
---@param extra? table more fields
function errors.raise(kind, message, response, level, extra) end

---True when `value` is an error object (of `kind`, when given).
---@param value any
---@param kind? string
---@return boolean
function errors.is(value, kind) end

return errors
