---@meta stampede.sse

---Options of `sse.connect`.
---@class stampede.sse.ConnectOptions
---@field headers? table<string, string> Sent with every attempt. `Accept: text/event-stream` and `Cache-Control: no-cache` are added unless given; `Last-Event-ID` is the stream's own (use `last_event_id`).
---@field method? string Default "GET"; e.g. "POST" for a token stream that takes a body.
---@field body? string Sent with every attempt.
---@field timeout? stampede.Duration Each attempt: connect, TLS and request, to the response head (default 10 s).
---@field reconnect? boolean When the server ends the stream (or it drops), connect again after the reconnection time with `Last-Event-ID`, as EventSource does (default true). false: the stream closes.
---@field retry? stampede.Duration The reconnection time until the server sends `retry:` (default 3 s).
---@field last_event_id? string Sent as `Last-Event-ID` from the first attempt on.
---@field buffer? integer Events kept for `await` (default 1000); beyond it the oldest go (`sse.errors` "dropped").
---@field max_event_size? integer An event larger than this (bytes) closes the stream (`sse.errors` "too big"; default 1 MiB).
---@field insecure? boolean Do not verify TLS.
---@field local_addresses? string|string[] Source addresses for this connection, taken in turn: "127.0.0.2-127.0.0.9", "10.0.0.5,10.0.0.6" or a list (default: the run's `--local-addresses`).

---A received event.
---@class stampede.sse.Event
---@field event string Its type: "message" unless the stream named one with `event:`.
---@field data string Its data lines, joined with "\n".
---@field id string The stream's last event ID when it was dispatched ("" when none).

---Options of `stream:await`.
---@class stampede.sse.AwaitOptions
---@field event? string Only events of this type.
---@field match? fun(ev: stampede.sse.Event): boolean Skip events until this is true (skipped ones stay for later awaits).
---@field timeout? stampede.Duration Default 10 s; then a `timeout` error.

---A Server-Sent Events stream, as a browser's EventSource keeps one: events are kept until
---`await` reads them; when the server ends the stream it is opened again after the
---reconnection time (the server's `retry:`) with `Last-Event-ID`. A response that is not 200
---`text/event-stream` ends it for good. Errors are `stampede.error` objects: `timeout`,
---`closed`. Closed when the iteration ends.
---@class stampede.sse.Stream
---@field url string
local Stream = {}

---The next event (of type `opts.event`, for which `opts.match` is true). Raises `timeout`, or
---`closed` once the stream has ended for good and nothing kept matches.
---@param opts? stampede.sse.AwaitOptions
---@return stampede.sse.Event
function Stream:await(opts) end

---Closes the stream (no reconnection).
function Stream:close() end

---Whether a response is streaming now (false while reconnecting and once closed).
---@return boolean
function Stream:is_open() end

---The last event ID: what a reconnection sends as `Last-Event-ID`.
---@return string
function Stream:last_event_id() end

---How many times the stream was opened again after the first.
---@return integer
function Stream:reconnects() end

---`require "stampede.sse"`: Server-Sent Events (`text/event-stream`).
local sse = {}

---Opens a stream: `sse.connect("http://127.0.0.1:4000/events")`, returning once the response
---head is accepted. Raises `connect_error` (`err.reason`: `refused`, `timeout`, `status`,
---`content-type`, ...; `err.status`: the response's status).
---@param url string http:// or https://
---@param opts? stampede.sse.ConnectOptions
---@return stampede.sse.Stream
function sse.connect(url, opts) end

return sse
