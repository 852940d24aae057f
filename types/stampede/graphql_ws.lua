---@meta stampede.graphql_ws

---Options of `graphql_ws.connect`.
---@class stampede.graphql_ws.ConnectOptions
---@field subprotocol? "graphql-transport-ws"|"graphql-ws" The protocol: "graphql-transport-ws" (npm graphql-ws 5+, absinthe_graphql_ws; the default) or "graphql-ws" (the legacy subscriptions-transport-ws).
---@field payload? table `connection_init`'s payload (e.g. `{ token = "..." }`).
---@field headers? table<string, string> Headers of the upgrade, e.g. `origin`, `cookie`.
---@field timeout? stampede.Duration The WebSocket connect and handshake (default 10 s); also the ack's unless `ack_timeout` is given.
---@field ack_timeout? stampede.Duration `connection_init` to `connection_ack`.
---@field buffer? integer Results kept for `await` (default 1000).
---@field compression? boolean Offer permessage-deflate.
---@field insecure? boolean Do not verify TLS.
---@field local_addresses? string|string[] Source addresses for this socket (default: the run's `--local-addresses`).

---Options of `client:subscribe` and `client:query`.
---@class stampede.graphql_ws.OperationOptions
---@field variables? table
---@field operation_name? string
---@field extensions? table
---@field timeout? stampede.Duration `query` only: how long to wait for the result (default 10 s).

---Options of `client:await`.
---@class stampede.graphql_ws.AwaitOptions
---@field match? fun(result: table): boolean Skip results until this is true (skipped ones stay for later awaits).
---@field timeout? stampede.Duration Default 10 s; then a `timeout` error.

---A GraphQL-over-WebSocket connection, acknowledged by the server (`connection_ack`). Server
---pings are answered. Errors are `stampede.error` objects: `graphql_error` (the operation's
---error: `err.response` holds the GraphQL errors), `complete` (the operation ended),
---`timeout`, `closed`. Closed when the iteration ends.
---@class stampede.graphql_ws.Client
---@field url string
---@field ack any `connection_ack`'s payload (nil when none).
local Client = {}

---Starts an operation (`subscribe`, legacy `start`) and returns its id.
---@param query string
---@param opts? stampede.graphql_ws.OperationOptions
---@return string id
function Client:subscribe(query, opts) end

---The operation's next result (`{ data = ..., errors = ... }`). Raises `graphql_error` when the
---server answered with an error, `complete` once it completed and nothing kept is left.
---@param id string
---@param opts? stampede.graphql_ws.AwaitOptions
---@return table result
function Client:await(id, opts) end

---A query or mutation over the socket: subscribe, its first result, then complete.
---@param query string
---@param opts? stampede.graphql_ws.OperationOptions
---@return table result
function Client:query(query, opts) end

---Stops an operation (`complete`, legacy `stop`).
---@param id string
function Client:unsubscribe(id) end

---The same as `unsubscribe`, under the protocol's name.
---@param id string
function Client:complete(id) end

---Whether an operation has ended (its `error` or `complete` arrived, or it was unsubscribed).
---@param id string
---@return boolean
function Client:finished(id) end

---Closes the connection (legacy: `connection_terminate` first).
function Client:close() end

---Whether the connection is open.
---@return boolean
function Client:is_open() end

---`require "stampede.graphql_ws"`: GraphQL over WebSocket (for Absinthe over Phoenix
---channels use `channels.absinthe`).
local graphql_ws = {}

---Connects, sends `connection_init` and returns once `connection_ack` arrives:
---`graphql_ws.connect("ws://127.0.0.1:4000/graphql", { payload = { token = "t" } })`. Raises
---`connect_error` (`err.reason`: `closed 4403`, `connection_error`, `ack timeout`,
---`subprotocol`, `protocol`, or the WebSocket's: `refused`, `handshake`, ...).
---@param url string ws:// or wss://
---@param opts? stampede.graphql_ws.ConnectOptions
---@return stampede.graphql_ws.Client
function graphql_ws.connect(url, opts) end

return graphql_ws
