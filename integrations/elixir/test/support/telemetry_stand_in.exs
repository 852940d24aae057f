defmodule :telemetry do
  @moduledoc """
  TEST STAND-IN for the `telemetry` library (beam-telemetry/telemetry), which Debian does
  not package and which this project cannot fetch (no Hex). A Phoenix app always has the
  real one; the tests load this instead, and only when the real one is not on the code
  path (test_helper.exs).

  It keeps the public semantics of telemetry 1.x that the probe relies on, as read from
  telemetry.erl:

    * `attach/4`, `attach_many/4`: the handler must be a 4-arity function and every event
      name a non-empty list of atoms (else `badarg`); an id already attached gives
      `{:error, :already_exists}`.
    * `detach/1`: `:ok`, or `{:error, :not_found}`.
    * `execute/3`: runs every handler of the event in the calling process, in no promised
      order; a handler that raises, exits or throws is detached, a
      `[:telemetry, :handler, :failure]` event is emitted and an error is logged. A number
      instead of a measurements map becomes `%{value: n}` (deprecated in the real one).
    * `span/3`: `prefix ++ [:start]`, then `[:stop]` with `duration` (native units) or
      `[:exception]` with `kind`, `reason`, `stacktrace`, and `telemetry_span_context`.
    * `list_handlers/1`: the handlers whose event starts with the prefix.

  Not the same: the handlers live in a plain ETS bag owned by a process `start/0` spawns
  (the real library has an application and a handler table process), and attach/detach
  are not serialized through that process (the tests attach from one process at a time).
  """
  require Logger

  @table :telemetry_stand_in_handlers

  @doc false
  def __stand_in__, do: true

  @doc "Creates the handler table (once)."
  def start do
    if :ets.whereis(@table) == :undefined do
      parent = self()

      spawn(fn ->
        :ets.new(@table, [:bag, :public, :named_table, read_concurrency: true])
        send(parent, :telemetry_stand_in_ready)
        Process.sleep(:infinity)
      end)

      receive do
        :telemetry_stand_in_ready -> :ok
      end
    end

    :ok
  end

  def attach(id, event, fun, config), do: attach_many(id, [event], fun, config)

  def attach_many(id, events, fun, config) when is_function(fun, 4) do
    unless is_list(events) and Enum.all?(events, &event_name?/1), do: :erlang.error(:badarg, [events])

    if :ets.match(@table, {:_, id, :_, :_}) != [] do
      {:error, :already_exists}
    else
      :ets.insert(@table, for(event <- events, do: {event, id, fun, config}))
      :ok
    end
  end

  def detach(id) do
    case :ets.match_object(@table, {:_, id, :_, :_}) do
      [] ->
        {:error, :not_found}

      rows ->
        Enum.each(rows, &:ets.delete_object(@table, &1))
        :ok
    end
  end

  def execute(event, measurements), do: execute(event, measurements, %{})

  def execute(event, value, metadata) when is_number(value), do: execute(event, %{value: value}, metadata)

  def execute(event, measurements, metadata) when is_map(measurements) and is_map(metadata) do
    for {_, id, fun, config} <- :ets.lookup(@table, event) do
      try do
        fun.(event, measurements, metadata, config)
      catch
        kind, reason ->
          stacktrace = __STACKTRACE__
          detach(id)

          execute(
            [:telemetry, :handler, :failure],
            %{monotonic_time: System.monotonic_time(), system_time: System.system_time()},
            %{
              event_name: event,
              handler_id: id,
              handler_config: config,
              kind: kind,
              reason: reason,
              stacktrace: stacktrace
            }
          )

          Logger.error(
            "Handler #{inspect(id)} has failed and has been detached. Class=#{inspect(kind)} Reason=#{inspect(reason)}"
          )
      end
    end

    :ok
  end

  def span(prefix, start_metadata, fun) do
    start = System.monotonic_time()
    context = make_ref()
    start_metadata = Map.put_new(start_metadata, :telemetry_span_context, context)
    execute(prefix ++ [:start], %{system_time: System.system_time(), monotonic_time: start}, start_metadata)

    try do
      {result, stop_metadata} = fun.()
      stop = System.monotonic_time()

      execute(
        prefix ++ [:stop],
        %{duration: stop - start, monotonic_time: stop},
        Map.put_new(stop_metadata, :telemetry_span_context, context)
      )

      result
    catch
      kind, reason ->
        stacktrace = __STACKTRACE__
        stop = System.monotonic_time()

        execute(
          prefix ++ [:exception],
          %{duration: stop - start, monotonic_time: stop},
          Map.merge(start_metadata, %{kind: kind, reason: reason, stacktrace: stacktrace})
        )

        :erlang.raise(kind, reason, stacktrace)
    end
  end

  def list_handlers(prefix) when is_list(prefix) do
    for {event, id, fun, config} <- :ets.tab2list(@table), List.starts_with?(event, prefix) do
      %{id: id, event_name: event, function: fun, config: config}
    end
  end

  defp event_name?([_ | _] = name), do: Enum.all?(name, &is_atom/1)
  defp event_name?(_), do: false
end
