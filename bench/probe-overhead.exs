# The body of bench/probe-overhead (see there); run by `mix run` in integrations/elixir.
rounds = String.to_integer(List.first(System.argv()) || "5")

telemetry =
  if Code.ensure_loaded?(:telemetry) do
    {:ok, _} = Application.ensure_all_started(:telemetry)
    "the real telemetry library"
  else
    Code.require_file("../integrations/elixir/test/support/telemetry_stand_in.exs", __DIR__)
    :ok = :telemetry.start()
    "the test stand-in for :telemetry (an ETS bag lookup per event, as telemetry 1.x)"
  end

defmodule Bench do
  def median(xs), do: xs |> Enum.sort() |> Enum.at(div(length(xs), 2))

  # CPU of the whole VM (every scheduler thread) in ms while `fun` runs.
  def cpu_ms(fun) do
    {before, _} = :erlang.statistics(:runtime)
    fun.()
    {later, _} = :erlang.statistics(:runtime)
    later - before
  end

  def start_probe(opts \\ []) do
    {:ok, pid} = Stampede.Probe.start_link(Keyword.merge([port: 0, name: nil, on_listen_error: :stop], opts))
    pid
  end

  def stop_probe(pid), do: GenServer.stop(pid)

  def table(header, rows) do
    widths = for i <- 0..(length(header) - 1), do: Enum.max(for(r <- [header | rows], do: String.length(Enum.at(r, i))))

    line = fn r -> r |> Enum.zip(widths) |> Enum.map_join(" | ", fn {c, w} -> String.pad_trailing(c, w) end) end
    Enum.join([line.(header), Enum.map_join(widths, "-|-", &String.duplicate("-", &1)) | Enum.map(rows, line)], "\n")
  end

  def f(x, d \\ 2), do: :erlang.float_to_binary(x / 1, decimals: d)

  ## 1. Telemetry events

  # A Plug.Conn-sized map: the handler reads method and status only.
  def conn do
    %{
      adapter: {:cowboy, :req},
      assigns: %{},
      body_params: %{},
      cookies: %{},
      halted: false,
      host: "localhost",
      method: "GET",
      owner: self(),
      params: %{"id" => "1"},
      path_info: ["rooms", "1"],
      path_params: %{"id" => "1"},
      port: 4000,
      private: %{phoenix_router: MyAppWeb.Router},
      query_params: %{},
      query_string: "",
      remote_ip: {127, 0, 0, 1},
      req_headers: [{"host", "localhost"}],
      request_path: "/rooms/1",
      resp_body: nil,
      resp_headers: [],
      scheme: :http,
      script_name: [],
      state: :sent,
      status: 200
    }
  end

  def execute_loop(n, durations, metadata) do
    size = tuple_size(durations)
    do_execute(n, durations, size, metadata)
  end

  defp do_execute(0, _durations, _size, _metadata), do: :ok

  defp do_execute(n, durations, size, metadata) do
    :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: elem(durations, rem(n, size))}, metadata)
    do_execute(n - 1, durations, size, metadata)
  end

  # LiveView events with `names` distinct event names, for the cap's slow path.
  def lv_loop(0, _names, _socket), do: :ok

  def lv_loop(n, names, socket) do
    :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: 1000 + n}, %{
      socket: socket,
      event: elem(names, rem(n, tuple_size(names))),
      params: %{}
    })

    lv_loop(n - 1, names, socket)
  end

  ## 2. HTTP

  def start_server do
    counter = :counters.new(1, [])

    {:ok, listen} =
      :gen_tcp.listen(0, [
        :binary,
        ip: {127, 0, 0, 1},
        packet: :http_bin,
        active: false,
        reuseaddr: true,
        backlog: 128,
        nodelay: true
      ])

    {:ok, port} = :inet.port(listen)
    spawn(fn -> accept(listen, counter) end)
    {listen, port, counter}
  end

  defp accept(listen, counter) do
    case :gen_tcp.accept(listen) do
      {:ok, socket} ->
        pid = spawn(fn -> receive(do: (:go -> serve(socket, counter))) end)
        :ok = :gen_tcp.controlling_process(socket, pid)
        send(pid, :go)
        accept(listen, counter)

      {:error, _} ->
        :ok
    end
  end

  # One request at a time, keep-alive, emitting what a Phoenix endpoint emits per request.
  defp serve(socket, counter) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, {:http_request, method, {:abs_path, path}, _version}} ->
        start = System.monotonic_time()
        :ok = skip_headers(socket)
        conn = %{method: Atom.to_string(method), request_path: path, status: 200}
        dispatch = System.monotonic_time()
        body = "ok"

        :telemetry.execute([:phoenix, :router_dispatch, :stop], %{duration: System.monotonic_time() - dispatch}, %{
          conn: conn,
          route: "/rooms/:id",
          plug: MyAppWeb.RoomController,
          plug_opts: :show
        })

        :ok = :gen_tcp.send(socket, ["HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n", body])

        :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: System.monotonic_time() - start}, %{
          conn: conn,
          options: []
        })

        :counters.add(counter, 1, 1)
        :ok = :inet.setopts(socket, packet: :http_bin)
        serve(socket, counter)

      _ ->
        :gen_tcp.close(socket)
    end
  end

  defp skip_headers(socket) do
    case :gen_tcp.recv(socket, 0) do
      {:ok, :http_eoh} -> :ok
      {:ok, {:http_header, _, _, _, _}} -> skip_headers(socket)
    end
  end

  # The client runs in a VM of its own so that the server VM's CPU is the server's.
  @client ~S"""
  [port, conns, total, scrape_port] = Enum.map(System.argv(), &String.to_integer/1)
  parent = self()

  if scrape_port > 0 do
    spawn_link(fn ->
      Stream.repeatedly(fn ->
        Process.sleep(1_000)
        {:ok, s} = :gen_tcp.connect({127, 0, 0, 1}, scrape_port, [:binary, active: false])
        :ok = :gen_tcp.send(s, "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
        Stream.repeatedly(fn -> :gen_tcp.recv(s, 0, 5_000) end) |> Enum.find(&match?({:error, _}, &1))
        :gen_tcp.close(s)
      end) |> Stream.run()
    end)
  end

  request = "GET /rooms/1 HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"

  read = fn read, s, buffer ->
    if String.ends_with?(buffer, "\r\n\r\nok"), do: :ok, else: (
      {:ok, data} = :gen_tcp.recv(s, 0, 5_000)
      read.(read, s, buffer <> data))
  end

  for _ <- 1..conns do
    spawn_link(fn ->
      {:ok, s} = :gen_tcp.connect({127, 0, 0, 1}, port, [:binary, active: false, nodelay: true])
      for _ <- 1..div(total, conns), do: (:ok = :gen_tcp.send(s, request); read.(read, s, ""))
      send(parent, :done)
    end)
  end

  for _ <- 1..conns, do: receive(do: (:done -> :ok))
  """

  # Server VM CPU (ms) while the client VM sends `total` requests.
  def http_round(port, total, scrape_port) do
    args = ["-e", @client, "#{port}", "4", "#{total}", "#{scrape_port}"]
    cpu_ms(fn -> {_, 0} = System.cmd("elixir", args) end)
  end

  ## 3. Scrape

  def populate(label_sets) do
    for i <- 1..label_sets//1 do
      d = 1_000 + i
      conn = %{method: "GET", status: 200 + i}
      :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: d}, %{conn: conn})
      :telemetry.execute([:phoenix, :router_dispatch, :stop], %{duration: d}, %{conn: conn, route: "/r/#{i}"})
      socket = %{view: :"Elixir.MyAppWeb.Live#{i}", transport_pid: self()}
      :telemetry.execute([:phoenix, :live_view, :mount, :stop], %{duration: d}, %{socket: socket})
      :telemetry.execute([:phoenix, :live_view, :handle_params, :stop], %{duration: d}, %{socket: socket})

      :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: d}, %{socket: socket, event: "e#{i}"})

      :telemetry.execute([:phoenix, :live_component, :handle_event, :stop], %{duration: d}, %{
        component: C,
        event: "e#{i}"
      })

      ch = %{channel: MyAppWeb.RoomChannel, topic: "t#{i}:1"}
      :telemetry.execute([:phoenix, :channel_joined], %{duration: d}, %{result: :ok, socket: ch})
      :telemetry.execute([:phoenix, :channel_handled_in], %{duration: d}, %{event: "e", socket: ch})

      :telemetry.execute([:bench, :repo, :query], %{total_time: d, queue_time: d, query_time: d, decode_time: d}, %{
        repo: Bench.Repo,
        source: "t#{i}"
      })
    end
  end
