# Tests run the real binary (STAMPEDE_BIN, else `stampede` on the PATH) against the
# built-in target, which Stampede.TestTarget starts on a free port.
ExUnit.start()
