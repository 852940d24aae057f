# Tests run the real binary (STAMPEDE_BIN, else `stampede` on the PATH) against the
# built-in target, which Stampede.TestTarget starts on a free port.
#
# Stampede.Probe's tests need no binary. They read its output with a strict parser of the
# exposition format (support/exposition_parser.exs) and drive its telemetry handlers with
# `:telemetry`: the real library when it is on the code path, else a test stand-in with
# the same attach_many/detach/execute/span semantics (support/telemetry_stand_in.exs),
# because Debian packages no telemetry and this project fetches nothing from Hex.
Code.require_file("support/exposition_parser.exs", __DIR__)

if Code.ensure_loaded?(:telemetry) do
  {:ok, _} = Application.ensure_all_started(:telemetry)
else
  Code.require_file("support/telemetry_stand_in.exs", __DIR__)
  :ok = :telemetry.start()
end

ExUnit.start()
