defmodule Stampede.Probe do
  @moduledoc """
  Lets `stampede run --server-metrics` see inside the Phoenix app it loads: a
  Prometheus endpoint, OTP only, for dev and test.

  Add it to the app's supervision tree (only outside production: it shows the app's
  internals, process names included, to whoever can reach the port):

      children = [
        # ...
        {Stampede.Probe, port: 9568}
      ]

  and scrape it while the load runs:

      stampede run loadtest/lobby.lua --server-metrics http://127.0.0.1:9568/metrics

  `GET /metrics` answers in the Prometheus text format 0.0.4 (`Content-Type: text/plain;
  version=0.0.4`). Everything is computed when a scrape asks for it: between scrapes the
  probe does nothing, and its telemetry handlers only count into ETS.

  ## What it exports

    * BEAM series (`erlang_vm_*`): scheduler utilization per scheduler and per type since
      the previous scrape, run queue lengths, memory by kind, process/port/atom/ETS counts
      and limits, the longest message queue and whose it is (registered name, LiveView or
      channel module, initial call), the sum of all queues, garbage collections, bytes
      reclaimed, reductions, context switches, port IO bytes, uptime.
    * When `:telemetry` is loaded (every Phoenix app has it): histograms in seconds of
      the endpoint, router dispatch, LiveView mount / handle_params / handle_event,
      LiveComponent handle_event, channel join and handle_in, and, for the repos named in
      `:repos`, Ecto's total, queue, query and decode times.

  The integration's README has the full list, with types, labels and units.

  ## Options

    * `:port` - the TCP port; `0` picks a free one (`port/1` tells which). Default `9568`.
    * `:ip` - the address to listen on. Default `{127, 0, 0, 1}` (loopback only).
    * `:name` - the probe's registered name, or `nil` for none. Default `Stampede.Probe`.
    * `:repos` - Ecto repos to time: their modules (`MyApp.Repo` listens to
      `[:my_app, :repo, :query]`, Ecto's default) or their telemetry prefixes
      (`[:my_app, :repo]`). Default `[]`.
    * `:endpoint_prefix` - the `event_prefix` given to `Plug.Telemetry` in the endpoint.
      Default `[:phoenix, :endpoint]`.
    * `:max_label_sets` - label sets per histogram family; events beyond are counted in one
      label set whose labels are all `"other"`. Default `50` (a scrape with every family
      full is then ~1.1 MB and ~5 ms of CPU; each series is 19 lines).
    * `:message_queues` - look for the longest message queue on each scrape (it visits
      every process: ~0.15 µs each, 1.5 ms for 10,000). Default `true`.
    * `:max_connections` - scrapes served at once. Default `32`.
    * `:on_listen_error` - `:warn` logs a warning and does not start (the app boots without
      the probe, e.g. when the port is taken by another instance), `:stop` fails the start.
      Default `:warn`.

  Any other option raises `ArgumentError`.
  """
  use GenServer
  require Logger

  # :telemetry is the app's (every Phoenix app has it), not a dependency of this project.
  @compile {:no_warn_undefined, :telemetry}

  alias Stampede.Probe.{Beam, Exposition, Http, Telemetry}

  @defaults [
    port: 9568,
    ip: {127, 0, 0, 1},
    name: __MODULE__,
    repos: [],
    endpoint_prefix: [:phoenix, :endpoint],
    max_label_sets: 50,
    message_queues: true,
    max_connections: 32,
    on_listen_error: :warn
  ]

  @doc false
  def child_spec(opts) do
    %{id: Keyword.get(opts, :name, __MODULE__) || __MODULE__, start: {__MODULE__, :start_link, [opts]}}
  end

  @doc "Starts the probe (see the module doc for the options)."
  @spec start_link(keyword) :: GenServer.on_start()
  def start_link(opts \\ []) do
    opts = options!(opts)
    GenServer.start_link(__MODULE__, opts, if(opts[:name], do: [name: opts[:name]], else: []))
  end

  @doc "The port the probe listens on (the one it was given, or the one picked for `port: 0`)."
  @spec port(GenServer.server()) :: :inet.port_number()
  def port(probe \\ __MODULE__), do: GenServer.call(probe, :port)

  @doc "The URL to scrape, for `stampede run --server-metrics`."
  @spec url(GenServer.server()) :: String.t()
  def url(probe \\ __MODULE__) do
    {ip, port} = GenServer.call(probe, :address)
    host = if tuple_size(ip) == 8, do: "[#{:inet.ntoa(ip)}]", else: to_string(:inet.ntoa(ip))
    "http://#{host}:#{port}/metrics"
  end

  @doc """
  What `GET /metrics` answers, computed in the calling process. Like any scrape it moves
  the start of the next scheduler-utilization interval to now.
  """
  @spec scrape(GenServer.server()) :: binary
  def scrape(probe \\ __MODULE__) do
    %{tab: tab} = context = GenServer.call(probe, :scrape)

    # Rendering makes short-lived terms in proportion to the histogram rows. In a process of
    # its own whose heap is that size from the start it needs no garbage collection, and
    # the whole heap is freed at once when it ends; the text (a refc binary) is not copied.
    heap_words = 10_000 + 300 * :ets.info(tab, :size)
    {pid, ref} = :erlang.spawn_opt(fn -> exit({:rendered, render(context)}) end, [:monitor, min_heap_size: heap_words])

    receive do
      {:DOWN, ^ref, :process, ^pid, {:rendered, text}} -> text
      {:DOWN, ^ref, :process, ^pid, reason} -> exit({reason, {__MODULE__, :scrape, [probe]}})
    end
  end

  defp render(%{deltas: deltas, tab: tab, families: families, handlers: handlers, opts: opts}) do
    IO.iodata_to_binary([
      Beam.render(deltas, opts),
      Telemetry.render(tab, families),
      Exposition.family(
        "stampede_probe_telemetry_handlers",
        "gauge",
        "Telemetry handlers of this probe still attached: 0 when :telemetry is not loaded, fewer than at start when :telemetry detached one that failed.",
        [Exposition.sample("stampede_probe_telemetry_handlers", [], attached(handlers))]
      )
    ])
  end

  defp attached([]), do: 0

  defp attached(ids) do
    ours = MapSet.new(ids)
    :telemetry.list_handlers([]) |> Enum.map(& &1.id) |> Enum.uniq() |> Enum.count(&MapSet.member?(ours, &1))
  catch
    _, _ -> 0
  end

  @doc false
  def options!(opts) do
    unless Keyword.keyword?(opts),
      do: raise(ArgumentError, "Stampede.Probe options are a keyword list, got: #{inspect(opts)}")

    for {key, value} <- opts do
      unless Keyword.has_key?(@defaults, key) do
        raise ArgumentError,
              "unknown Stampede.Probe option #{inspect(key)}; the known ones are " <>
                Enum.map_join(Keyword.keys(@defaults), ", ", &inspect/1)
      end

      unless valid?(key, value),
        do: raise(ArgumentError, "Stampede.Probe option #{inspect(key)}: invalid value #{inspect(value)}")
    end

    Keyword.merge(@defaults, opts)
  end

  defp valid?(:port, p), do: is_integer(p) and p in 0..65_535
  defp valid?(:ip, ip), do: is_tuple(ip) and tuple_size(ip) in [4, 8]
  defp valid?(:name, name), do: is_atom(name) or match?({:global, _}, name) or match?({:via, _, _}, name)
  defp valid?(:repos, repos), do: is_list(repos) and Enum.all?(repos, &(is_atom(&1) or atoms?(&1)))
  defp valid?(:endpoint_prefix, prefix), do: atoms?(prefix)
  defp valid?(:max_label_sets, n), do: is_integer(n) and n > 0
  defp valid?(:message_queues, b), do: is_boolean(b)
  defp valid?(:max_connections, n), do: is_integer(n) and n > 0
  defp valid?(:on_listen_error, v), do: v in [:warn, :stop]

  defp atoms?(list), do: is_list(list) and list != [] and Enum.all?(list, &is_atom/1)

  ## Server

  @impl GenServer
  def init(opts) do
    # Trapping exits makes the supervisor's shutdown run terminate/2, which detaches the handlers.
    Process.flag(:trap_exit, true)

    case Http.listen(opts[:ip], opts[:port]) do
      {:ok, socket} ->
        {:ok, port} = :inet.port(socket)
        tab = :ets.new(__MODULE__, [:set, :public, write_concurrency: true])

        {handlers, families} =
          case Telemetry.attach(tab, opts) do
            {:ok, handlers, families} ->
              {handlers, families}

            {:error, reason} ->
              Logger.warning("Stampede.Probe: telemetry handlers not attached (#{inspect(reason)}); BEAM series only")
              {[], []}
          end

        # Counted per process: it goes off when this process ends, unless others enabled it.
        :erlang.system_flag(:scheduler_wall_time, true)
        ctx = %{probe: self(), connections: :counters.new(1, []), max_connections: opts[:max_connections]}

        {:ok,
         %{
           socket: socket,
           ip: opts[:ip],
           port: port,
           tab: tab,
           handlers: handlers,
           families: families,
           acceptor: Http.start_acceptor(socket, ctx),
           wall: Beam.wall_time_sample(),
           opts: opts
         }}

      {:error, reason} ->
        where = "#{:inet.ntoa(opts[:ip])}:#{opts[:port]}"

        case opts[:on_listen_error] do
          :stop ->
            {:stop, {:listen, where, reason}}

          :warn ->
            Logger.warning("Stampede.Probe not started: cannot listen on #{where} (#{:inet.format_error(reason)})")
            :ignore
        end
    end
  end

  @impl GenServer
  def handle_call(:port, _from, state), do: {:reply, state.port, state}
  def handle_call(:address, _from, state), do: {:reply, {state.ip, state.port}, state}

  def handle_call(:scrape, _from, state) do
    now = Beam.wall_time_sample()

    reply = %{
      deltas: Beam.utilization(state.wall, now),
      tab: state.tab,
      families: state.families,
      handlers: state.handlers,
      opts: state.opts
    }

    {:reply, reply, %{state | wall: now}}
  end

  @impl GenServer
  def handle_info({:EXIT, acceptor, reason}, %{acceptor: acceptor} = state), do: {:stop, {:acceptor, reason}, state}
  def handle_info(_other, state), do: {:noreply, state}

  @impl GenServer
  def terminate(_reason, state) do
    Telemetry.detach(state.handlers)
    :gen_tcp.close(state.socket)
    :erlang.system_flag(:scheduler_wall_time, false)
    :ok
  end
end
