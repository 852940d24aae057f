# Stampede.Probe: its HTTP endpoint, the BEAM series under load, and the telemetry
# histograms. No stampede binary needed.
#
# `:telemetry` here is the real library when it is on the code path, else a TEST STAND-IN
# (test/support/telemetry_stand_in.exs, loaded by test_helper.exs) with the same
# attach_many/4, detach/1, execute/3 and span/3 semantics as telemetry 1.x: Debian has no
# telemetry package and this project fetches nothing from Hex. The events below carry the
# measurements and metadata Phoenix, LiveView and Ecto document for them (plain maps with
# the fields of Plug.Conn, Phoenix.Socket and Phoenix.LiveView.Socket that the probe reads).
# Every scrape is read with a strict parser of the exposition format
# (test/support/exposition_parser.exs); the integration harness also reads one with the
# official Prometheus Python client's parser (tests/integration/test_elixir.py).

defmodule Stampede.ProbeTest.Http do
  @moduledoc false
  # A raw HTTP/1.1 client on :gen_tcp, so that a test decides every byte sent.

  def connect(port), do: :gen_tcp.connect({127, 0, 0, 1}, port, [:binary, active: false], 2_000)

  def request(port, raw, opts \\ []) do
    {:ok, socket} = connect(port)
    :ok = :gen_tcp.send(socket, raw)
    response = read(socket, opts)
    :gen_tcp.close(socket)
    response
  end

  def get(port, path \\ "/metrics"),
    do: request(port, "GET #{path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")

  # One response: the head, then Content-Length bytes of body (none when `head: true`).
  def read(socket, opts \\ []) do
    {head, rest} = read_head(socket, "")
    [status_line | lines] = String.split(head, "\r\n")
    ["HTTP/1.1", code | _] = String.split(status_line, " ")

    headers =
      Map.new(lines, fn line ->
        [k, v] = String.split(line, ":", parts: 2)
        {String.downcase(k), String.trim(v)}
      end)

    length = if opts[:head], do: 0, else: String.to_integer(headers["content-length"])
    %{status: String.to_integer(code), headers: headers, body: read_body(socket, rest, length)}
  end

  defp read_head(socket, buffer) do
    case :binary.split(buffer, "\r\n\r\n") do
      [head, rest] ->
        {head, rest}

      [_] ->
        {:ok, data} = :gen_tcp.recv(socket, 0, 5_000)
        read_head(socket, buffer <> data)
    end
  end

  defp read_body(_socket, buffer, length) when byte_size(buffer) >= length, do: binary_part(buffer, 0, length)

  defp read_body(socket, buffer, length) do
    {:ok, data} = :gen_tcp.recv(socket, 0, 5_000)
    read_body(socket, buffer <> data, length)
  end

  def closed?(socket) do
    match?({:error, :closed}, :gen_tcp.recv(socket, 0, 2_000))
  end
end

