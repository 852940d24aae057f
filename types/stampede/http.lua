---@meta stampede.http

---Options of a request (every field optional).
---@class stampede.http.Options
---@field headers? table<string, string> Request headers: `{ authorization = "Bearer t" }`.
---@field query? table<string, any> Appended to the URL, percent-encoded.
---@field body? string The request body as it is.
---@field json? table Encoded as JSON; sets `content-type: application/json`.
---@field form? table URL-encoded; sets `content-type: application/x-www-form-urlencoded`.
---@field timeout? stampede.Duration The whole request, redirects included (default 60 s).
---@field redirects? integer|false How many redirects to follow (default 10; 0 or false: none).
---@field name? string Also record under `http.request.<name>`, so URLs that differ by an id share a row and a threshold. A name whose row already exists as another kind of metric is an error (`"errors"`: `http.request.errors` is a counter).
---@field insecure? boolean Do not verify TLS for this request.
---@field http2? boolean HTTP/2 for this request (default: `options.http2`, else false). Over `https://`, "h2" is offered by ALPN and the request goes over HTTP/1.1 if the server does not agree (remembered per VU and origin); over `http://`, HTTP/2 with prior knowledge (h2c). One connection per VU and origin; concurrent requests (`http.batch`) are streams on it, queued past the server's SETTINGS_MAX_CONCURRENT_STREAMS.

---A response. `status` is 0 when no response arrived; then `error` and `error_reason` say why.
---@class stampede.http.Response
---@field status integer
---@field headers table<string, string> Lowercase names.
---@field body string De-chunked and gunzipped.
---@field url string The URL after redirects.
---@field duration number Milliseconds: service time (from the request written to the response's last byte; over HTTP/2, from its HEADERS frame written); for a failure, how long it took to fail (a timeout's whole wait).
---@field proto string The protocol of the last hop: `"HTTP/1.1"`, `"HTTP/1.0"` or `"HTTP/2"`.
---@field error? string What went wrong when no response arrived.
---@field error_reason? string refused, unreachable, timeout, reset, closed, tls, dns, protocol, url, fd, ports, memory, redirects; over HTTP/2 also `rst_stream <CODE>` (the server reset the stream, e.g. `rst_stream REFUSED_STREAM`) and `goaway <CODE>` (the server went away without processing it, or closed after a GOAWAY before answering)...
local Response = {}

---The body decoded as JSON (decoded on first use, then kept). Raises when it is not JSON.
---@return any
function Response:json() end

---Options of `http.batch` (every field optional).
---@class stampede.http.BatchOptions
---@field parallel? integer How many of the batch's requests may be in flight at once (1-1000, default 20).

---`require "stampede.http"`: an HTTP/1.1 and HTTP/2 client per VU, with keep-alive
---connections and a cookie jar like a browser (shared with `stampede.liveview`).
local http = {}

---Sends several requests at once and returns their responses in the same order, each as
---`http.request` would return it (a failure is a response with `error` set; the batch itself
---raises only for bad arguments). A request is a URL (GET) or `{ method, url, opts }`:
---`http.batch({ base .. "/a", { "POST", base .. "/b", { json = {} } } })`. HTTP/2 requests to
---one origin are concurrent streams of the VU's connection; HTTP/1.1 ones each take a
---connection (an idle keep-alive one, or a new one).
---@param requests (string|table)[]
---@param opts? stampede.http.BatchOptions
---@return stampede.http.Response[]
function http.batch(requests, opts) end

---A request with any method: `http.request("PUT", url, { json = {...} })`.
---@param method string
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.request(method, url, opts) end

---GET `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.get(url, opts) end

---POST `url`: `http.post(url, { json = { title = "hi" } })`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.post(url, opts) end

---PUT `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.put(url, opts) end

---PATCH `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.patch(url, opts) end

---DELETE `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.delete(url, opts) end

---DELETE `url` (the same as `http.delete`, for a name that is not a keyword anywhere).
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.del(url, opts) end

---HEAD `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.head(url, opts) end

---OPTIONS `url`.
---@param url string
---@param opts? stampede.http.Options
---@return stampede.http.Response
function http.options(url, opts) end

return http
