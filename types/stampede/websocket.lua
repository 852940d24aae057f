---@meta stampede.websocket

---Options of `websocket.connect`.
---@class stampede.websocket.ConnectOptions
---@field headers? table<string, string> Headers of the upgrade request.
---@field subprotocols? string[] Offered in `sec-websocket-protocol`.
---@field timeout? stampede.Duration The connect and handshake (default 10 s).
---@field compression? boolean Offer permessage-deflate.
---@field insecure? boolean Do not verify TLS.
---@field local_addresses? string|string[] Source addresses for this socket, taken in turn: "127.0.0.2-127.0.0.9", "10.0.0.5,10.0.0.6" or a list (default: the run's `--local-addresses`).
---@field max_message_size? integer Bigger messages close the socket (default 16 MiB).

---A received message.
---@class stampede.websocket.Message
---@field type "text"|"binary"
---@field data string

---Options of `ws:await`.
---@class stampede.websocket.AwaitOptions
---@field match? fun(msg: stampede.websocket.Message): boolean Skip messages until this is true (skipped ones stay for later awaits).
---@field timeout? stampede.Duration Default 10 s; then a `timeout` error.

---A plain WebSocket connection. Pings are answered; received messages are kept until
---`await` reads them, even after the server closed. Closed when the iteration ends.
---@class stampede.websocket.Socket
local Socket = {}

---Sends a text message.
---@param text string
function Socket:send(text) end

---Sends a binary message.
---@param data string
function Socket:send_binary(data) end

---The next received message (for which `match` is true).
---@param opts? stampede.websocket.AwaitOptions
---@return stampede.websocket.Message
function Socket:await(opts) end

---Closes the connection with a close code (default 1000) and reason.
---@param code? integer
---@param reason? string
function Socket:close(code, reason) end

---Whether the connection is still open.
---@return boolean
function Socket:is_open() end

---`require "stampede.websocket"`: plain WebSockets (for Phoenix Channels use `stampede.channels`).
local websocket = {}

---Opens a WebSocket: `websocket.connect("ws://127.0.0.1:4000/ws")`. Raises `connect_error`.
---@param url string ws:// or wss://
---@param opts? stampede.websocket.ConnectOptions
---@return stampede.websocket.Socket
function websocket.connect(url, opts) end

return websocket