defmodule Stampede.ProbeTest do
  use ExUnit.Case, async: false
  import ExUnit.CaptureLog

  alias Stampede.ExpositionParser, as: P
  alias Stampede.ProbeTest.Http

  defp start_probe(opts \\ []) do
    pid = start_supervised!({Stampede.Probe, Keyword.merge([port: 0, name: nil, on_listen_error: :stop], opts)})
    {pid, Stampede.Probe.port(pid)}
  end

  defp scrape(pid), do: P.parse!(Stampede.Probe.scrape(pid))

  defp native(ms), do: System.convert_time_unit(ms, :millisecond, :native)

  defp gauge(families, name, labels \\ %{}), do: P.value(families, name, labels)

  describe "the endpoint" do
    test "serves GET /metrics on an ephemeral loopback port, in text format 0.0.4 that parses strictly" do
      {pid, port} = start_probe()
      assert port > 0
      assert Stampede.Probe.url(pid) == "http://127.0.0.1:#{port}/metrics"

      response = Http.get(port)
      assert response.status == 200
      assert response.headers["content-type"] == "text/plain; version=0.0.4"
      families = P.parse!(response.body)

      expected = %{
        "erlang_vm_scheduler_utilization_ratio" => "gauge",
        "erlang_vm_schedulers_utilization_ratio" => "gauge",
        "erlang_vm_run_queue_length" => "gauge",
        "erlang_vm_run_queues_length" => "gauge",
        "erlang_vm_memory_bytes" => "gauge",
        "erlang_vm_processes" => "gauge",
        "erlang_vm_processes_limit" => "gauge",
        "erlang_vm_ports" => "gauge",
        "erlang_vm_ports_limit" => "gauge",
        "erlang_vm_atoms" => "gauge",
        "erlang_vm_atoms_limit" => "gauge",
        "erlang_vm_ets_tables" => "gauge",
        "erlang_vm_ets_tables_limit" => "gauge",
        "erlang_vm_schedulers_online" => "gauge",
        "erlang_vm_largest_message_queue_length" => "gauge",
        "erlang_vm_message_queues_length" => "gauge",
        "erlang_vm_gc_runs_total" => "counter",
        "erlang_vm_gc_reclaimed_bytes_total" => "counter",
        "erlang_vm_reductions_total" => "counter",
        "erlang_vm_context_switches_total" => "counter",
        "erlang_vm_io_received_bytes_total" => "counter",
        "erlang_vm_io_sent_bytes_total" => "counter",
        "erlang_vm_uptime_seconds" => "gauge",
        "phoenix_endpoint_duration_seconds" => "histogram",
        "phoenix_router_dispatch_duration_seconds" => "histogram",
        "phoenix_live_view_mount_duration_seconds" => "histogram",
        "phoenix_live_view_handle_params_duration_seconds" => "histogram",
        "phoenix_live_view_handle_event_duration_seconds" => "histogram",
        "phoenix_live_component_handle_event_duration_seconds" => "histogram",
        "phoenix_channel_join_duration_seconds" => "histogram",
        "phoenix_channel_handled_in_duration_seconds" => "histogram",
        "stampede_probe_telemetry_handlers" => "gauge"
      }

      assert Map.new(families, fn {name, f} -> {name, f.type} end) == expected
      assert Enum.all?(families, fn {_, f} -> f.help != "" end)

      for type <- ["normal", "dirty_cpu"],
          do: assert(P.find(families, "erlang_vm_scheduler_utilization_ratio", %{type: type}) != [])

      schedulers = :erlang.system_info(:schedulers)
      assert length(P.find(families, "erlang_vm_run_queue_length")) == schedulers + 2
      assert gauge(families, "erlang_vm_run_queue_length", %{queue: "dirty_io"}) >= 0
      assert gauge(families, "erlang_vm_memory_bytes", %{kind: "total"}) > 1_000_000
      assert gauge(families, "erlang_vm_processes_limit") == :erlang.system_info(:process_limit)
      assert gauge(families, "erlang_vm_uptime_seconds") > 0
      assert gauge(families, "stampede_probe_telemetry_handlers") == 1
    end

    test "answers a bad request 400, another path 404, another method 405, HEAD without a body" do
      {_pid, port} = start_probe()

      assert Http.request(port, "HELLO\r\n\r\n").status == 400
      assert Http.request(port, "GET /metrics HTTP/2.0\r\n\r\n").status == 400
      assert Http.request(port, "GET /metrics HTTP/1.1\r\nNo colon here\r\n\r\n").status == 400
      assert Http.request(port, "GET /#{String.duplicate("a", 20_000)} HTTP/1.1\r\n\r\n").status == 400

      not_found = Http.get(port, "/")
      assert not_found.status == 404
      assert not_found.body =~ "/metrics"

      post = Http.request(port, "POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi")
      assert post.status == 405
      assert post.headers["allow"] == "GET, HEAD"
      assert post.headers["connection"] == "close"

      head = Http.request(port, "HEAD /metrics HTTP/1.1\r\nConnection: close\r\n\r\n", head: true)
      assert head.status == 200
      assert String.to_integer(head.headers["content-length"]) > 1000
      assert head.body == ""

      query = Http.request(port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n")
      assert query.status == 200
      assert query.headers["connection"] == "close"
      P.parse!(query.body)
    end

    test "keeps an HTTP/1.1 connection alive across scrapes" do
      {_pid, port} = start_probe()
      {:ok, socket} = Http.connect(port)

      for _ <- 1..3 do
        :ok = :gen_tcp.send(socket, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        response = Http.read(socket)
        assert response.status == 200
        refute Map.has_key?(response.headers, "connection")
        P.parse!(response.body)
      end

      :ok = :gen_tcp.send(socket, "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n")
      assert Http.read(socket).status == 200
      assert Http.closed?(socket)
    end

    test "slow and silent clients do not hold up other scrapes; concurrent scrapes all succeed" do
      {_pid, port} = start_probe()

      stalled =
        for partial <- ["", "GET /met", "GET /metrics HTTP/1.1\r\nHost: x\r\n"] do
          {:ok, socket} = Http.connect(port)
          :ok = :gen_tcp.send(socket, partial)
          socket
        end

      {micros, response} = :timer.tc(fn -> Http.get(port) end)
      assert response.status == 200
      assert micros < 1_000_000

      results =
        1..20
        |> Task.async_stream(fn _ -> Http.get(port) end, max_concurrency: 20, timeout: 10_000)
        |> Enum.map(fn {:ok, r} -> r.status end)

      assert results == List.duplicate(200, 20)
      Enum.each(stalled, &:gen_tcp.close/1)
    end

    test "beyond max_connections a connection gets 503; the slots come back when clients leave" do
      {_pid, port} = start_probe(max_connections: 2)
      held = for _ <- 1..2, do: elem(Http.connect(port), 1)
      Process.sleep(100)

      assert Http.get(port).status == 503

      Enum.each(held, &:gen_tcp.close/1)
      Process.sleep(100)
      assert Http.get(port).status == 200
    end
  end

  test "the README's metrics reference lists exactly the families a scrape has" do
    {pid, _port} = start_probe(repos: [[:my_app, :repo]])
    scraped = pid |> scrape() |> Map.keys() |> Enum.sort()

    [_, reference] = String.split(File.read!(Path.expand("../README.md", __DIR__)), "### Metrics reference")
    [reference | _] = String.split(reference, "\n### ")

    documented =
      for "| `" <> _ = row <- String.split(reference, "\n"),
          [_, first_cell | _] = String.split(row, "|"),
          [_, name] <- Regex.scan(~r/`([a-z_]+)`/, first_cell),
          do: name

    assert Enum.sort(documented) == scraped
  end

  describe "options" do
    test "an unknown option or a bad value raises, naming it" do
      error = assert_raise ArgumentError, fn -> Stampede.Probe.start_link(prot: 9568) end
      assert error.message =~ "unknown Stampede.Probe option :prot;"
      assert error.message =~ ":port"
      assert_raise ArgumentError, ~r/:port: invalid value 70000/, fn -> Stampede.Probe.start_link(port: 70_000) end
      assert_raise ArgumentError, ~r/:repos/, fn -> Stampede.Probe.start_link(repos: ["MyApp.Repo"]) end
    end

    test "a port already taken: :stop fails the start, :warn logs and starts nothing" do
      {_pid, port} = start_probe()
      Process.flag(:trap_exit, true)

      assert {:error, {:listen, where, :eaddrinuse}} =
               Stampede.Probe.start_link(port: port, name: nil, on_listen_error: :stop)

      assert where == "127.0.0.1:#{port}"

      log = capture_log(fn -> assert :ignore = Stampede.Probe.start_link(port: port, name: nil) end)
      assert log =~ "Stampede.Probe not started: cannot listen on 127.0.0.1:#{port}"
    end

    test "the default name lets port/0 and url/0 find the probe" do
      start_supervised!({Stampede.Probe, port: 0})
      assert Stampede.Probe.url() == "http://127.0.0.1:#{Stampede.Probe.port()}/metrics"
    end
  end

  describe "BEAM series" do
    test "utilization and run queues rise while processes burn CPU" do
      {pid, _port} = start_probe()
      scrape(pid)
      Process.sleep(300)
      idle = scrape(pid)

      schedulers = :erlang.system_info(:schedulers_online)
      until = System.monotonic_time(:millisecond) + 1_500
      burners = for _ <- 1..(schedulers * 3), do: spawn(fn -> burn(until) end)
      Process.sleep(500)
      busy = scrape(pid)
      Enum.each(burners, &Process.exit(&1, :kill))

      idle_utilization = gauge(idle, "erlang_vm_schedulers_utilization_ratio", %{type: "normal"})
      busy_utilization = gauge(busy, "erlang_vm_schedulers_utilization_ratio", %{type: "normal"})
      assert busy_utilization > 0.7, "busy: #{busy_utilization}"
      assert idle_utilization < busy_utilization
      assert idle_utilization < 0.5, "idle: #{idle_utilization}"

      for {_, %{"scheduler" => _}, value} <- P.find(busy, "erlang_vm_scheduler_utilization_ratio", %{type: "normal"}),
          do: assert(value > 0.5)

      # 3 burners per scheduler: about 2 of each 3 wait in a run queue at any moment.
      assert gauge(busy, "erlang_vm_run_queues_length") >= schedulers
      assert gauge(busy, "erlang_vm_reductions_total") > gauge(idle, "erlang_vm_reductions_total")
    end

    test "the longest message queue is counted and its process named" do
      {pid, _port} = start_probe()
      mailbox = spawn_mailbox(fn -> Process.register(self(), :stampede_probe_test_mailbox) end)
      for i <- 1..20_000, do: send(mailbox, {:junk, i})

      families = scrape(pid)

      assert [{_, labels, 20_000}] = P.find(families, "erlang_vm_largest_message_queue_length")
      assert labels == %{"process" => "stampede_probe_test_mailbox", "kind" => "registered"}
      assert gauge(families, "erlang_vm_message_queues_length") >= 20_000

      send(mailbox, :stop)
    end

    test "a LiveView or channel process is named by its module, others by their initial call" do
      cases = [
        # LiveView 1.x: Process.set_label({Phoenix.LiveView, view, topic}).
        {fn -> Process.put(:"$process_label", {Phoenix.LiveView, MyAppWeb.RoomLive, "lv:phx-F1"}) end,
         {"live_view", "MyAppWeb.RoomLive"}},
        # LiveView since 0.17: the view's mount/3 as the initial call.
        {fn -> Process.put(:"$initial_call", {MyAppWeb.LobbyLive, :mount, 3}) end, {"live_view", "MyAppWeb.LobbyLive"}},
        # Older LiveView: only the channel module is known.
        {fn -> Process.put(:"$initial_call", {Phoenix.LiveView.Channel, :init, 1}) end,
         {"live_view", "Phoenix.LiveView.Channel"}},
        # Phoenix 1.7 channels.
        {fn -> Process.put(:"$process_label", {Phoenix.Channel, MyAppWeb.RoomChannel, "room:1"}) end,
         {"channel", "MyAppWeb.RoomChannel"}},
        {fn -> Process.put(:"$initial_call", {MyAppWeb.RoomChannel, :join, 3}) end,
         {"channel", "MyAppWeb.RoomChannel"}},
        {fn -> Process.put(:"$process_label", "importer #7") end, {"label", "importer #7"}},
        {fn -> Process.put(:"$initial_call", {MyApp.Worker, :init, 1}) end, {"initial_call", "MyApp.Worker.init/1"}},
        {fn -> :ok end, {"initial_call", "erlang.apply/2"}}
      ]

      for {setup, expected} <- cases do
        mailbox = spawn_mailbox(setup)
        assert Stampede.Probe.Beam.identify(mailbox) == expected
        send(mailbox, :stop)
      end

      # And end to end, for the LiveView case.
      {pid, _port} = start_probe()

      mailbox =
        spawn_mailbox(fn -> Process.put(:"$process_label", {Phoenix.LiveView, MyAppWeb.RoomLive, "lv:phx-F1"}) end)

      for i <- 1..30_000, do: send(mailbox, {:diff, i})
      families = scrape(pid)

      assert [{_, %{"process" => "MyAppWeb.RoomLive", "kind" => "live_view"}, 30_000}] =
               P.find(families, "erlang_vm_largest_message_queue_length")

      send(mailbox, :stop)
    end

    test "garbage collections, reclaimed bytes, reductions, context switches and uptime go up" do
      {pid, _port} = start_probe()
      before = scrape(pid)
      for _ <- 1..50, do: spawn(fn -> Enum.to_list(1..20_000) |> Enum.map(&(&1 * 2)) |> length() end)
      :erlang.garbage_collect()
      Process.sleep(50)
      later = scrape(pid)

      for name <- ~w(erlang_vm_gc_runs_total erlang_vm_gc_reclaimed_bytes_total erlang_vm_reductions_total
                     erlang_vm_context_switches_total erlang_vm_uptime_seconds) do
        assert gauge(later, name) > gauge(before, name), name
      end
    end

    test "the scheduler wall-time flag the probe turned on goes off when it stops" do
      {pid, _port} = start_probe()
      assert is_list(:erlang.statistics(:scheduler_wall_time))
      stop_supervised!(Stampede.Probe)
      refute Process.alive?(pid)
      assert :erlang.statistics(:scheduler_wall_time) == :undefined
    end
  end

  describe "telemetry histograms" do
    test "Phoenix, LiveView, channel and Ecto events become histograms in seconds" do
      {pid, _port} = start_probe(repos: [[:my_app, :repo]])
      conn = %{method: "GET", status: 200, request_path: "/rooms/1"}

      # 3 ms twice, 40 ms once, 20 s once (beyond the last bound: +Inf only).
      for ms <- [3, 3, 40, 20_000] do
        :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: native(ms)}, %{conn: conn, options: []})
      end

      :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: native(1)}, %{
        conn: %{conn | status: 500},
        options: []
      })

      :telemetry.execute([:phoenix, :router_dispatch, :stop], %{duration: native(2)}, %{
        conn: conn,
        route: "/rooms/:id",
        plug: MyAppWeb.RoomController,
        plug_opts: :show,
        path_params: %{"id" => "1"},
        pipe_through: [:browser],
        log: :debug
      })

      # LiveView emits these with :telemetry.span/3, as here.
      dead = %{view: MyAppWeb.RoomLive, transport_pid: nil}
      live = %{view: MyAppWeb.RoomLive, transport_pid: self()}
      span([:phoenix, :live_view, :mount], %{socket: dead, params: %{}, session: %{}, uri: "http://x/rooms/1"}, 1)
      span([:phoenix, :live_view, :mount], %{socket: live, params: %{}, session: %{}, uri: "http://x/rooms/1"}, 1)
      span([:phoenix, :live_view, :handle_params], %{socket: live, params: %{}, uri: "http://x/rooms/1"}, 1)
      span([:phoenix, :live_view, :handle_event], %{socket: live, event: "send", params: %{"body" => "hi"}}, 2)

      span(
        [:phoenix, :live_component, :handle_event],
        %{socket: live, component: MyAppWeb.MessageComponent, event: "like", params: %{}},
        1
      )

      socket = %{channel: MyAppWeb.RoomChannel, topic: "room:42", transport: :websocket}

      :telemetry.execute([:phoenix, :channel_joined], %{duration: native(4)}, %{
        result: :ok,
        params: %{},
        socket: socket
      })

      :telemetry.execute([:phoenix, :channel_handled_in], %{duration: native(6)}, %{
        event: "new_msg",
        params: %{},
        socket: socket
      })

      :telemetry.execute(
        [:my_app, :repo, :query],
        %{
          total_time: native(7),
          queue_time: native(1),
          query_time: native(5),
          decode_time: native(1),
          idle_time: native(100)
        },
        %{repo: MyApp.Repo, source: "users", type: :ecto_sql_query, result: {:ok, %{}}, params: [], query: "SELECT 1"}
      )

      # A query without a pool checkout or decoding: no queue or decode time.
      :telemetry.execute([:my_app, :repo, :query], %{total_time: native(2), query_time: native(2)}, %{
        repo: MyApp.Repo,
        source: nil
      })

      families = scrape(pid)
      endpoint = %{method: "GET", status: "200"}
      bucket = &gauge(families, "phoenix_endpoint_duration_seconds_bucket", Map.put(endpoint, :le, &1))
      assert bucket.("0.0025") == 0
      assert bucket.("0.005") == 2
      assert bucket.("0.025") == 2
      assert bucket.("0.05") == 3
      assert bucket.("10.0") == 3
      assert bucket.("+Inf") == 4
      assert gauge(families, "phoenix_endpoint_duration_seconds_count", endpoint) == 4
      assert_in_delta gauge(families, "phoenix_endpoint_duration_seconds_sum", endpoint), 20.046, 1.0e-9
      assert gauge(families, "phoenix_endpoint_duration_seconds_count", %{status: "500"}) == 1

      assert gauge(families, "phoenix_router_dispatch_duration_seconds_count", %{
               method: "GET",
               route: "/rooms/:id",
               status: "200"
             }) == 1

      lv = "MyAppWeb.RoomLive"
      assert gauge(families, "phoenix_live_view_mount_duration_seconds_count", %{view: lv, connected: "false"}) == 1
      assert gauge(families, "phoenix_live_view_mount_duration_seconds_count", %{view: lv, connected: "true"}) == 1

      assert gauge(families, "phoenix_live_view_handle_params_duration_seconds_count", %{view: lv, connected: "true"}) ==
               1

      event = %{view: lv, event: "send"}
      assert gauge(families, "phoenix_live_view_handle_event_duration_seconds_count", event) == 1
      # Slept 2 ms inside the span: at least that, well under a second.
      sum = gauge(families, "phoenix_live_view_handle_event_duration_seconds_sum", event)
      assert sum >= 0.002 and sum < 1.0

      assert gauge(families, "phoenix_live_view_handle_event_duration_seconds_bucket", Map.put(event, :le, "0.001")) ==
               0

      assert gauge(families, "phoenix_live_component_handle_event_duration_seconds_count", %{
               component: "MyAppWeb.MessageComponent",
               event: "like"
             }) == 1

      channel = %{channel: "MyAppWeb.RoomChannel", topic: "room:*"}
      assert gauge(families, "phoenix_channel_join_duration_seconds_count", Map.put(channel, :result, "ok")) == 1
      assert_in_delta gauge(families, "phoenix_channel_join_duration_seconds_sum", channel), 0.004, 1.0e-9

      assert gauge(families, "phoenix_channel_handled_in_duration_seconds_count", Map.put(channel, :event, "new_msg")) ==
               1

      users = %{repo: "MyApp.Repo", source: "users"}
      assert_in_delta gauge(families, "ecto_query_duration_seconds_sum", users), 0.007, 1.0e-9
      assert_in_delta gauge(families, "ecto_query_queue_duration_seconds_sum", users), 0.001, 1.0e-9
      assert_in_delta gauge(families, "ecto_query_execution_duration_seconds_sum", users), 0.005, 1.0e-9
      assert_in_delta gauge(families, "ecto_query_decode_duration_seconds_sum", users), 0.001, 1.0e-9
      raw = %{repo: "MyApp.Repo", source: ""}
      assert gauge(families, "ecto_query_duration_seconds_count", raw) == 1
      assert gauge(families, "ecto_query_execution_duration_seconds_count", raw) == 1
      assert P.find(families, "ecto_query_queue_duration_seconds_count", raw) == []

      assert families["phoenix_endpoint_duration_seconds"].help =~ "response"
      assert gauge(families, "stampede_probe_telemetry_handlers") == 2
    end

    test "label values are escaped and kept UTF-8, and long ones cut" do
      {pid, _port} = start_probe()
      live = %{view: MyAppWeb.RoomLive, transport_pid: self()}

      for event <- ["say \"hi\"\\now\nplease", <<"caf", 0xE9, "!">>, String.duplicate("é", 300)] do
        :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: native(1)}, %{
          socket: live,
          event: event,
          params: %{}
        })
      end

      events =
        scrape(pid)
        |> P.find("phoenix_live_view_handle_event_duration_seconds_count")
        |> Enum.map(fn {_, labels, 1} -> labels["event"] end)
        |> Enum.sort()

      assert "say \"hi\"\\now\nplease" in events
      assert inspect(<<"caf", 0xE9, "!">>) in events
      assert (String.duplicate("é", 100) <> "...") in events
    end

    test "each family keeps at most max_label_sets label sets; the rest is counted under other" do
      {pid, _port} = start_probe(max_label_sets: 3)
      live = %{view: MyAppWeb.RoomLive, transport_pid: self()}

      for i <- 1..10, _ <- 1..i do
        :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{duration: native(1)}, %{
          socket: live,
          event: "event-#{i}",
          params: %{}
        })
      end

      families = scrape(pid)
      series = P.find(families, "phoenix_live_view_handle_event_duration_seconds_count")
      assert length(series) == 4
      assert Enum.sum(for {_, _, n} <- series, do: n) == 55

      assert gauge(families, "phoenix_live_view_handle_event_duration_seconds_count", %{view: "other", event: "other"}) ==
               55 - 6

      # Other families have room of their own.
      :telemetry.execute([:phoenix, :channel_handled_in], %{duration: native(1)}, %{
        event: "e",
        params: %{},
        socket: %{channel: MyAppWeb.RoomChannel, topic: "room:1"}
      })

      assert gauge(scrape(pid), "phoenix_channel_handled_in_duration_seconds_count", %{event: "e"}) == 1
    end

    test "events from many processes at once are all counted" do
      {pid, _port} = start_probe()
      socket = %{channel: MyAppWeb.RoomChannel, topic: "room:1"}

      1..8
      |> Task.async_stream(
        fn task ->
          for i <- 1..2_000 do
            :telemetry.execute([:phoenix, :channel_handled_in], %{duration: native(rem(i, 7))}, %{
              event: "e#{rem(task, 2)}",
              params: %{},
              socket: socket
            })
          end
        end,
        max_concurrency: 8
      )
      |> Stream.run()

      families = scrape(pid)
      assert gauge(families, "phoenix_channel_handled_in_duration_seconds_count", %{event: "e0"}) == 8_000
      assert gauge(families, "phoenix_channel_handled_in_duration_seconds_count", %{event: "e1"}) == 8_000
      # rem(i, 7) ms: per 7 events 0+1+...+6 = 21 ms; 16,000 events = 2,285 full weeks + 5 (0..4 ms).
      total =
        gauge(families, "phoenix_channel_handled_in_duration_seconds_sum", %{event: "e0"}) +
          gauge(families, "phoenix_channel_handled_in_duration_seconds_sum", %{event: "e1"})

      assert_in_delta total, 8 * (285 * 21 + 0 + 1 + 2 + 3 + 4 + 5) / 1000, 1.0e-6
    end

    test "events it cannot read are ignored and the handlers stay attached" do
      {pid, _port} = start_probe(repos: [MyApp.Repo])
      :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: 1.5}, %{conn: %{method: "GET", status: 200}})
      :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: native(1)}, %{conn: nil})
      :telemetry.execute([:phoenix, :live_view, :handle_event, :stop], %{}, %{socket: %{}})
      :telemetry.execute([:phoenix, :channel_joined], %{duration: native(1)}, %{result: :ok})
      :telemetry.execute([:my_app, :repo, :query], %{total_time: "soon"}, %{})
      :telemetry.execute([:my_app, :repo, :query], %{total_time: native(1)}, %{})

      families = scrape(pid)
      assert gauge(families, "stampede_probe_telemetry_handlers") == 2
      assert P.find(families, "phoenix_endpoint_duration_seconds_count") == []
      # MyApp.Repo listens to Ecto's default [:my_app, :repo, :query]; without metadata the
      # repo is named after the option.
      assert gauge(families, "ecto_query_duration_seconds_count", %{repo: "MyApp.Repo", source: ""}) == 1
    end

    test "a custom endpoint event prefix" do
      {pid, _port} = start_probe(endpoint_prefix: [:my_app, :api])
      :telemetry.execute([:my_app, :api, :stop], %{duration: native(1)}, %{conn: %{method: "POST", status: 201}})
      :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: native(1)}, %{conn: %{method: "GET", status: 200}})
      assert [{_, %{"method" => "POST"}, 1}] = P.find(scrape(pid), "phoenix_endpoint_duration_seconds_count")
    end

    test "the handlers are detached when the probe stops" do
      {pid, _port} = start_probe(repos: [[:my_app, :repo]])
      ours = fn -> for %{id: {Stampede.Probe, ^pid, _} = id} <- :telemetry.list_handlers([]), uniq: true, do: id end
      assert length(ours.()) == 2
      assert length(:telemetry.list_handlers([:my_app, :repo, :query])) == 1
      stop_supervised!(Stampede.Probe)
      assert ours.() == []

      assert :ok ==
               :telemetry.execute([:phoenix, :endpoint, :stop], %{duration: 1}, %{conn: %{method: "GET", status: 200}})
    end

    test "without :telemetry loaded the probe serves the BEAM series only" do
      # Only the stand-in can be unloaded and loaded again here; the real library stays.
      if function_exported?(:telemetry, :__stand_in__, 0) do
        :code.purge(:telemetry)
        :code.delete(:telemetry)

        try do
          refute Code.ensure_loaded?(:telemetry)
          {pid, _port} = start_probe()
          families = scrape(pid)
          assert gauge(families, "stampede_probe_telemetry_handlers") == 0
          refute Map.has_key?(families, "phoenix_endpoint_duration_seconds")
          assert Map.has_key?(families, "erlang_vm_memory_bytes")
        after
          Code.compile_file(Path.expand("support/telemetry_stand_in.exs", __DIR__))
        end
      end
    end
  end

  defp span(prefix, metadata, ms) do
    :telemetry.span(prefix, metadata, fn ->
      Process.sleep(ms)
      {:ok, metadata}
    end)
  end

  defp burn(until) do
    if System.monotonic_time(:millisecond) < until, do: burn(until)
  end

  # A process that runs `setup`, then waits for :stop, leaving every other message queued.
  defp spawn_mailbox(setup) do
    parent = self()

    pid =
      spawn(fn ->
        setup.()
        send(parent, {:ready, self()})

        receive do
          :stop -> :ok
        end
      end)

    receive do
      {:ready, ^pid} -> pid
    end
  end
end
