defmodule Stampede.Probe.Telemetry do
  @moduledoc false
  # Phoenix, LiveView and Ecto `:telemetry` events as Prometheus histograms.
  #
  # The handlers run in the app's own processes, on the request's hot path, so each one
  # pattern-matches the few fields it labels with and makes one `:ets.update_counter/3`
  # call (Ecto: one per measurement present). A histogram row is
  #
  #     {{family, labels, scheduler_id}, bucket_1, ..., bucket_16, bucket_inf, sum}
  #
  # with per-bucket (not cumulative) counts and the sum in nanoseconds (integers:
  # `update_counter` adds exactly, and the conversion to seconds happens once per scrape).
  # Durations arrive in native time units; one `:erlang.convert_time_unit/3` per event
  # makes them nanoseconds, which the bucket bounds are compiled in (a chain of guards, no
  # list walked). The handler's config is a 3-tuple: `:telemetry` may copy it out of its
  # handler table on every event.
  # Rows are per scheduler so that concurrent handlers on different schedulers update
  # different rows instead of queueing on one row's lock; a scrape adds them up. Labels
  # stay raw terms (a module, a binary, an integer) until the scrape formats them: no
  # string is built on the hot path.
  #
  # Cardinality: each family admits at most `max_label_sets` label sets. The first event of
  # a label set on a scheduler misses its row (`update_counter` raises badarg) and takes the
  # slow path: a label set already admitted gets its row; a new one is admitted while the
  # family has room (a marker row `{{:set, family, labels}}` plus a per-family count);
  # otherwise the event goes to the family's `other` label set, every label "other", so
  # counts and sums stay complete while the series stay bounded. Events of a label set that
  # was not admitted take that slow path every time (three ETS operations instead of one),
  # which is the price of never growing the table.

  @compile {:no_warn_undefined, :telemetry}

  alias Stampede.Probe.Exposition, as: X

  # Upper bounds in seconds: 100 µs to 10 s, about 2.5x apart (a 1-2.5-5 series), so that a
  # sub-millisecond LiveView event and a slow page both land in a bucket that tells them
  # apart; above 10 s is +Inf.
  @bounds [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]
  @le Enum.map(@bounds, &:erlang.float_to_binary(&1, [{:decimals, 6}, :compact])) ++ ["+Inf"]
  # Row positions: 1 the key, 2..17 the buckets, 18 +Inf, 19 the sum.
  @first_bucket 2
  @inf_pos length(@bounds) + 2
  @sum_pos length(@bounds) + 3

  # {id, name, label names, help}. The order is the order of the exposition.
  @phoenix_families [
    {:endpoint, "phoenix_endpoint_duration_seconds", ["method", "status"],
     "Time from the request arriving at the endpoint to the response being sent (Plug.Telemetry's stop event, [:phoenix, :endpoint, :stop] by default)."},
    {:router_dispatch, "phoenix_router_dispatch_duration_seconds", ["method", "route", "status"],
     "Time spent in the plug a route dispatched to ([:phoenix, :router_dispatch, :stop]); route is the route pattern, e.g. /rooms/:id."},
    {:live_view_mount, "phoenix_live_view_mount_duration_seconds", ["view", "connected"],
     "LiveView mount/3 time ([:phoenix, :live_view, :mount, :stop]); connected is false for the HTTP render, true over the socket."},
    {:live_view_handle_params, "phoenix_live_view_handle_params_duration_seconds", ["view", "connected"],
     "LiveView handle_params/3 time ([:phoenix, :live_view, :handle_params, :stop])."},
    {:live_view_handle_event, "phoenix_live_view_handle_event_duration_seconds", ["view", "event"],
     "LiveView handle_event/3 time ([:phoenix, :live_view, :handle_event, :stop])."},
    {:live_component_handle_event, "phoenix_live_component_handle_event_duration_seconds", ["component", "event"],
     "LiveComponent handle_event/3 time ([:phoenix, :live_component, :handle_event, :stop])."},
    {:channel_join, "phoenix_channel_join_duration_seconds", ["channel", "topic", "result"],
     "Channel join time ([:phoenix, :channel_joined]); topic is the part before the first colon followed by :* (room:42 is room:*)."},
    {:channel_handled_in, "phoenix_channel_handled_in_duration_seconds", ["channel", "topic", "event"],
     "Channel handle_in/3 time ([:phoenix, :channel_handled_in]); topic as for the join."}
  ]

  @ecto_families [
    {:ecto_total, "ecto_query_duration_seconds", ["repo", "source"],
     "Ecto query total time: queue + query + decode (the repo's [..., :query] event, total_time)."},
    {:ecto_queue, "ecto_query_queue_duration_seconds", ["repo", "source"],
     "Time the query waited to check a connection out of the pool (queue_time)."},
    {:ecto_query, "ecto_query_execution_duration_seconds", ["repo", "source"],
     "Time the database took to run the query (query_time)."},
    {:ecto_decode, "ecto_query_decode_duration_seconds", ["repo", "source"],
     "Time spent decoding the rows (decode_time)."}
  ]

  @doc "The bucket upper bounds, in seconds."
  def bounds, do: @bounds

  @doc "Every family as {id, name, label names, help}."
  def families, do: @phoenix_families ++ @ecto_families

  @doc "Whether `:telemetry` is there to attach to."
  def available?, do: Code.ensure_loaded?(:telemetry) and function_exported?(:telemetry, :attach_many, 4)

  @doc """
  Attaches the handlers, writing into `tab`. Returns `{:ok, handler_ids, families}` (no ids
  and no families when `:telemetry` is not loaded) or `{:error, reason}`.
  """
  def attach(tab, opts) do
    if available?() do
      endpoint_stop = Keyword.fetch!(opts, :endpoint_prefix) ++ [:stop]
      repos = Map.new(Keyword.fetch!(opts, :repos), fn repo -> {repo_prefix(repo) ++ [:query], repo_label(repo)} end)
      families = @phoenix_families ++ if(map_size(repos) > 0, do: @ecto_families, else: [])
      for {id, _, _, _} <- families, do: :ets.insert(tab, {{:sets, id}, 0})

      cap = Keyword.fetch!(opts, :max_label_sets)

      phoenix_events = [
        endpoint_stop,
        [:phoenix, :router_dispatch, :stop],
        [:phoenix, :live_view, :mount, :stop],
        [:phoenix, :live_view, :handle_params, :stop],
        [:phoenix, :live_view, :handle_event, :stop],
        [:phoenix, :live_component, :handle_event, :stop],
        [:phoenix, :channel_joined],
        [:phoenix, :channel_handled_in]
      ]

      phoenix_id = {Stampede.Probe, self(), :phoenix}
      ecto_id = {Stampede.Probe, self(), :ecto}

      with :ok <-
             :telemetry.attach_many(phoenix_id, phoenix_events, &__MODULE__.handle_phoenix/4, {tab, cap, endpoint_stop}),
           :ok <- attach_ecto(ecto_id, Map.keys(repos), {tab, cap, repos}) do
        ids = if map_size(repos) > 0, do: [phoenix_id, ecto_id], else: [phoenix_id]
        {:ok, ids, families}
      else
        error ->
          detach([phoenix_id, ecto_id])
          {:error, error}
      end
    else
      {:ok, [], []}
    end
  catch
    kind, reason -> {:error, {kind, reason}}
  end

  defp attach_ecto(_id, [], _config), do: :ok
  defp attach_ecto(id, events, config), do: :telemetry.attach_many(id, events, &__MODULE__.handle_query/4, config)

  @doc "Detaches the handlers (those already gone are fine)."
  def detach(ids) do
    for id <- ids, do: :telemetry.detach(id)
    :ok
  end

  # Ecto's default event prefix: MyApp.Repo is [:my_app, :repo].
  defp repo_prefix(prefix) when is_list(prefix), do: prefix

  defp repo_prefix(repo) when is_atom(repo) do
    repo |> Module.split() |> Enum.map(&(&1 |> Macro.underscore() |> String.to_atom()))
  end

  defp repo_label(prefix) when is_list(prefix), do: Enum.map_join(prefix, ".", &Atom.to_string/1)
  defp repo_label(repo) when is_atom(repo), do: repo

  ## Handlers: each clause matches what Phoenix documents for its event; anything else is
  ## ignored (a handler that raised would be detached by :telemetry for good).

  @doc false
  def handle_phoenix(event, %{duration: d}, %{conn: %{method: m, status: s}}, {_, _, event} = c)
      when is_integer(d),
      do: observe(c, :endpoint, {m, s}, d)

  def handle_phoenix([:phoenix, :router_dispatch, :stop], %{duration: d}, %{conn: %{method: m, status: s}, route: r}, c)
      when is_integer(d),
      do: observe(c, :router_dispatch, {m, r, s}, d)

  def handle_phoenix([:phoenix, :live_view, :mount, :stop], %{duration: d}, %{socket: %{view: v} = s}, c)
      when is_integer(d),
      do: observe(c, :live_view_mount, {v, connected?(s)}, d)

  def handle_phoenix([:phoenix, :live_view, :handle_params, :stop], %{duration: d}, %{socket: %{view: v} = s}, c)
      when is_integer(d),
      do: observe(c, :live_view_handle_params, {v, connected?(s)}, d)

  def handle_phoenix([:phoenix, :live_view, :handle_event, :stop], %{duration: d}, %{socket: %{view: v}, event: e}, c)
      when is_integer(d),
      do: observe(c, :live_view_handle_event, {v, e}, d)

  def handle_phoenix([:phoenix, :live_component, :handle_event, :stop], %{duration: d}, %{component: m, event: e}, c)
      when is_integer(d),
      do: observe(c, :live_component_handle_event, {m, e}, d)

  def handle_phoenix([:phoenix, :channel_joined], %{duration: d}, %{socket: %{channel: ch, topic: t}, result: r}, c)
      when is_integer(d),
      do: observe(c, :channel_join, {ch, topic_pattern(t), r}, d)

  def handle_phoenix([:phoenix, :channel_handled_in], %{duration: d}, %{socket: %{channel: ch, topic: t}, event: e}, c)
      when is_integer(d),
      do: observe(c, :channel_handled_in, {ch, topic_pattern(t), e}, d)

  def handle_phoenix(_event, _measurements, _metadata, _config), do: :ok

  @doc false
  def handle_query(event, measurements, metadata, c) when is_map(measurements) and is_map(metadata) do
    repo =
      case metadata do
        %{repo: repo} when is_atom(repo) and repo != nil -> repo
        _ -> Map.get(elem(c, 2), event)
      end

    labels = {repo, Map.get(metadata, :source)}
    observe_present(c, :ecto_total, labels, Map.get(measurements, :total_time))
    observe_present(c, :ecto_queue, labels, Map.get(measurements, :queue_time))
    observe_present(c, :ecto_query, labels, Map.get(measurements, :query_time))
    observe_present(c, :ecto_decode, labels, Map.get(measurements, :decode_time))
  end

  def handle_query(_event, _measurements, _metadata, _config), do: :ok

  defp observe_present(c, family, labels, d) when is_integer(d), do: observe(c, family, labels, d)
  defp observe_present(_c, _family, _labels, _absent), do: :ok

  # The LiveView socket has a transport pid once it is connected; the HTTP render has none.
  defp connected?(%{transport_pid: pid}) when is_pid(pid), do: true
  defp connected?(_socket), do: false

  # "room:42" -> {:prefix, "room"} (shown as room:*); a topic without a colon as it is.
  defp topic_pattern(topic) when is_binary(topic) do
    case :binary.match(topic, ":") do
      {at, _} -> {:prefix, binary_part(topic, 0, at)}
      :nomatch -> topic
    end
  end

  defp topic_pattern(topic), do: topic

  defp observe({tab, _cap, _} = c, family, labels, d) do
    key = {family, labels, :erlang.system_info(:scheduler_id)}
    ns = :erlang.convert_time_unit(d, :native, :nanosecond)
    ops = [{bucket(ns), 1}, {@sum_pos, ns}]

    try do
      :ets.update_counter(tab, key, ops)
      :ok
    catch
      :error, :badarg -> admit(c, family, labels, key, ops)
    end
  end

  # bucket(ns) when ns <= 100_000, do: 2; ... when ns <= 10_000_000_000, do: 17; else 18.
  for {bound, i} <- Enum.with_index(@bounds) do
    defp bucket(ns) when ns <= unquote(round(bound * 1.0e9)), do: unquote(@first_bucket + i)
  end

  defp bucket(_ns), do: @inf_pos

  defp admit({tab, cap, _}, family, labels, {_, _, scheduler} = key, ops) do
    marker = {:set, family, labels}

    key =
      cond do
        :ets.member(tab, marker) ->
          key

        :ets.lookup_element(tab, {:sets, family}, 2) >= cap ->
          {family, :other, scheduler}

        :ets.insert_new(tab, {marker}) ->
          :ets.update_counter(tab, {:sets, family}, 1)
          key

        # Another process admitted the same label set a moment ago.
        true ->
          key
      end

    :ets.update_counter(tab, key, ops, :erlang.make_tuple(@sum_pos, 0, [{1, key}]))
    :ok
  end

  ## Scrape

  @doc "The histogram families (those in `families`) as exposition text."
  def render(_tab, []), do: []

  def render(tab, families) do
    rows = :ets.select(tab, [{:"$1", [{:==, {:size, :"$1"}, @sum_pos}], [:"$1"]}])

    # The schedulers' rows of a label set added up...
    merged =
      Enum.reduce(rows, %{}, fn row, acc ->
        {family, labels, _scheduler} = elem(row, 0)
        counts = for pos <- @first_bucket..@inf_pos, do: elem(row, pos - 1)
        value = {counts, elem(row, @sum_pos - 1)}
        Map.update(acc, {family, labels}, value, &merge(&1, value))
      end)

    # ...then per family by label text, once formatted: two label sets that print the same
    # (cut at 200 bytes, or a real "other") are one series.
    by_family =
      Enum.reduce(merged, %{}, fn {{family, labels}, value}, acc ->
        text = label_text(family, labels)
        Map.update(acc, family, %{text => value}, fn series -> Map.update(series, text, value, &merge(&1, value)) end)
      end)

    for {id, name, _label_names, help} <- families do
      samples =
        by_family
        |> Map.get(id, %{})
        |> Enum.sort()
        |> Enum.map(fn {text, {counts, sum_ns}} -> histogram(name, text, counts, sum_ns / 1.0e9) end)

      X.family(name, "histogram", help, samples)
    end
  end

  defp merge({counts0, sum0}, {counts1, sum1}), do: {Enum.zip_with(counts0, counts1, &(&1 + &2)), sum0 + sum1}

  # One binary per series, appended to in place (the runtime grows a binary that only the
  # accumulator holds without copying it): as iodata, 1,200 series took 4 times the text's
  # size in heap and most of the scrape went to garbage collection. The label text is
  # formatted once per series and shared by its 17 bucket lines.
  defp histogram(name, text, counts, sum_seconds) do
    prefix = IO.iodata_to_binary([name, "_bucket{", text, ",le=\""])

    {lines, count} =
      Enum.zip_reduce(@le, counts, {<<>>, 0}, fn le, n, {lines, total} ->
        total = total + n
        {<<lines::binary, prefix::binary, le::binary, "\"} ", Integer.to_string(total)::binary, ?\n>>, total}
      end)

    <<lines::binary, IO.iodata_to_binary(name)::binary, "_sum{", text::binary, "} ", X.number(sum_seconds)::binary, ?\n,
      IO.iodata_to_binary(name)::binary, "_count{", text::binary, "} ", Integer.to_string(count)::binary, ?\n>>
  end

  defp label_text(family, labels) do
    {_, _, names, _} = List.keyfind(families(), family, 0)

    values =
      case labels do
        :other -> Enum.map(names, fn _ -> "other" end)
        tuple -> tuple |> Tuple.to_list() |> Enum.map(&render_value/1)
      end

    names |> Enum.zip(values) |> X.label_text()
  end

  defp render_value({:prefix, prefix}) when is_binary(prefix), do: X.label_value(prefix <> ":*")
  defp render_value(value), do: X.label_value(value)
end
