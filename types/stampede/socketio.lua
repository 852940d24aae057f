---@meta stampede.socketio

---Options of `socketio.connect`.
---@class stampede.socketio.ConnectOptions
---@field namespace? string The namespace to join (default: the URL's path, else "/"), as `io("http://host/chat")` does.
---@field auth? table The CONNECT packet's auth payload (`socket.handshake.auth` on the server).
---@field transport? "websocket"|"polling" "websocket" (the default, socket.io-client's `transports: ["websocket"]`) or "polling": the handshake by long-polling (an `http.request`), then the upgrade to the WebSocket, as socket.io-client starts by default.
---@field path? string The server's path (default "/socket.io/").
---@field query? table<string, string> More query parameters of the Engine.IO URL.
---@field headers? table<string, string> Headers of the upgrade (and the polling request).
---@field timeout? stampede.Duration The handshake and the namespace's CONNECT (default 10 s).
---@field buffer? integer Events kept for `await` (default 1000).
---@field compression? boolean Offer permessage-deflate.
---@field insecure? boolean Do not verify TLS.
---@field local_addresses? string|string[] Source addresses for this socket (default: the run's `--local-addresses`).

---Options of `socket:emit`.
---@class stampede.socketio.EmitOptions
---@field ack? boolean Ask the server for an acknowledgement and wait for it: `emit` returns its arguments.
---@field timeout? stampede.Duration With `ack`: default 10 s; then a `timeout` error.

---Options of `socket:await`.
---@class stampede.socketio.AwaitOptions
---@field match? fun(first: any, msg: stampede.socketio.Message): boolean Skip events until this is true (skipped ones stay for later awaits).
---@field timeout? stampede.Duration Default 10 s; then a `timeout` error.

---A received event.
---@class stampede.socketio.Message
---@field event string
---@field args any[] Its arguments (binary attachments as strings).
---@field namespace string
---@field ack_id? integer Set when the server waits for an acknowledgement: answer with `socket:ack(msg, data)`.

---Several arguments for one `emit` or `ack`: `sio.args(a, b, c)`.
---@class stampede.socketio.Args

---Bytes sent as a binary attachment: `sio.binary(data)`.
---@class stampede.socketio.Binary

---One namespace of a Socket.IO connection (Engine.IO 4 over a WebSocket; the server's pings
---are answered). Errors are `stampede.error` objects: `timeout`, `closed` (`err.reason`: the
---disconnect reason), `connect_error`. Closed when the iteration ends.
---@class stampede.socketio.Socket
---@field url string
---@field namespace string
---@field id string The namespace's socket id (the server's `socket.id`).
local Socket = {}

---Sends an event with `data` (nil: no argument; `sio.args(...)`: several; `sio.binary(s)`
---anywhere inside: bytes). With `{ ack = true }`, waits for the acknowledgement and returns
---its arguments.
---@param event string
---@param data? any
---@param opts? stampede.socketio.EmitOptions
---@return any ...
function Socket:emit(event, data, opts) end

---The next event named `event` (nil: any) on this namespace: its first argument, and the
---whole message. Raises `timeout`, or `closed` once the namespace is disconnected.
---@param event? string
---@param opts? stampede.socketio.AwaitOptions
---@return any first
---@return stampede.socketio.Message msg
function Socket:await(event, opts) end

---Answers an event that asked for an acknowledgement (`msg.ack_id`).
---@param msg stampede.socketio.Message
---@param data? any As for `emit`.
function Socket:ack(msg, data) end

---Joins another namespace on the same connection.
---@param namespace string
---@param opts? { auth?: table }
---@return stampede.socketio.Socket
function Socket:of(namespace, opts) end

---Leaves this namespace (DISCONNECT); the connection closes once no namespace is left.
function Socket:disconnect() end

---Closes the whole connection (every namespace).
function Socket:close() end

---Whether this namespace is connected.
---@return boolean
function Socket:connected() end

---Why this namespace disconnected (socket.io-client's reasons: "io server disconnect",
---"io client disconnect", "ping timeout", "transport close", "transport error", "parse error"),
---nil while connected.
---@return string?
function Socket:disconnect_reason() end

---`require "stampede.socketio"`: Socket.IO v4 clients.
local socketio = {}

---Connects and joins a namespace: `socketio.connect("http://127.0.0.1:3000", { namespace = "/chat" })`.
---Raises `connect_error` (`err.reason`: `connect_error` when the namespace refused, `timeout`,
---`handshake`, `parse error`, `ping timeout`, or the WebSocket's: `refused`, ...).
---@param url string http(s):// or ws(s)://
---@param opts? stampede.socketio.ConnectOptions
---@return stampede.socketio.Socket
function socketio.connect(url, opts) end

---Marks bytes to send as a binary attachment.
---@param data string
---@return stampede.socketio.Binary
function socketio.binary(data) end

---Several arguments for one `emit` or `ack`.
---@param ... any
---@return stampede.socketio.Args
function socketio.args(...) end

return socketio
