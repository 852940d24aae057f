defmodule Stampede.MixProject do
  use Mix.Project

  # No dependencies at all (not even Hex): the package only runs the `stampede` binary.
  def project do
    [
      app: :stampede,
      version: "0.1.0",
      elixir: "~> 1.14",
      start_permanent: false,
      deps: [],
      description: "Run Stampede load tests from mix and assert on them in ExUnit"
    ]
  end

  def application, do: [extra_applications: [:logger]]
end
