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

  @fixtures Path.expand("fixtures", __DIR__)

  setup_all do
    {url, os_pid} = Stampede.TestTarget.start()
    on_exit(fn -> Stampede.TestTarget.stop(os_pid) end)
    %{env: %{"BASE_URL" => url}}
  end

  test "assert_load passes when every threshold passes", %{env: env} do
    File.cd!(@fixtures, fn ->
      result = assert_load("loadtest/lobby.lua", vus: 3, duration: "2s", env: env)
      assert result.exit_status == 0
      assert result.output =~ ~r/^pass channel\.join p95/m
      assert result.output =~ ~r/^channel\.join\s+[1-9]/m
      assert "--vus" in result.args
    end)
  end

  test "assert_load fails with the run's summary in the message", %{env: env} do
    error =
      assert_raise ExUnit.AssertionError, fn ->
        assert_load(Path.join(@fixtures, "loadtest/too_strict.lua"), vus: 2, duration: "1s", env: env)
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

  test "Stampede.run returns {:error, result} with the exit status", %{env: env} do
    assert {:error, %Stampede.Result{exit_status: 1}} =
             Stampede.run(Path.join(@fixtures, "loadtest/too_strict.lua"), env: env)
  end
end
