defmodule Stampede.Probe.Exposition do
  @moduledoc false
  # Writes the Prometheus text exposition format, version 0.0.4: one family is a `# HELP`
  # line, a `# TYPE` line, then its samples, `name{label="value",...} value`, each line
  # ending in "\n". Label values escape backslash, double quote and line feed; HELP text
  # escapes backslash and line feed. Values are integers, or floats as Elixir prints them
  # ("0.25", "1.0e-5": both are valid Go floats, which is what Prometheus parses), or "+Inf".

  @doc "A family: HELP and TYPE lines, then `samples` (iodata from `sample/3`)."
  def family(name, type, help, samples) when type in ["counter", "gauge", "histogram"] do
    ["# HELP ", name, ?\s, escape_help(help), "\n# TYPE ", name, ?\s, type, ?\n | samples]
  end

  @doc "One sample line; `labels` is a list of `{name, value}` with string values."
  def sample(name, labels, value), do: [name, labels(labels), ?\s, number(value), ?\n]

  def labels([]), do: []
  def labels(labels), do: [?{, label_text(labels), ?}]

  @doc "`name=\"value\",...` without the braces, as a binary."
  def label_text(labels) do
    labels |> Enum.map_intersperse(?,, fn {k, v} -> [k, "=\"", escape_label(v), ?"] end) |> IO.iodata_to_binary()
  end

  def number(n) when is_integer(n), do: Integer.to_string(n)
  # OTP 25's shortest round-trip form is several times faster than Float.to_string/1's.
  if String.to_integer(System.otp_release()) >= 25 do
    def number(n) when is_float(n), do: :erlang.float_to_binary(n, [:short])
  else
    def number(n) when is_float(n), do: Float.to_string(n)
  end
  def number(:infinity), do: "+Inf"

  @doc """
  A label value as text: a module without its `Elixir.` prefix, other atoms as they are,
  binaries that are not valid UTF-8 as Elixir would inspect them (Prometheus requires
  UTF-8), and every value cut at 200 bytes on a character boundary so that a long event
  name or route cannot bloat every scrape.
  """
  def label_value(nil), do: ""
  def label_value(v) when is_binary(v), do: v |> utf8() |> truncate()
  def label_value(v) when is_integer(v), do: Integer.to_string(v)
  def label_value(v) when is_boolean(v), do: Atom.to_string(v)

  def label_value(v) when is_atom(v) do
    case Atom.to_string(v) do
      "Elixir." <> module -> truncate(module)
      name -> truncate(name)
    end
  end

  def label_value(v), do: v |> inspect() |> truncate()

  @max_label_bytes 200

  defp truncate(s) when byte_size(s) <= @max_label_bytes, do: s

  defp truncate(s) do
    # The value is valid UTF-8 here, so the cut can only leave an incomplete last character.
    case :unicode.characters_to_binary(binary_part(s, 0, @max_label_bytes)) do
      {_incomplete_or_error, valid, _rest} -> valid <> "..."
      valid -> valid <> "..."
    end
  end

  defp utf8(s), do: if(String.valid?(s), do: s, else: inspect(s))

  # A byte loop rather than :binary.match/2, which would compile its pattern on every call.
  defp escape_label(v) do
    if special?(v, true) do
      v |> String.replace("\\", "\\\\") |> String.replace("\"", "\\\"") |> String.replace("\n", "\\n")
    else
      v
    end
  end

  defp escape_help(h) do
    if special?(h, false), do: h |> String.replace("\\", "\\\\") |> String.replace("\n", "\\n"), else: h
  end

  defp special?(<<c, _::binary>>, _quote?) when c == ?\\ or c == ?\n, do: true
  defp special?(<<?", _::binary>>, true), do: true
  defp special?(<<_, rest::binary>>, quote?), do: special?(rest, quote?)
  defp special?(<<>>, _quote?), do: false
end
