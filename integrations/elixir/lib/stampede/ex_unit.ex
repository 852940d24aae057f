defmodule Stampede.ExUnit do
  @moduledoc """
  Load tests inside `mix test`:

      defmodule MyAppWeb.LoadTest do
        use ExUnit.Case
        import Stampede.ExUnit

        @tag :load
        test "the lobby holds 200 users" do
          assert_load("loadtest/lobby.lua", vus: 200, duration: "30s")
        end
      end

  `assert_load/2` runs the scenario with `Stampede.run/2` and fails the test when a
  threshold fails (or the run could not start), with the run's summary in the message.
  """

  @doc "Runs `scenario` (see `Stampede.run/2` for the options); returns the result when every threshold passed."
  @spec assert_load(Path.t(), keyword) :: Stampede.Result.t()
  def assert_load(scenario, opts \\ []) do
    case Stampede.run(scenario, opts) do
      {:ok, result} ->
        result

      {:error, %Stampede.Result{exit_status: status} = result} ->
        why =
          case status do
            1 -> "a threshold failed"
            2 -> "the scenario could not run (usage or scenario error)"
            other -> "stampede exited with status #{other}"
          end

        raise ExUnit.AssertionError,
          message: "load test #{scenario}: #{why}\n\n#{String.trim_trailing(result.output)}\n",
          expr: {:assert_load, [], [scenario, opts]}
    end
  end
end