end

IO.puts(
  "bench/probe-overhead: #{rounds} rounds, OTP #{System.otp_release()}, Elixir #{System.version()}, " <>
    "#{:erlang.system_info(:schedulers_online)} schedulers; :telemetry is #{telemetry}\n"
)

# 1. Telemetry events -------------------------------------------------------------------
n = 1_000_000
durations = List.to_tuple(for i <- 1..1000, do: System.convert_time_unit(200 + i * 37, :microsecond, :native))
metadata = %{conn: Bench.conn(), options: []}
names = List.to_tuple(for i <- 1..200, do: "event-#{i}")
socket = %{view: MyAppWeb.RoomLive, transport_pid: self()}
lv_n = 300_000

samples =
  for round <- 1..rounds, reduce: %{without: [], with: [], over_cap: [], lv_without: []} do
    acc ->
      without = fn -> Bench.cpu_ms(fn -> Bench.execute_loop(n, durations, metadata) end) end

      with_probe = fn ->
        probe = Bench.start_probe()
        ms = Bench.cpu_ms(fn -> Bench.execute_loop(n, durations, metadata) end)
        Bench.stop_probe(probe)
        ms
      end

      # Interleaved, the order alternating from round to round.
      {a, b} =
        if rem(round, 2) == 1 do
          a = without.()
          {a, with_probe.()}
        else
          b = with_probe.()
          {without.(), b}
        end

      lv_without = Bench.cpu_ms(fn -> Bench.lv_loop(lv_n, names, socket) end)
      probe = Bench.start_probe(max_label_sets: 100)
      over_cap = Bench.cpu_ms(fn -> Bench.lv_loop(lv_n, names, socket) end)
      Bench.stop_probe(probe)

      %{
        acc
        | without: [a | acc.without],
          with: [b | acc.with],
          over_cap: [over_cap | acc.over_cap],
          lv_without: [lv_without | acc.lv_without]
      }
  end

