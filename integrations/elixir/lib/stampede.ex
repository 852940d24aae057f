defmodule Stampede do
  @moduledoc """
  Runs the `stampede` binary on a scenario file and tells whether its thresholds passed.

      {:ok, result} = Stampede.run("loadtest/lobby.lua", vus: 200, duration: "30s")

  Options: every `stampede run` flag, as the option of the same name with `_` for `-`
  (`stampede run --help` lists them), see `flags/1`:

    * with a value, `--flag VALUE`: `:vus`, `:rate`, `:duration`, `:iterations`, `:max_vus`,
      `:threads`, `:cpu_policy`, `:local_addresses`, `:nodes`, `:procs_per_node`, `:rank_timeout`, `:out`,
      `:out_stream`, `:badge`, `:junit`, `:prometheus`, `:html`, `:start`, `:step`,
      `:up_to`, `:hold`, `:ramp`, `:dashboard_listen`, `:dashboard_linger`, `:summary`,
      `:server_metrics` (a URL, or a list of them: one `--server-metrics` each),
      `:server_metrics_every`;
    * on or off, `--flag` when `true`: `:insecure`, `:dashboard`, `:parallel`, `:quiet`
      (`true` unless given: the output is collected, so there is no progress line);
    * `true` for `--flag`, or a value for `--flag=VALUE`: `:find_limit` (`true`, `:vus` or
      `:rate`), `:refine` (`true` or a number).

  And `:args` (more flags, a list of strings), `:env` (environment for the scenario, e.g.
  `%{"BASE_URL" => "http://127.0.0.1:4002"}`), `:bin` (the binary; default the
  `STAMPEDE_BIN` environment variable, else `stampede` on the PATH), `:into` (where the
  output goes while the run goes; default: collected). Any other option raises
  `ArgumentError` before anything runs: a misspelt `insecure: true` must not quietly
  leave TLS verification on.
  """

  defmodule Result do
    @moduledoc "What a run printed and how it ended (exit status 0 passed, 1 a threshold failed, 2 an error)."
    defstruct [:scenario, :args, :exit_status, :output]

    @type t :: %__MODULE__{scenario: String.t(), args: [String.t()], exit_status: integer, output: String.t()}
  end

  # The `stampede run` flags (a test compares them with `stampede run --help`).
  # `--flag VALUE`:
  @value_flags [:vus, :rate, :duration, :iterations, :max_vus, :threads, :cpu_policy, :local_addresses,
                :nodes, :procs_per_node, :rank_timeout, :out, :out_stream, :badge, :junit, :prometheus, :html,
                :start, :step, :up_to, :hold, :ramp, :dashboard_listen, :dashboard_linger, :summary,
                :server_metrics, :server_metrics_every]
  # `--flag` when true, nothing when false:
  @boolean_flags [:quiet, :insecure, :parallel, :dashboard]
  # `--flag` when true, `--flag=VALUE` with a value:
  @optional_value_flags [:find_limit, :refine]
  # Options of run/2 itself, not flags:
  @run_options [:args, :env, :bin, :into]

  @spec run(Path.t(), keyword) :: {:ok, Result.t()} | {:error, Result.t()}
  def run(scenario, opts \\ []) do
    bin = binary(opts)
    # Quiet unless told otherwise: the output is collected, a progress line would be noise in it.
    args = ["run", scenario] ++ flags(Keyword.put_new(opts, :quiet, true)) ++ Keyword.get(opts, :args, [])
    env = opts |> Keyword.get(:env, %{}) |> Enum.map(fn {k, v} -> {to_string(k), to_string(v)} end)
    cmd_opts = [stderr_to_stdout: true, env: env] ++ into(opts)
    {output, status} = System.cmd(bin, args, cmd_opts)
    result = %Result{scenario: scenario, args: args, exit_status: status, output: to_string_output(output)}
    if status == 0, do: {:ok, result}, else: {:error, result}
  end

  @doc "The binary to run: `opts[:bin]`, `$STAMPEDE_BIN`, or `stampede` on the PATH."
  def binary(opts \\ []) do
    Keyword.get(opts, :bin) || System.get_env("STAMPEDE_BIN") || System.find_executable("stampede") ||
      raise ArgumentError,
            "the stampede binary was not found: install it (the .deb, or `cmake --install`), " <>
              "put it on the PATH, or set STAMPEDE_BIN"
  end

  @doc """
  The `stampede run` flags for the options in `opts`, in their order:

      iex> Stampede.flags(vus: 2, duration: "1s", insecure: true, find_limit: :rate, env: %{})
      ["--vus", "2", "--duration", "1s", "--insecure", "--find-limit=rate"]

  `nil` (and `false` for an on/off flag) leaves the flag out. Raises `ArgumentError` for an
  option that is not one of `options/0`, or an on/off flag given something else than a boolean.
  """
  @spec flags(keyword) :: [String.t()]
  def flags(opts) do
    Enum.flat_map(opts, fn {key, value} -> flag(key, value) end)
  end

  @doc "Every option `run/2` takes: the `stampede run` flags (as `flags/1` spells them) and its own."
  @spec options() :: [atom]
  def options, do: @value_flags ++ @boolean_flags ++ @optional_value_flags ++ @run_options

  defp flag(key, _value) when key in @run_options, do: []
  defp flag(key, nil) when key in @value_flags or key in @boolean_flags or key in @optional_value_flags, do: []

  defp flag(key, values) when key in @value_flags and is_list(values) do
    Enum.flat_map(values, &flag(key, &1))
  end

  defp flag(key, value) when key in @value_flags do
    if is_boolean(value), do: raise(ArgumentError, "Stampede option #{inspect(key)} takes a value, not #{value}")
    [flag_name(key), to_string(value)]
  end

  defp flag(key, value) when key in @boolean_flags do
    case value do
      true -> [flag_name(key)]
      false -> []
      other -> raise ArgumentError, "Stampede option #{inspect(key)} is true or false, not #{inspect(other)}"
    end
  end

  defp flag(key, value) when key in @optional_value_flags do
    case value do
      true -> [flag_name(key)]
      false -> []
      value -> [flag_name(key) <> "=" <> to_string(value)]
    end
  end

  defp flag(key, _value) do
    raise ArgumentError,
          "unknown Stampede option #{inspect(key)}; the known ones are " <>
            Enum.map_join(options(), ", ", &inspect/1) <> " (or pass flags as they are with args: [...])"
  end

  defp flag_name(key), do: "--" <> String.replace(Atom.to_string(key), "_", "-")

  defp into(opts) do
    case Keyword.fetch(opts, :into) do
      {:ok, into} -> [into: into]
      :error -> []
    end
  end

  defp to_string_output(output) when is_binary(output), do: output
  defp to_string_output(_streamed), do: ""
end
