---@meta stampede.channels

---Options of `channels.connect`.
---@class stampede.channels.ConnectOptions
---@field params? table<string, any> Query parameters: what `UserSocket.connect/3` receives.
---@field transport? "websocket"|"longpoll" Default "websocket" (`<url>/websocket`). "longpoll": Phoenix's LongPoll transport as phoenix.js's `LongPoll` runs it (`<url>/longpoll`: a GET held by the server for messages, a POST per batch of pushes, no heartbeats unless `heartbeat` is given); the same calls and `channel.*` metrics, plus `longpoll.poll` and `longpoll.errors`. A session the server ended (status 410) is reconnected (see `reconnect`).
---@field headers? table<string, string> Headers of the upgrade (of every request with `transport = "longpoll"`), e.g. `origin`, `cookie`.
---@field serializer? "2.0.0"|"1.0.0"|stampede.channels.Serializer The wire format (default "2.0.0", phoenix.js's).
---@field heartbeat? stampede.Duration|false Heartbeat interval (default "30s"; with `transport = "longpoll"` none, as phoenix.js); false: none. A reply later than the interval closes the socket, as phoenix.js does.
---@field timeout? stampede.Duration Connect, joins and pushes (default 10 s).
---@field compression? boolean Offer permessage-deflate.
---@field insecure? boolean Do not verify TLS.
---@field local_addresses? string|string[] Source addresses for this socket, taken in turn: "127.0.0.2-127.0.0.9", "10.0.0.5,10.0.0.6" or a list (default: the run's `--local-addresses`).
---@field reconnect? boolean Reconnect a connection lost after the socket opened, as phoenix.js's Socket does (default true with `transport = "longpoll"`, false over a WebSocket, where a lost connection closes the socket): tries after 10, 50, 100, 150, 200, 250, 500 ms, 1 s, 2 s, then every 5 s (`channel.reconnects`, `channel.reconnect.errors`); once open, every joined channel rejoins with its join payload (`channel.rejoin`). Calls in flight when the connection went fail `closed`; calls made while it reconnects wait for it (and for their channel's rejoin) within their timeout; `await` waits through it. A heartbeat timeout or a frame that is not Phoenix still closes the socket.
---@field buffer? integer Messages kept for `await` (default 1000); beyond it they count as `channel.messages.dropped`.

---A serializer of your own, for servers with message types of their own.
---@class stampede.channels.Serializer
---@field encode fun(msg: table): string
---@field decode fun(text: string): table
---@field vsn string The `vsn` query parameter.

---Options of the calls that wait for a reply.
---@class stampede.channels.CallOptions
---@field timeout? stampede.Duration Default: the socket's `timeout`.

---Options of `socket:await`.
---@class stampede.channels.AwaitOptions
---@field match? fun(payload: any, msg: table): boolean Skip messages until this is true.
---@field timeout? stampede.Duration Default 10 s; then a `timeout` error.

---A Phoenix socket (one WebSocket, many channels). Errors are `stampede.error` objects:
---`join_error`, `push_error`, `leave_error`, `timeout`, `channel_crashed`, `channel_closed`,
---`closed`. Closed when the iteration ends, however it ends.
---@class stampede.channels.Socket
---@field url string
local Socket = {}

---Joins `topic` and returns the reply's response. A refused join raises `join_error`
---(`err.response` is the server's reason).
---@param topic string
---@param payload? table The join params.
---@param opts? stampede.channels.CallOptions
---@return any response
function Socket:join(topic, payload, opts) end

---Pushes `event` and waits for the reply; returns its response. An `{:error, ...}` reply raises `push_error`.
---@param topic string
---@param event string
---@param payload? table|stampede.channels.Binary
---@param opts? stampede.channels.CallOptions
---@return any response
function Socket:push(topic, event, payload, opts) end

---Pushes without waiting for a reply (`handle_in` returning `{:noreply, socket}`).
---@param topic string
---@param event string
---@param payload? table|stampede.channels.Binary
function Socket:cast(topic, event, payload) end

---Leaves the channel.
---@param topic string
---@param opts? stampede.channels.CallOptions
---@return any response
function Socket:leave(topic, opts) end

---The next push or broadcast on `topic` with `event` (any event when nil) for which
---`match(payload)` is true. Messages are kept from the moment the socket opened, so
---nothing that arrived before the call is lost.
---@param topic string
---@param event? string
---@param opts? stampede.channels.AwaitOptions
---@return any payload
---@return table msg
function Socket:await(topic, event, opts) end

---Closes the socket.
function Socket:close() end

---Whether the socket is open.
---@return boolean
function Socket:is_open() end

---A payload sent as a V2 binary frame: `channels.binary(bytes)`.
---@class stampede.channels.Binary
---@field data string

---A Phoenix Presence view of a topic, synced from `presence_state` and `presence_diff`
---as phoenix.js does.
---@class stampede.channels.Presence
local Presence = {}

---Who is present: `{ [id] = { metas = { ... } } }`.
---@return table<string, { metas: table[] }>
function Presence:list() end

---Waits until `fn(list)` is true; returns the list.
---@param fn fun(list: table<string, { metas: table[] }>): boolean
---@param opts? stampede.channels.CallOptions
---@return table<string, { metas: table[] }>
function Presence:await(fn, opts) end

---Waits until `id` is present.
---@param id string
---@param opts? stampede.channels.CallOptions
---@return table<string, { metas: table[] }>
function Presence:await_user(id, opts) end

---GraphQL over Absinthe's channel (`__absinthe__:control`).
---@class stampede.channels.Absinthe
local Absinthe = {}

---Starts a subscription; returns its `subscriptionId`.
---@param query string
---@param variables? table
---@param opts? stampede.channels.CallOptions
---@return string subscription_id
function Absinthe:subscribe(query, variables, opts) end

---The next `subscription:data` result of a subscription (for which `opts.match(result)` is true).
---@param subscription_id string
---@param opts? stampede.channels.AwaitOptions
---@return table result
function Absinthe:await(subscription_id, opts) end

---Ends a subscription.
---@param subscription_id string
---@param opts? stampede.channels.CallOptions
function Absinthe:unsubscribe(subscription_id, opts) end

---Runs a query or a mutation; returns its result.
---@param query string
---@param variables? table
---@param opts? stampede.channels.CallOptions
---@return table result
function Absinthe:run(query, variables, opts) end

---`require "stampede.channels"`: the Phoenix Channels client (phoenix.js's protocol).
local channels = {}

---Opens a socket: `channels.connect("ws://127.0.0.1:4000/socket", { params = { token = t } })`.
---`/websocket` and `vsn` are added as phoenix.js does; `http(s)://` becomes `ws(s)://`.
---Raises `connect_error`.
---@param url string
---@param opts? stampede.channels.ConnectOptions
---@return stampede.channels.Socket
function channels.connect(url, opts) end

---A payload sent as a V2 binary frame; binary replies and pushes come back as strings.
---@param data string
---@return stampede.channels.Binary
function channels.binary(data) end

---A Presence view of `topic` on `socket` (join the topic first, or after: nothing is lost).
---@param socket stampede.channels.Socket
---@param topic string
---@return stampede.channels.Presence
function channels.presence(socket, topic) end

---Joins `__absinthe__:control` on `socket` for GraphQL subscriptions.
---@param socket stampede.channels.Socket
---@param opts? stampede.channels.CallOptions
---@return stampede.channels.Absinthe
function channels.absinthe(socket, opts) end

return channels