ns = fn ms, count -> ms * 1.0e6 / count end
without_ns = ns.(Bench.median(samples.without), n)
with_ns = ns.(Bench.median(samples.with), n)
lv_without_ns = ns.(Bench.median(samples.lv_without), lv_n)
over_cap_ns = ns.(Bench.median(samples.over_cap), lv_n)

IO.puts(
  "1. :telemetry.execute of [:phoenix, :endpoint, :stop], #{n} per round, one process, VM CPU per event (median):"
)

IO.puts(
  Bench.table(["", "ns/event", "rounds (ms CPU)"], [
    ["no probe (dispatch only)", Bench.f(without_ns, 0), Enum.join(Enum.reverse(samples.without), ", ")],
    ["probe attached", Bench.f(with_ns, 0), Enum.join(Enum.reverse(samples.with), ", ")],
    [
      "LiveView handle_event, 200 names, no probe",
      Bench.f(lv_without_ns, 0),
      Enum.join(Enum.reverse(samples.lv_without), ", ")
    ],
    [
      "same, probe capped at 100 (half over the cap)",
      Bench.f(over_cap_ns, 0),
      Enum.join(Enum.reverse(samples.over_cap), ", ")
    ]
  ])
)

IO.puts(
  "probe / no probe: #{Bench.f(with_ns / without_ns)} x; the handler: #{Bench.f(with_ns - without_ns, 0)} ns per event " <>
    "(#{Bench.f(over_cap_ns - lv_without_ns, 0)} ns with half the events over the cap)\n"
)

