defmodule Stampede.ExpositionParser do
  @moduledoc """
  A strict parser of the Prometheus text exposition format 0.0.4, for the tests: it
  rejects what a Prometheus server rejects and, stricter, what the probe promises never to
  write (comments other than HELP/TYPE, empty lines, a family without HELP or TYPE).

  Checked: UTF-8, a final line feed, no carriage returns; `# HELP name text` then
  `# TYPE name type` before a family's samples, each family declared once; sample lines
  `name{label="value",...} value [timestamp]` with valid metric and label names (none
  starting with `__`), only `\\\\`, `\\"` and `\\n` escapes in label values and only
  `\\\\`, `\\n` in HELP text, no label twice, Go-syntax float values; every sample inside
  the family declared last (histogram: `_bucket`, `_sum`, `_count`); no series twice;
  counters named `*_total` and not negative; per histogram label set: `le` on buckets only,
  increasing bounds ending at `+Inf`, cumulative counts that never decrease, `_count` equal
  to the `+Inf` bucket, a `_sum`.

  `parse!/1` returns `%{family => %{type:, help:, samples: [{name, labels, value}]}}` with
  labels as a map and values as numbers (`:inf`, `:neg_inf`, `:nan` for the specials).
  """

  @metric_name ~r/\A[a-zA-Z_:][a-zA-Z0-9_:]*\z/
  @label_name ~r/\A[a-zA-Z_][a-zA-Z0-9_]*\z/
  @float ~r/\A[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\z/
  @types ~w(counter gauge histogram summary untyped)

  def parse!(text) do
    unless String.valid?(text), do: fail(0, "not UTF-8")
    unless String.ends_with?(text, "\n"), do: fail(0, "no line feed at the end")
    if String.contains?(text, "\r"), do: fail(0, "carriage return")

    {families, _current} =
      text
      |> String.split("\n")
      |> Enum.drop(-1)
      |> Enum.with_index(1)
      |> Enum.reduce({%{}, nil}, fn {line, n}, acc -> line(line, n, acc) end)

    for {name, family} <- families do
      unless family.type, do: fail(0, "family #{name} has HELP but no TYPE")
      check_family!(name, %{family | samples: Enum.reverse(family.samples)})
    end
    |> Map.new()
  end

  defp line("", n, _acc), do: fail(n, "empty line")

  defp line("# HELP " <> rest, n, {families, _current}) do
    {name, help} = split_name(rest, n)
    if Map.has_key?(families, name), do: fail(n, "family #{name} declared twice")
    check_escapes!(help, ["\\\\", "\\n"], n)
    {Map.put(families, name, %{type: nil, help: unescape(help), samples: []}), name}
  end

  defp line("# TYPE " <> rest, n, {families, current}) do
    {name, type} = split_name(rest, n)
    unless name == current, do: fail(n, "TYPE #{name} does not follow its HELP")
    unless type in @types, do: fail(n, "unknown type #{inspect(type)}")
    if families[name].type, do: fail(n, "TYPE #{name} twice")
    if families[name].samples != [], do: fail(n, "TYPE #{name} after its samples")
    {put_in(families[name].type, type), name}
  end

  defp line("#" <> _, n, _acc), do: fail(n, "a comment other than HELP and TYPE")

  defp line(line, n, {families, current}) do
    {name, labels, value} = sample(line, n)
    family = current && families[current]
    unless family && family.type, do: fail(n, "sample #{name} before any HELP and TYPE")

    allowed =
      case family.type do
        "histogram" -> [current <> "_bucket", current <> "_sum", current <> "_count"]
        "summary" -> [current, current <> "_sum", current <> "_count"]
        _ -> [current]
      end

    unless name in allowed, do: fail(n, "sample #{name} outside its family #{current}")
    {put_in(families[current].samples, [{name, labels, value} | family.samples]), current}
  end

  defp split_name(rest, n) do
    case String.split(rest, " ", parts: 2) do
      [name, text] ->
        if Regex.match?(@metric_name, name), do: {name, text}, else: fail(n, "bad metric name #{inspect(name)}")

      _ ->
        fail(n, "HELP or TYPE without text")
    end
  end

  defp sample(line, n) do
    {name, rest} =
      case Regex.run(~r/\A([^{ ]+)(.*)\z/s, line) do
        [_, name, rest] -> {name, rest}
        _ -> fail(n, "no metric name")
      end

    unless Regex.match?(@metric_name, name), do: fail(n, "bad metric name #{inspect(name)}")
    {labels, rest} = if String.starts_with?(rest, "{"), do: labels(rest, n), else: {%{}, rest}

    value =
      case String.split(rest, " ") do
        ["", value] -> number(value, n)
        ["", value, ts] -> if(Regex.match?(~r/\A-?\d+\z/, ts), do: number(value, n), else: fail(n, "bad timestamp"))
        _ -> fail(n, "expected one space, a value and maybe a timestamp, got #{inspect(rest)}")
      end

    {name, labels, value}
  end

  # `{` already seen: name="value" pairs separated by commas, up to `}`.
  defp labels("{" <> rest, n), do: label_pairs(rest, %{}, n)

  defp label_pairs(rest, acc, n) do
    case Regex.run(~r/\A([^=]*)="/, rest) do
      [matched, label] ->
        unless Regex.match?(@label_name, label) and not String.starts_with?(label, "__"),
          do: fail(n, "bad label name #{inspect(label)}")

        if Map.has_key?(acc, label), do: fail(n, "label #{label} twice")
        {value, rest} = label_value(binary_part(rest, byte_size(matched), byte_size(rest) - byte_size(matched)), [], n)
        acc = Map.put(acc, label, value)

        case rest do
          "," <> rest -> label_pairs(rest, acc, n)
          "}" <> rest -> {acc, rest}
          _ -> fail(n, "expected , or } after a label")
        end

      _ ->
        fail(n, "bad labels: #{inspect(rest)}")
    end
  end

  defp label_value("\\\\" <> rest, acc, n), do: label_value(rest, ["\\" | acc], n)
  defp label_value("\\\"" <> rest, acc, n), do: label_value(rest, ["\"" | acc], n)
  defp label_value("\\n" <> rest, acc, n), do: label_value(rest, ["\n" | acc], n)
  defp label_value("\\" <> _, _acc, n), do: fail(n, "bad escape in a label value")
  defp label_value("\"" <> rest, acc, _n), do: {acc |> Enum.reverse() |> IO.iodata_to_binary(), rest}
  defp label_value("\n" <> _, _acc, n), do: fail(n, "raw line feed in a label value")
  defp label_value("", _acc, n), do: fail(n, "unterminated label value")
  defp label_value(<<c::utf8, rest::binary>>, acc, n), do: label_value(rest, [<<c::utf8>> | acc], n)

  defp check_escapes!(text, allowed, n) do
    for [escape] <- Regex.scan(~r/\\./s, text), escape not in allowed, do: fail(n, "bad escape #{inspect(escape)}")
    if String.ends_with?(String.replace(text, "\\\\", ""), "\\"), do: fail(n, "dangling backslash")
  end

  defp unescape(text), do: text |> String.replace("\\n", "\n") |> String.replace("\\\\", "\\")

  defp number("+Inf", _n), do: :inf
  defp number("Inf", _n), do: :inf
  defp number("-Inf", _n), do: :neg_inf
  defp number("NaN", _n), do: :nan

  defp number(text, n) do
    unless Regex.match?(@float, text), do: fail(n, "bad value #{inspect(text)}")

    case Integer.parse(text) do
      {i, ""} -> i
      _ -> go_float(text)
    end
  end

  # Go also accepts "1." and ".5"; Float.parse wants a digit on both sides of the point.
  defp go_float(text) do
    text = String.replace(text, ~r/\.(?=[eE]|\z)/, "")
    text = String.replace(text, ~r/\A([+-]?)\./, "\\g{1}0.")
    {f, ""} = Float.parse(text)
    f
  end

  defp check_family!(name, %{type: type, samples: samples} = family) do
    series = Enum.map(samples, fn {n, labels, _} -> {n, labels} end)

    case series -- Enum.uniq(series) do
      [] -> :ok
      [dup | _] -> fail(0, "series #{inspect(dup)} twice")
    end

    case type do
      "counter" ->
        unless String.ends_with?(name, "_total"), do: fail(0, "counter #{name} does not end in _total")

        for {_, _, v} <- samples,
            v == :nan or v == :neg_inf or (is_number(v) and v < 0),
            do: fail(0, "counter #{name} has value #{inspect(v)}")

      "histogram" ->
        check_histogram!(name, samples)

      _ ->
        :ok
    end

    {name, family}
  end

  defp check_histogram!(name, samples) do
    by_set = Enum.group_by(samples, fn {_, labels, _} -> Map.delete(labels, "le") end)

    for {set, group} <- by_set do
      buckets = for {n, labels, v} <- group, n == name <> "_bucket", do: {labels, v}
      sums = for {n, labels, v} <- group, n == name <> "_sum", do: {labels, v}
      counts = for {n, labels, v} <- group, n == name <> "_count", do: {labels, v}
      where = "#{name}#{inspect(set)}"

      for {labels, _} <- sums ++ counts, Map.has_key?(labels, "le"), do: fail(0, "#{where}: le on _sum or _count")
      for {labels, _} <- buckets, not Map.has_key?(labels, "le"), do: fail(0, "#{where}: a bucket without le")
      unless length(sums) == 1 and length(counts) == 1, do: fail(0, "#{where}: needs one _sum and one _count")
      if buckets == [], do: fail(0, "#{where}: no buckets")

      bounds = Enum.map(buckets, fn {labels, _} -> number(labels["le"], 0) end)
      unless List.last(bounds) == :inf, do: fail(0, "#{where}: the last bucket is not +Inf")

      finite = Enum.drop(bounds, -1)

      unless finite == Enum.sort(finite) and finite == Enum.uniq(finite) and Enum.all?(finite, &is_number/1),
        do: fail(0, "#{where}: bucket bounds not increasing")

      values = Enum.map(buckets, fn {_, v} -> v end)
      unless values == Enum.sort(values), do: fail(0, "#{where}: bucket counts decrease")
      [{_, count}] = counts

      unless count == List.last(values),
        do: fail(0, "#{where}: _count #{count} is not the +Inf bucket #{List.last(values)}")
    end
  end

  defp fail(line, why), do: raise(ArgumentError, "invalid exposition (line #{line}): #{why}")

  ## Helpers for assertions

  @doc "The value of the sample `name` whose labels include `labels` (exactly one must match)."
  def value(families, name, labels \\ %{}) do
    case find(families, name, labels) do
      [{_, _, v}] -> v
      found -> raise ArgumentError, "#{length(found)} samples #{name} with #{inspect(labels)}"
    end
  end

  @doc "The samples named `name` whose labels include `labels`."
  def find(families, name, labels \\ %{}) do
    for {_, %{samples: samples}} <- families,
        {^name, sample_labels, _} = sample <- samples,
        Enum.all?(labels, fn {k, v} -> sample_labels[to_string(k)] == v end),
        do: sample
  end
end
