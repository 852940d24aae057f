defmodule Mix.Tasks.Stampede.Run do
  @shortdoc "Runs a Stampede load test scenario"
  @moduledoc """
  Runs `stampede run` on scenario files, with its output in the terminal as it goes:

      mix stampede.run loadtest/lobby.lua
      mix stampede.run loadtest/lobby.lua --vus 200 --duration 30s --html report.html

  Every argument is passed to `stampede run` as it is. The task exits with the run's
  status: 0 every threshold passed, 1 a threshold failed, 2 an error. The binary is
  `$STAMPEDE_BIN`, else `stampede` on the PATH.
  """
  use Mix.Task

  @impl Mix.Task
  def run([]), do: Mix.raise("usage: mix stampede.run SCENARIO.lua [stampede run flags]")

  def run(args) do
    bin = Stampede.binary()
    {_, status} = System.cmd(bin, ["run" | args], into: IO.stream(:stdio, :line), stderr_to_stdout: true)
    if status != 0, do: exit({:shutdown, status})
    :ok
  end
end
