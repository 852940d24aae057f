---@meta stampede.json

---`require "stampede.json"`: JSON as the clients read and write it.
local json = {}

---Encodes a Lua value as JSON text (tables with keys 1..n are arrays).
---@param value any
---@return string
function json.encode(value) end

---Decodes JSON text; JSON null is `json.null`. Raises on malformed text.
---@param text string
---@return any
function json.decode(text) end

---The value JSON null decodes to (and encodes from).
---@type lightuserdata
json.null = nil

return json
