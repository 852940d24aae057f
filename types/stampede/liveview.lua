---@meta stampede.liveview

---Options of `live.connect`.
---@class stampede.liveview.ConnectOptions
---@field socket_path? string The Endpoint's LiveView socket (default "/live": `socket "/live", Phoenix.LiveView.Socket`).
---@field transport? "websocket"|"longpoll" Default "websocket". "longpoll": the socket at `<socket_path>/longpoll`, as a browser polls it after `longPollFallbackMs` (the page's cookies on every request, no heartbeats); the same calls and `live.*` metrics, plus `longpoll.poll` and `longpoll.errors`.
---@field timeout? stampede.Duration Page GET, socket and joins (default 10 s).
---@field event_timeout? stampede.Duration Events, patches and uploads (default 30 s).
---@field headers? table<string, string> Headers of the page GET.
---@field params? table<string, any> The app's `LiveSocket` params, e.g. `{ timezone = "UTC" }`.
---@field origin? boolean|string `true`: send the page's origin as a browser does; or a string (default: none).
---@field heartbeat? stampede.Duration|false Default "30s" (none with `transport = "longpoll"`); false: none.
---@field redirects? integer Redirects followed by the page GET (default 10).
---@field buffer? integer Pushes kept for `await` (default 100).
---@field compression? boolean Offer permessage-deflate.
---@field insecure? boolean Do not verify TLS.
---@field reconnect? boolean Reconnect a connection lost after the socket opened, as phoenix.js's Socket does, and rejoin every view as phoenix_live_view's JS does (default true with `transport = "longpoll"`, false over a WebSocket, where a lost connection closes the view): tries after 10, 50, 100, 150, 200, 250, 500 ms, 1 s, 2 s, then every 5 s (`channel.reconnects`, `channel.reconnect.errors`); once open, each view rejoins with the same session and static tokens, the page's current URL and `_mounts` one higher (`live.rejoin`), the rejoin reply's page replaces the view's (the server mounted it again), and nested LiveViews are joined again as new ones. Calls in flight when the connection went fail `closed`; calls made while it reconnects wait for their view's rejoin within their timeout; `await` waits through it. A refused rejoin ends the view (`live.rejoin.errors`; a browser reloads the page then: `live.connect` it again).

---Options of the event calls (`click`, `change`, `submit`, ...).
---@class stampede.liveview.EventOptions
---@field target? integer|string A component's cid (`phx-target={@myself}`); default: the element's.
---@field element? string A selector for the element clicked.
---@field view? string A nested LiveView's id.
---@field field? string `change`: the input that changed (default: the first of `values`); must be a field of the form.
---@field form? string `change`/`submit`: a selector for the form, or for an input in it. Default: the first form whose phx-change/phx-submit is the event (or a `JS.push` of it); for `change`, else the form around an input with its own phx-change bound to the event, and then only that input is sent.
---@field timeout? stampede.Duration Default: the view's `event_timeout`.

---A file for `view:upload`.
---@class stampede.liveview.File
---@field name string
---@field content string
---@field type? string Guessed from the name when absent.

---Options of `view:await`.
---@class stampede.liveview.AwaitOptions
---@field event? string A `push_event` name.
---@field match? fun(payload: any, msg: stampede.liveview.Push): boolean
---@field timeout? stampede.Duration

---A push the LiveView sent by itself.
---@class stampede.liveview.Push
---@field kind "diff"|"event"|"live_patch"
---@field event? string The `push_event` name (kind "event").
---@field to? string The new URL (kind "live_patch").

---One browser tab on a LiveView page: the page as the user sees it (every diff merged),
---its socket, its joined LiveViews. A reply that navigates raises `live_redirect` or
---`redirect` (pass the error to `view:follow`); other failures raise `stampede.error`
---objects (`page_error`, `join_error`, `event_error`, `view_crashed`, `timeout`, `not_found`, ...).
---An event, patch or upload on a view the server closed or that crashed raises `closed` and is
---counted (`live.event.errors`, `live.patch.errors` or `live.upload.errors` `closed`, and one
---failed request); not after the scenario's own `view:close()`. Closed when the iteration ends.
---@class stampede.liveview.View
local View = {}

---A `phx-click`; returns handle_event's reply map (nil when none). Without `value`, the
---value the browser would send is read from the element bound to `event`.
---@param event string
---@param value? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:click(event, value, opts) end

---A `phx-keyup`, e.g. `view:keyup("search", { key = "Enter" })`.
---@param event string
---@param value? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:keyup(event, value, opts) end

---A `phx-keydown`.
---@param event string
---@param value? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:keydown(event, value, opts) end

---A `phx-blur`.
---@param event string
---@param value? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:blur(event, value, opts) end

---A `phx-focus`.
---@param event string
---@param value? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:focus(event, value, opts) end

---A JS hook's `pushEvent(event, payload)`.
---@param event string
---@param payload? table
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:hook(event, payload, opts) end

---A `phx-change`: `values` such as `{ post = { title = "Hi" } }` are typed into the form
---on the page and the whole form is sent as the browser sends it (see `opts.form` for which
---form). As in `Phoenix.LiveViewTest`, every name in `values` (and `opts.field`) must be an enabled field of that
---form: no such form or field raises `not_found` before anything is sent (not counted), its
---message listing the page's forms or the form's fields.
---@param event string
---@param values table|string A table or a URL-encoded string.
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:change(event, values, opts) end

---A `phx-submit`, the same way as `change` (the form is found by its phx-submit).
---@param event string
---@param values table|string
---@param opts? stampede.liveview.EventOptions
---@return table|nil reply
function View:submit(event, values, opts) end

---A `live_patch` (`<.link patch>`): `handle_params` runs, the URL changes.
---@param url string
---@param opts? stampede.liveview.EventOptions
function View:patch(url, opts) end

---A `<.link navigate>`: joins the new LiveView over the same socket (or loads the page when
---the server refuses). Returns the view.
---@param url string
---@param opts? stampede.liveview.EventOptions
---@return stampede.liveview.View
function View:navigate(url, opts) end

---Follows a `live_redirect` error (live navigation, with its flash) or a `redirect` error
---(a full page load). Returns the view.
---@param err stampede.Error
---@return stampede.liveview.View
function View:follow(err) end

---A `live_file_input` upload (`allow_upload`, then each file in 64,000-byte chunks over its
---`lvu:` channel). Submit the form afterwards.
---@param name string The upload's name (`allow_upload(socket, :avatar, ...)`).
---@param files stampede.liveview.File[]
---@param opts? stampede.liveview.EventOptions
function View:upload(name, files, opts) end

---The next push the LiveView sent by itself (diff, `push_event`, `live_patch`), from the
---join on. Returns the payload and the message.
---@param opts? stampede.liveview.AwaitOptions
---@return any payload
---@return stampede.liveview.Push msg
function View:await(opts) end

---The rendered page (HTML).
---@return string
function View:html() end

---The text of the first element matching a selector (`tag`, `#id`, `.class`,
---`[attr=value]`, descendants), nil when none.
---@param selector string
---@return string|nil
function View:text(selector) end

---The current URL.
---@return string
function View:url() end

---The page title.
---@return string|nil
function View:title() end

---The server's LiveView version as its join reply says it, e.g. "1.0.2" ("0.20.x (before
---0.20.15)" for a server that does not say). Before a join reply, only what the page tells:
---"0.20 to 1.0.5 (session token format 5)" or "1.0.6 or later (session token format 6)".
---@return string
function View:version() end

---Closes the view's socket.
function View:close() end

---Whether the view's socket is open (or reconnecting, with `reconnect`).
---@return boolean
function View:is_open() end

---`require "stampede.liveview"`: a LiveView client that behaves like a browser tab.
local live = {}

---Loads the page with the VU's HTTP client (redirects followed, cookies kept), opens its
---socket and joins its LiveViews (nested ones too). Returns the view. Raises `page_error`,
---`connect_error`, `join_error` or `version_error`.
---@param url string
---@param opts? stampede.liveview.ConnectOptions
---@return stampede.liveview.View
function live.connect(url, opts) end

return live
