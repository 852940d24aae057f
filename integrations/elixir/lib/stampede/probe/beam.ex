defmodule Stampede.Probe.Beam do
  @moduledoc false
  # The BEAM's own series, read when a scrape asks for them (nothing runs between scrapes).
  #
  # Scheduler utilization comes from `:erlang.statistics(:scheduler_wall_time)`: per
  # scheduler, the time it was busy and the time that passed, both since the flag was
  # enabled. The probe enables the flag in its own process (the flag is counted per process,
  # so it goes off again when the probe stops unless someone else enabled it too) and keeps
  # the previous sample: a scrape reports busy / elapsed between the previous scrape (or the
  # probe's start) and now. Two scrapers polling the same probe each see the interval since
  # the other's last scrape.

  alias Stampede.Probe.Exposition, as: X

  @doc "A scheduler wall-time sample (`:undefined` when the flag is off)."
  def wall_time_sample do
    case :erlang.statistics(:scheduler_wall_time) do
      :undefined -> :undefined
      sample -> Enum.sort(sample)
    end
  end

  @doc """
  What happened between two samples, per scheduler: `[{type, id, busy, elapsed}]` (native
  time units), type `"normal"` (ids 1..N) or `"dirty_cpu"` (the ids after them, as
  `:erlang.statistics/1` numbers them).
  """
  def utilization(:undefined, _now), do: []
  def utilization(_prev, :undefined), do: []

  def utilization(prev, now) do
    normal = :erlang.system_info(:schedulers)
    before = Map.new(prev, fn {id, active, total} -> {id, {active, total}} end)

    for {id, active, total} <- now, Map.has_key?(before, id) do
      {active0, total0} = Map.fetch!(before, id)
      type = if id <= normal, do: "normal", else: "dirty_cpu"
      {type, id, active - active0, total - total0}
    end
  end

  @doc "Every BEAM family, as exposition text. `deltas` is what `utilization/2` returned."
  def render(deltas, opts) do
    [
      utilization_families(deltas),
      run_queue_families(),
      memory_family(),
      system_families(),
      if(Keyword.get(opts, :message_queues, true), do: message_queue_families(), else: []),
      statistics_families()
    ]
  end

  defp utilization_families(deltas) do
    per_scheduler =
      for {type, id, busy, elapsed} <- deltas do
        X.sample(
          "erlang_vm_scheduler_utilization_ratio",
          [{"type", type}, {"scheduler", Integer.to_string(id)}],
          ratio(busy, elapsed)
        )
      end

    per_type =
      deltas
      |> Enum.group_by(fn {type, _, _, _} -> type end, fn {_, _, busy, elapsed} -> {busy, elapsed} end)
      |> Enum.sort_by(fn {type, _} -> if type == "normal", do: 0, else: 1 end)
      |> Enum.map(fn {type, pairs} ->
        {busy, elapsed} = Enum.reduce(pairs, {0, 0}, fn {b, e}, {bs, es} -> {bs + b, es + e} end)
        X.sample("erlang_vm_schedulers_utilization_ratio", [{"type", type}], ratio(busy, elapsed))
      end)

    [
      X.family(
        "erlang_vm_scheduler_utilization_ratio",
        "gauge",
        "Fraction of the time each scheduler was busy since the previous scrape (or the probe's start); scheduler is the id :erlang.statistics(:scheduler_wall_time) gives.",
        per_scheduler
      ),
      X.family(
        "erlang_vm_schedulers_utilization_ratio",
        "gauge",
        "Fraction of the time the schedulers of each type were busy since the previous scrape, all of them together (1.0: every one busy all the time).",
        per_type
      )
    ]
  end

  defp ratio(_busy, elapsed) when elapsed <= 0, do: 0.0
  defp ratio(busy, elapsed), do: min(busy / elapsed, 1.0)

  defp run_queue_families do
    lengths = :erlang.statistics(:run_queue_lengths_all)
    normal = length(lengths) - 2
    names = Enum.map(1..normal, &Integer.to_string/1) ++ ["dirty_cpu", "dirty_io"]

    [
      X.family(
        "erlang_vm_run_queue_length",
        "gauge",
        "Processes and ports ready to run, per run queue: one per normal scheduler (1..N), then the dirty CPU and dirty IO queues.",
        Enum.zip_with(names, lengths, fn name, n -> X.sample("erlang_vm_run_queue_length", [{"queue", name}], n) end)
      ),
      X.family(
        "erlang_vm_run_queues_length",
        "gauge",
        "Processes and ports ready to run in all normal and dirty CPU run queues together.",
        [X.sample("erlang_vm_run_queues_length", [], :erlang.statistics(:total_run_queue_lengths))]
      )
    ]
  end

  defp memory_family do
    X.family(
      "erlang_vm_memory_bytes",
      "gauge",
      "Memory as :erlang.memory/0 reports it, by kind; the kinds overlap (total = processes + system; system includes atom, binary, code and ets).",
      for(
        {kind, bytes} <- :erlang.memory(),
        do: X.sample("erlang_vm_memory_bytes", [{"kind", Atom.to_string(kind)}], bytes)
      )
    )
  end

  defp system_families do
    gauges = [
      {"erlang_vm_processes", "Processes that exist now.", :process_count},
      {"erlang_vm_processes_limit", "The most processes that can exist at once (+P).", :process_limit},
      {"erlang_vm_ports", "Ports (sockets, files, drivers) that exist now.", :port_count},
      {"erlang_vm_ports_limit", "The most ports that can exist at once (+Q).", :port_limit},
      {"erlang_vm_atoms", "Atoms that exist now.", :atom_count},
      {"erlang_vm_atoms_limit", "The most atoms that can exist (+t).", :atom_limit},
      {"erlang_vm_ets_tables", "ETS tables that exist now.", :ets_count},
      {"erlang_vm_ets_tables_limit", "The ETS table limit the runtime reports.", :ets_limit}
    ]

    online = [
      {"normal", :erlang.system_info(:schedulers_online)},
      {"dirty_cpu", :erlang.system_info(:dirty_cpu_schedulers_online)},
      {"dirty_io", :erlang.system_info(:dirty_io_schedulers)}
    ]

    [
      for {name, help, item} <- gauges do
        X.family(name, "gauge", help, [X.sample(name, [], :erlang.system_info(item))])
      end,
      X.family(
        "erlang_vm_schedulers_online",
        "gauge",
        "Schedulers online, by type.",
        for({type, n} <- online, do: X.sample("erlang_vm_schedulers_online", [{"type", type}], n))
      )
    ]
  end

  defp message_queue_families do
    {max, pid, sum} =
      Enum.reduce(Process.list(), {0, nil, 0}, fn pid, {max, at, sum} = acc ->
        case :erlang.process_info(pid, :message_queue_len) do
          {:message_queue_len, n} when n > max -> {n, pid, sum + n}
          {:message_queue_len, n} -> {max, at, sum + n}
          :undefined -> acc
        end
      end)

    # No pid label: Stampede keeps one timeline series per label set, and the pid would make
    # a new one each time another process of the same LiveView or channel is the longest.
    {kind, process} = if pid, do: identify(pid), else: {"none", ""}

    [
      X.family(
        "erlang_vm_largest_message_queue_length",
        "gauge",
        "The longest message queue of any process, and whose it is: process is its registered name, else the LiveView or channel module, else its initial call; kind says which (registered, live_view, channel, label, initial_call; none when every queue is empty).",
        [
          X.sample(
            "erlang_vm_largest_message_queue_length",
            [{"process", process}, {"kind", kind}],
            max
          )
        ]
      ),
      X.family("erlang_vm_message_queues_length", "gauge", "Messages waiting in all processes' queues together.", [
        X.sample("erlang_vm_message_queues_length", [], sum)
      ])
    ]
  end

  @doc """
  How to name a process: `{kind, name}`.

  A registered name wins. Then the labels Phoenix puts in the process dictionary:
  LiveView 1.x labels its process `{Phoenix.LiveView, view, topic}` (`:"$process_label"`)
  and, since 0.17, sets `:"$initial_call"` to `{view, :mount, 3}` when it mounts; Phoenix
  1.7's channel server labels `{Phoenix.Channel, channel, topic}` and sets
  `{channel, :join, 3}`. An older LiveView process is only known as
  `{Phoenix.LiveView.Channel, :init, 1}`: its view is in its state, which a process with a
  long queue would be slow to give (so it is not asked). Otherwise its label, or its
  initial call (`:proc_lib`'s, else the spawn's).
  """
  def identify(pid) do
    case Process.info(pid, [:registered_name, :dictionary, :initial_call]) do
      nil ->
        {"exited", ""}

      info ->
        dict = Keyword.get(info, :dictionary, [])

        case {Keyword.get(info, :registered_name), dict[:"$process_label"], dict[:"$initial_call"]} do
          {name, _, _} when is_atom(name) and name != [] -> {"registered", X.label_value(name)}
          {_, {Phoenix.LiveView, view, _topic}, _} when is_atom(view) -> {"live_view", X.label_value(view)}
          {_, {Phoenix.Channel, channel, _topic}, _} when is_atom(channel) -> {"channel", X.label_value(channel)}
          {_, _, {Phoenix.LiveView.Channel, _, _}} -> {"live_view", "Phoenix.LiveView.Channel"}
          {_, nil, {view, :mount, 3}} when is_atom(view) -> {"live_view", X.label_value(view)}
          {_, nil, {channel, :join, 3}} when is_atom(channel) -> {"channel", X.label_value(channel)}
          {_, label, _} when label != nil -> {"label", X.label_value(label)}
          {_, nil, {m, f, a}} -> {"initial_call", mfa(m, f, a)}
          _ -> {"initial_call", info |> Keyword.get(:initial_call) |> mfa()}
        end
    end
  end

  defp mfa({m, f, a}), do: mfa(m, f, a)
  defp mfa(_), do: ""
  defp mfa(m, f, a), do: X.label_value("#{X.label_value(m)}.#{f}/#{a}")

  defp statistics_families do
    {gcs, words, _} = :erlang.statistics(:garbage_collection)
    {reductions, _} = :erlang.statistics(:reductions)
    {switches, _} = :erlang.statistics(:context_switches)
    {{:input, input}, {:output, output}} = :erlang.statistics(:io)
    uptime = :erlang.monotonic_time() - :erlang.system_info(:start_time)

    counters = [
      {"erlang_vm_gc_runs_total", "Garbage collections since the VM started.", gcs},
      {"erlang_vm_gc_reclaimed_bytes_total",
       "Bytes reclaimed by garbage collection since the VM started (words x word size).",
       words * :erlang.system_info(:wordsize)},
      {"erlang_vm_reductions_total", "Reductions (units of work) since the VM started.", reductions},
      {"erlang_vm_context_switches_total", "Process context switches since the VM started.", switches},
      {"erlang_vm_io_received_bytes_total", "Bytes received through ports (sockets, files) since the VM started.",
       input},
      {"erlang_vm_io_sent_bytes_total", "Bytes sent through ports since the VM started.", output}
    ]

    [
      for {name, help, value} <- counters do
        X.family(name, "counter", help, [X.sample(name, [], value)])
      end,
      X.family("erlang_vm_uptime_seconds", "gauge", "Time since the VM started.", [
        X.sample("erlang_vm_uptime_seconds", [], uptime / System.convert_time_unit(1, :second, :native))
      ])
    ]
  end
end