# 2. HTTP -------------------------------------------------------------------------------
total = 30_000
{listen, port, counter} = Bench.start_server()
# A warm-up round (code loading, first connections).
Bench.http_round(port, 4_000, 0)

served = fn fun ->
  before = :counters.get(counter, 1)
  ms = fun.()
  ms * 1000.0 / (:counters.get(counter, 1) - before)
end

variants = [
  {"no probe", fn -> served.(fn -> Bench.http_round(port, total, 0) end) end},
  # What the probe turns on for utilization, alone: scheduler_wall_time makes every
  # scheduler read the clock when it goes to sleep and wakes up.
  {"scheduler_wall_time on, no probe",
   fn ->
     :erlang.system_flag(:scheduler_wall_time, true)
     us = served.(fn -> Bench.http_round(port, total, 0) end)
     :erlang.system_flag(:scheduler_wall_time, false)
     us
   end},
  {"probe attached, scraped every second",
   fn ->
     probe = Bench.start_probe()
     us = served.(fn -> Bench.http_round(port, total, Stampede.Probe.port(probe)) end)
     Bench.stop_probe(probe)
     us
   end}
]

# Interleaved: each round runs every variant, starting one later than the round before.
http =
  for round <- 1..rounds, reduce: %{} do
    acc ->
      {first, last} = Enum.split(variants, rem(round - 1, length(variants)))

      for {name, run} <- last ++ first, reduce: acc do
        acc -> Map.update(acc, name, [run.()], &[run.() | &1])
      end
  end

:gen_tcp.close(listen)
medians = Map.new(http, fn {name, us} -> {name, Bench.median(us)} end)

IO.puts(
  "2. HTTP keep-alive server (2 telemetry events per request), #{total} requests per round from a client VM, server VM CPU per request (median):"
)

IO.puts(
  Bench.table(
    ["", "µs/request", "rounds (µs/request)"],
    for {name, _} <- variants do
      [name, Bench.f(medians[name]), http[name] |> Enum.reverse() |> Enum.map_join(", ", &Bench.f/1)]
    end
  )
)

base = medians["no probe"]

IO.puts(
  "probe / no probe: #{Bench.f(medians["probe attached, scraped every second"] / base)} x; " <>
    "scheduler_wall_time alone: #{Bench.f(medians["scheduler_wall_time on, no probe"] / base)} x\n"
)

# 3. Scrape -----------------------------------------------------------------------------
rows =
  for {label_sets, extra, message_queues} <- [
        {0, 0, true},
        {0, 10_000, true},
        {0, 10_000, false},
        {20, 0, true},
        {100, 0, true}
      ] do
    probe = Bench.start_probe(repos: [[:bench, :repo]], max_label_sets: 100, message_queues: message_queues)
    Bench.populate(label_sets)
    idle = for _ <- 1..extra//1, do: spawn(fn -> receive(do: (:stop -> :ok)) end)
    processes = :erlang.system_info(:process_count)
    text = Stampede.Probe.scrape(probe)
    times = for _ <- 1..21, do: elem(:timer.tc(fn -> Stampede.Probe.scrape(probe) end), 0)
    Enum.each(idle, &send(&1, :stop))
    Bench.stop_probe(probe)
    series = text |> String.split("\n") |> Enum.count(&String.contains?(&1, "_seconds_count{"))

    ["#{label_sets}", "#{processes}", "#{message_queues}", "#{series}", "#{byte_size(text)}", "#{Bench.median(times)}"]
  end

IO.puts("3. One scrape (Stampede.Probe.scrape/1 in the calling process), median of 21:")

IO.puts(Bench.table(["label sets per family", "processes", "message_queues", "histogram series", "bytes", "µs"], rows))
