defmodule Stampede.TestTarget do
  @moduledoc false
  # `stampede target` on a free loopback port, stopped when the test process ends.

  def start(delay \\ "fixed:5") do
    {:ok, socket} = :gen_tcp.listen(0, ip: {127, 0, 0, 1})
    {:ok, port} = :inet.port(socket)
    :ok = :gen_tcp.close(socket)

    os_port =
      Port.open({:spawn_executable, Stampede.binary()}, [
        :binary,
        :exit_status,
        args: ["target", "--listen", "127.0.0.1:#{port}", "--delay", delay]
      ])

    {:os_pid, os_pid} = Port.info(os_port, :os_pid)
    wait_until_listening(port, 100)
    {"http://127.0.0.1:#{port}", os_pid}
  end

  def stop(os_pid), do: System.cmd("kill", [to_string(os_pid)])

  defp wait_until_listening(_port, 0), do: raise("the target did not start")

  defp wait_until_listening(port, tries) do
    case :gen_tcp.connect({127, 0, 0, 1}, port, [], 100) do
      {:ok, s} ->
        :gen_tcp.close(s)

      {:error, _} ->
        Process.sleep(50)
        wait_until_listening(port, tries - 1)
    end
  end
end

defmodule StampedeTest do
  use ExUnit.Case, async: false
  import Stampede.ExUnit
  doctest Stampede

  @fixtures Path.expand("fixtures", __DIR__)

  setup_all do
    {url, os_pid} = Stampede.TestTarget.start()
    on_exit(fn -> Stampede.TestTarget.stop(os_pid) end)
    %{env: %{"BASE_URL" => url}}
  end

  test "assert_load passes when every threshold passes", %{env: env} do
    File.cd!(@fixtures, fn ->
      # One iteration in each VU: the run ends when the last has.
      result = assert_load("loadtest/lobby.lua", vus: 3, iterations: 3, env: env)
      assert result.exit_status == 0
      assert result.output =~ ~r/^pass channel\.join p95/m
      assert result.output =~ ~r/^channel\.join\s+3\s/m
      assert "--vus" in result.args
      assert "--iterations" in result.args
    end)
  end

  test "assert_load fails with the run's summary in the message", %{env: env} do
    error =
      assert_raise ExUnit.AssertionError, fn ->
        assert_load(Path.join(@fixtures, "loadtest/too_strict.lua"), vus: 2, iterations: 2, env: env)
      end

    assert error.message =~ "a threshold failed"
    assert error.message =~ ~r/^fail http\.request p95 <= 1\.00ms/m
    # The summary table is there too: the reader sees how slow it was.
    assert error.message =~ ~r/^http\.request\s+\d+/m
  end

  test "assert_load fails clearly when the scenario cannot run", %{env: env} do
    path = Path.join(System.tmp_dir!(), "stampede_broken_#{System.unique_integer([:positive])}.lua")
    File.write!(path, "return { run = 42 }\n")

    try do
      error = assert_raise ExUnit.AssertionError, fn -> assert_load(path, env: env) end
      assert error.message =~ "could not run"
      assert error.message =~ "stampede_broken_"
    after
      File.rm(path)
    end
  end

  test "options become stampede run flags" do
    assert Stampede.flags(vus: 200, duration: "30s", max_vus: 10, env: %{}) ==
             ["--vus", "200", "--duration", "30s", "--max-vus", "10"]
  end

  test "every stampede run option becomes its flag" do
    assert Stampede.flags(vus: 2, duration: "1s", insecure: true, dashboard: true, find_limit: true, step: 2, hold: "1s") ==
             ["--vus", "2", "--duration", "1s", "--insecure", "--dashboard", "--find-limit", "--step", "2", "--hold", "1s"]

    assert Stampede.flags(up_to: 10, dashboard_listen: "127.0.0.1:0", out_stream: "s.ndjson", refine: 4,
             find_limit: :rate, insecure: false, parallel: nil, quiet: true, rank_timeout: "5s") ==
             ["--up-to", "10", "--dashboard-listen", "127.0.0.1:0", "--out-stream", "s.ndjson", "--refine=4",
              "--find-limit=rate", "--quiet", "--rank-timeout", "5s"]
  end

  test "an unknown option raises before anything runs, naming it and the known ones" do
    error = assert_raise ArgumentError, fn -> Stampede.flags(vus: 2, insecur: true) end
    assert error.message =~ "unknown Stampede option :insecur;"
    assert error.message =~ ":insecure"
    assert error.message =~ ":duration"
    assert error.message =~ ":env"
    assert_raise ArgumentError, ~r/:insecur;/, fn -> assert_load("loadtest/not_there.lua", insecur: true) end
    assert_raise ArgumentError, ~r/:insecur;/, fn -> Stampede.flags(insecur: nil) end
    assert_raise ArgumentError, ~r/:insecure is true or false/, fn -> Stampede.flags(insecure: "yes") end
    assert_raise ArgumentError, ~r/:vus takes a value/, fn -> Stampede.flags(vus: true) end
  end

  test "the options are the flags that stampede run --help lists" do
    {help, 0} = System.cmd(Stampede.binary(), ["run", "--help"])

    listed =
      ~r/^  (?:-\w,)?--([a-z][a-z-]*)/m
      |> Regex.scan(help, capture: :all_but_first)
      |> List.flatten()
      |> Enum.reject(&(&1 == "help"))
      |> Enum.map(&String.to_atom(String.replace(&1, "-", "_")))

    assert :insecure in listed
    assert Enum.sort(listed) == Enum.sort(Stampede.options() -- [:args, :env, :bin, :into])
  end

  test "insecure: true reaches the binary", %{env: env} do
    result = assert_load(Path.join(@fixtures, "loadtest/lobby.lua"), vus: 1, iterations: 1, insecure: true, env: env)
    assert "--insecure" in result.args
    assert "--quiet" in result.args
  end

  test "Stampede.run returns {:error, result} with the exit status", %{env: env} do
    assert {:error, %Stampede.Result{exit_status: 1}} =
             Stampede.run(Path.join(@fixtures, "loadtest/too_strict.lua"), env: env)
  end
end
