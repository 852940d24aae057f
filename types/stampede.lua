---@meta stampede
-- LuaLS type definitions for Stampede's Lua API (https://luals.github.io). Not loaded by
-- Stampede: they tell an editor what `require "stampede"` and friends return. They are also
-- the source of docs/reference/lua.md (scripts/reference.py writes it from these files).

---A duration: milliseconds as a number, or a string such as "250ms", "30s", "1m", "1h30m".
---@alias stampede.Duration number|string

---One stage of a ramp: `{ "30s", 500 }` (or `{ duration = "30s", target = 500 }`) moves the
---VU count (or the rate) in a straight line to `target` over the duration. A stage has no other
---keys (`{"30s", 10, ramp = "linear"}` is an error).
---@alias stampede.Stage { [1]: stampede.Duration, [2]: number, duration?: stampede.Duration, target?: number }

---A threshold: `{ "metric", key = limit, ... }`, judged as `value <= limit` at the end of the
---run. Timings (ms): `min mean p50 p90 p95 p99 max`; checks: `failed`, `failed_rate` (0..1);
---every metric: `count`, `rate` (per second); gauges: `max` (their highest level, e.g.
---`{"generator.cpu", max = 90}`). A metric that recorded nothing fails the
---threshold ("no samples"; for a name within two edits of a built-in metric's, the message says which was meant); an unknown key is an error before the run starts, and so is a limit that is not a number (`p95 = 250`, not `"250ms"`) and a key a built-in metric or a named request row `http.request.<name>` (a timing) cannot have (`{"iteration.errors", p95 = 1}`: a counter has no p95); a scenario's own metrics get their kind when first recorded, so such a threshold on one of them fails after the run.
---@alias stampede.Threshold { [1]: string, min?: number, mean?: number, p50?: number, p90?: number, p95?: number, p99?: number, max?: number, count?: number, rate?: number, failed?: number, failed_rate?: number }

---The `options` of a scenario; flags of `stampede run` override them (`--vus` and `--duration` together replace `stages`; `--rate` replaces a VU load). One load only: options that set both a VU load (`vus`/`stages`) and a rate (`rate`/`rate_stages`), or `stages` with `duration`, are an error. So is a load that runs nothing: no time at all, or 0 VUs (or a rate of 0) throughout; ramps from or to 0 are fine.
---@class stampede.Options
---@field vus? integer Closed model: this many VUs (a whole number), each starting its next iteration as soon as the last ends (with `duration`); with `stages`, the VUs they start from (as in k6).
---@field duration? stampede.Duration How long the load lasts (with `vus` or `rate`).
---@field iterations? integer Closed model: end the run once this many iterations have ended, all VUs together (k6's `iterations`, its shared-iterations executor), at least one per VU; `duration` is then the most it may take (default 10 minutes). Not with `stages` or a rate. Split evenly between the worker threads (and processes), each of which ends when its share has.
---@field stages? stampede.Stage[] Closed model with ramps: `{ {"30s", 500}, {"1m", 500}, {"10s", 0} }`. A ramp of up to ~500 VUs a second per worker thread starts (and stops) its VUs together on the thread's 100 ms grid, each at most 100 ms after the line reaches it: their connects and joins then share the thread's wake-ups. A faster ramp starts each VU when the line reaches it.
---@field rate? number Open model: iterations started per second, on schedule however long earlier ones take (with `duration`).
---@field rate_stages? stampede.Stage[] Open model with ramps: `{ {"30s", 100}, {"1m", 500} }`, from `start_rate`.
---@field start_rate? number Open model: the rate `rate_stages` start from (default 0); only with `rate_stages`.
---@field max_vus? integer Open model: the most iterations in flight; arrivals beyond it count as `iterations.dropped` (default: the peak rate, at least 100). Split evenly between the worker threads (and processes), each of which starts its own share of the arrivals: with a small `max_vus` an arrival can be dropped while another worker's VU is free, so leave headroom (or run `--threads 1`).
---@field graceful_stop? stampede.Duration How long VUs no longer needed (ramp-down, end, first Ctrl-C) may finish their iteration; in rate mode, arrivals due before the scheduled end that have not started yet still start while it lasts, the rest count as dropped; without one, those due more than 250 ms before the end count as dropped and the rest are cut off (default 0).
---@field thresholds? stampede.Threshold[] The pass/fail criteria of the run: a list, `{ {"http.request", p95 = 250}, ... }` (k6's map form, `{ ["http.request"] = {...} }`, is an error, as is any key but 1..n in `stages`, `rate_stages` and `local_addresses`).
---@field local_addresses? string|string[] Source addresses for outgoing connections: `"127.0.0.2-127.0.0.50"` or a list.
---@field insecure? boolean Do not verify TLS certificates for any request.
---@field http2? boolean Every `stampede.http` request uses HTTP/2 unless it says `http2 = false` (h2 by ALPN over TLS, falling back to HTTP/1.1 where the server does not agree; h2c with prior knowledge over http://).
---@field find_limit? stampede.FindLimit How `stampede run --find-limit` steps the load for this scenario (its flags override each field).
---@field server_metrics? stampede.ServerMetrics|string The app's Prometheus endpoint(s), scraped while the run goes, their series as `server.*` metrics next to the load's (a string: the one URL); `--server-metrics` replaces the URLs, `--server-metrics-every` the interval (docs/guides/seeing-the-server.md).

---How `--find-limit` steps the load: each step ramps for `ramp`, holds for `hold`, and the
---scenario's thresholds are judged over the hold alone; the first step that breaks one ends it.
---@class stampede.FindLimit
---@field by? "vus"|"rate" Step the VUs (default) or the arrival rate.
---@field start? number The first level (default: one step).
---@field step? number How much each step adds.
---@field up_to? number The highest level to try.
---@field hold? stampede.Duration How long each step holds its level, judged (default 30s).
---@field ramp? stampede.Duration How long each step ramps to its level, not judged (default 5s).
---@field refine? boolean After the first failing step, bisect until the limit is known within `resolution`.
---@field resolution? number The bracket `refine` settles for (default: step / 8).

---The Prometheus endpoint(s) a run scrapes (PromEx, Stampede.Probe, any exporter), once per
---`every` by one process (rank 0 of a distributed run), on a thread of its own with its own
---timeout: a slow or dead endpoint costs `server.scrape.errors` (with the reason), never the
---run's time. Each series becomes `server.` + its name and labels: gauges their level, counters
---their rate per second, histograms p50/p95/p99 per second. A mistake is an error before the run
---starts, naming the field.
---@class stampede.ServerMetrics
---@field url? string The endpoint, e.g. `"http://127.0.0.1:9568/metrics"` (http:// or https://); give `url` or `urls`.
---@field urls? string[] Several endpoints (one per node of a cluster): every series then gets `instance="host:port"` as its first label.
---@field every? stampede.Duration How often each endpoint is scraped (default `"1s"`, at least `"100ms"`).
---@field select? string[] Glob patterns (`*`, `?`) on family names to keep, e.g. `{ "erlang_vm_*", "phoenix_*" }` (a leading `server.` is allowed; default: every family).
---@field timeout? stampede.Duration Each scrape's limit, connecting included (default: half of `every`, at most 800ms); shorter than `every`.

---What a scenario file returns: these keys and no others (anything else, such as `thresholds` beside `options` instead of inside it, is an error).
---@class stampede.Scenario
---@field name? string The scenario's name in the summary and results (default: the file name).
---@field options? stampede.Options The load, thresholds and connection settings.
---@field setup? fun(): any Runs once before any VU; its JSON-serialisable result is `vu.data` in every VU.
---@field run fun(vu: stampede.Vu) One iteration of one VU (required).
---@field teardown? fun(data: any) Runs once at the end with setup's result.

---The VU running an iteration, passed to `run`.
---@class stampede.Vu
---@field id integer Unique across workers (and MPI ranks), from 1.
---@field iteration integer This VU's iteration, from 0.
---@field data any What `setup` returned, after a trip through JSON (a table that is not a list keeps number keys as strings). One table per worker, shared by its VUs: read it, do not change it (a change would be seen by that worker's VUs only); copy what a VU must change. (docs/design/025)

---`require "stampede"`: checks, your own metrics, think time, the clock, the environment.
local stampede = {}

---Counts a pass or a failure of the check `name` (shown under "checks" in the summary;
---thresholds: `failed`, `failed_rate`). Returns `ok`.
---@param name string
---@param ok any true or truthy: a pass
---@return boolean ok
function stampede.check(name, ok) end

---Runs `fn(...)` and records how long it took under the timing `name` (also when it
---raises, and then raises again). `fn` may make requests.
---@generic R
---@param name string
---@param fn fun(...): R
---@param ... any passed to fn
---@return R ... what fn returned
function stampede.measure(name, fn, ...) end

---Records a value in milliseconds under the timing `name`.
---@param name string
---@param ms number
function stampede.record(name, ms) end

---Adds `n` (default 1) to the counter `name`. A counter exists from its first increment: for a
---threshold on an event that may not happen (`{"bad", count = 0}`), call
---`stampede.increment("bad", 0)` in `run` so that zero is recorded; otherwise a run in which
---it never happened fails the threshold with "no samples".
---@param name string
---@param n? number
function stampede.increment(name, n) end

---Pauses this VU (not the thread) for a duration: think time.
---@param duration stampede.Duration
function stampede.sleep(duration) end

---Milliseconds since the run started (monotonic, sub-microsecond).
---@return number ms
function stampede.now() end

---An environment variable, or `default` when it is not set: `stampede.env("BASE_URL", "http://localhost:4000")`.
---@param name string
---@param default? string
---@return string|nil
function stampede.env(name, default) end

return stampede
