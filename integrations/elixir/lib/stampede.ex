defmodule Stampede do
  @moduledoc """
  Runs the `stampede` binary on a scenario file and tells whether its thresholds passed.

      {:ok, result} = Stampede.run("loadtest/lobby.lua", vus: 200, duration: "30s")

  Options (each becomes the `stampede run` flag of the same name, `_` as `-`):
  `:vus`, `:rate`, `:duration`, `:max_vus`, `:threads`, `:out`, `:html`, `:junit`, ...;
  `:args` (more flags, a list of strings), `:env` (environment for the scenario, e.g.
  `%{"BASE_URL" => "http://127.0.0.1:4002"}`), `:bin` (the binary; default the
  `STAMPEDE_BIN` environment variable, else `stampede` on the PATH), `:into` (where the
  output goes while the run goes; default: collected).
  """

  defmodule Result do
    @moduledoc "What a run printed and how it ended (exit status 0 passed, 1 a threshold failed, 2 an error)."
    defstruct [:scenario, :args, :exit_status, :output]

    @type t :: %__MODULE__{scenario: String.t(), args: [String.t()], exit_status: integer, output: String.t()}
  end

  @flag_options [:vus, :rate, :duration, :max_vus, :threads, :local_addresses, :out, :out_stream, :html,
                 :junit, :badge, :prometheus]

  @spec run(Path.t(), keyword) :: {:ok, Result.t()} | {:error, Result.t()}
  def run(scenario, opts \\ []) do
    bin = binary(opts)
    args = ["run", scenario, "--quiet"] ++ flags(opts) ++ Keyword.get(opts, :args, [])
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

  @doc "The `stampede run` flags for the options in `opts`."
  def flags(opts) do
    for {key, value} <- opts, key in @flag_options, value != nil, reduce: [] do
      acc -> acc ++ ["--" <> String.replace(Atom.to_string(key), "_", "-"), to_string(value)]
    end
  end

  defp into(opts) do
    case Keyword.fetch(opts, :into) do
      {:ok, into} -> [into: into]
      :error -> []
    end
  end

  defp to_string_output(output) when is_binary(output), do: output
  defp to_string_output(_streamed), do: ""
end
