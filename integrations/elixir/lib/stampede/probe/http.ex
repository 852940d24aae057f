defmodule Stampede.Probe.Http do
  @moduledoc false
  # The probe's HTTP server: GET (or HEAD) /metrics and nothing else.
  #
  # Why `:gen_tcp` and not `:inets`' httpd: `:gen_tcp` is in `kernel`, so it is in every
  # release and every Phoenix app, while `:inets` is an application the app would have to
  # start (Debian even packages it apart, erlang-inets); httpd also brings its own
  # configuration, logging and callback module for one route. `:erlang.decode_packet/3`
  # parses the request line and headers for us (the socket stays raw so that a line too
  # long is still answered with a 400: the socket's own `packet: :http` mode drops the
  # connection instead), so the server is small: an acceptor that hands each connection to
  # a process of its own, which reads requests with deadlines and answers them.
  #
  # A slow or silent client holds only its own process: the request line and headers must
  # come within 5 s, a kept-alive connection is closed after 15 s without a request, a send
  # gives up after 5 s, and at most `max_connections` connections are served at once (the
  # next ones get a 503 and are closed).

  @head_timeout 5_000
  @idle_timeout 15_000
  @max_headers 64
  @max_line 8_192
  @metrics_type "text/plain; version=0.0.4"

  def listen(ip, port) do
    :gen_tcp.listen(port, [
      :binary,
      ip: ip,
      packet: :raw,
      active: false,
      reuseaddr: true,
      backlog: 128,
      nodelay: true,
      send_timeout: 5_000,
      send_timeout_close: true
    ])
  end

  @doc "Starts the acceptor, linked to the caller. `ctx`: probe, connections (a :counters ref), max_connections."
  def start_acceptor(listen_socket, ctx), do: spawn_link(fn -> accept_loop(listen_socket, ctx) end)

  defp accept_loop(listen_socket, ctx) do
    case :gen_tcp.accept(listen_socket) do
      {:ok, socket} ->
        hand_over(socket, ctx)
        accept_loop(listen_socket, ctx)

      # The probe closed the socket: it is stopping.
      {:error, :closed} ->
        :ok

      {:error, reason} when reason in [:econnaborted, :emfile, :enfile, :system_limit] ->
        if reason != :econnaborted, do: Process.sleep(100)
        accept_loop(listen_socket, ctx)

      {:error, reason} ->
        exit({:accept, reason})
    end
  end

  defp hand_over(socket, %{connections: connections, max_connections: max} = ctx) do
    if :counters.get(connections, 1) >= max do
      :gen_tcp.send(socket, response(503, [], "too many connections\n", false))
      :gen_tcp.close(socket)
    else
      :counters.add(connections, 1, 1)

      pid =
        spawn(fn ->
          try do
            receive do
              {:socket, ^socket} -> serve(socket, ctx, @head_timeout)
              :abandon -> :ok
            after
              @head_timeout -> :gen_tcp.close(socket)
            end
          after
            :counters.sub(connections, 1, 1)
          end
        end)

      case :gen_tcp.controlling_process(socket, pid) do
        :ok ->
          send(pid, {:socket, socket})

        {:error, _} ->
          :gen_tcp.close(socket)
          send(pid, :abandon)
      end
    end
  end

  defp serve(socket, ctx, timeout, buffer \\ "") do
    case read_request(socket, buffer, timeout) do
      {:ok, request, rest} ->
        {status, headers, body} = answer(request, ctx)
        keep_alive? = request.keep_alive? and not request.body? and status != 503
        send_body = if request.method == :HEAD, do: "", else: body

        with :ok <- :gen_tcp.send(socket, response(status, headers, send_body, keep_alive?, IO.iodata_length(body))),
             true <- keep_alive? do
          serve(socket, ctx, @idle_timeout, rest)
        else
          _ -> linger_close(socket)
        end

      :bad ->
        :gen_tcp.send(socket, response(400, [], "bad request\n", false))
        linger_close(socket)

      :closed ->
        :gen_tcp.close(socket)
    end
  end

  # Closing a socket with unread bytes in its receive buffer (a body we did not read, the
  # rest of a line too long) makes the kernel send a reset, which can reach the client
  # before our answer does. So: stop writing, read and drop what still comes for up to
  # a second (at most 1 MB), then close.
  defp linger_close(socket) do
    if :gen_tcp.shutdown(socket, :write) == :ok do
      drain(socket, System.monotonic_time(:millisecond) + 1_000, 1_048_576)
    end

    :gen_tcp.close(socket)
  end

  defp drain(socket, deadline, budget) when budget > 0 do
    case :gen_tcp.recv(socket, 0, max(deadline - System.monotonic_time(:millisecond), 0)) do
      {:ok, data} -> drain(socket, deadline, budget - byte_size(data))
      {:error, _closed_or_timeout} -> :ok
    end
  end

  defp drain(_socket, _deadline, _budget), do: :ok

  # The request line may wait `timeout` (the client's first or next request); the headers
  # then must all come within @head_timeout of it. Returns the request and what the client
  # sent after it (a pipelined next request).
  defp read_request(socket, buffer, timeout) do
    case packet(socket, :http_bin, buffer, System.monotonic_time(:millisecond) + timeout) do
      {:ok, {:http_request, method, target, version}, rest} ->
        request = %{method: method, target: target, version: version, keep_alive?: version == {1, 1}, body?: false}
        read_headers(socket, rest, System.monotonic_time(:millisecond) + @head_timeout, request, 0)

      {:ok, _not_a_request_line, _rest} ->
        :bad

      other ->
        other
    end
  end

  defp read_headers(_socket, _buffer, _deadline, _request, n) when n > @max_headers, do: :bad

  defp read_headers(socket, buffer, deadline, request, n) do
    case packet(socket, :httph_bin, buffer, deadline) do
      {:ok, :http_eoh, rest} ->
        {:ok, request, rest}

      {:ok, {:http_header, _, name, _, value}, rest} ->
        read_headers(socket, rest, deadline, header(request, name, value), n + 1)

      {:ok, _error, _rest} ->
        :bad

      other ->
        other
    end
  end

  # One line of the request (its line or a header), reading more until it is complete.
  # Empty lines before a request line are skipped, as RFC 9112 asks.
  defp packet(socket, :http_bin, "\r\n" <> rest, deadline), do: packet(socket, :http_bin, rest, deadline)

  defp packet(socket, type, buffer, deadline) do
    case :erlang.decode_packet(type, buffer, packet_size: @max_line) do
      {:ok, packet, rest} ->
        {:ok, packet, rest}

      {:more, _} when byte_size(buffer) > @max_line ->
        :bad

      {:more, _} ->
        case :gen_tcp.recv(socket, 0, max(deadline - System.monotonic_time(:millisecond), 0)) do
          {:ok, data} -> packet(socket, type, buffer <> data, deadline)
          {:error, _closed_or_timeout} -> :closed
        end

      {:error, _invalid} ->
        :bad
    end
  end

  defp header(request, :Connection, value) do
    tokens = value |> String.downcase() |> String.split(",", trim: true) |> Enum.map(&String.trim/1)

    cond do
      "close" in tokens -> %{request | keep_alive?: false}
      "keep-alive" in tokens -> %{request | keep_alive?: true}
      true -> request
    end
  end

  # A request with a body (none is expected) is answered, then its connection closed, so
  # that the body is never read as the next request.
  defp header(request, :"Content-Length", value),
    do: if(String.trim(value) == "0", do: request, else: %{request | body?: true})

  defp header(request, :"Transfer-Encoding", _value), do: %{request | body?: true}
  defp header(request, _name, _value), do: request

  defp answer(%{version: version}, _ctx) when version not in [{1, 0}, {1, 1}], do: {400, [], "bad request\n"}

  defp answer(request, ctx) do
    case path(request.target) do
      nil ->
        {400, [], "bad request\n"}

      "/metrics" when request.method in [:GET, :HEAD] ->
        try do
          {200, [], Stampede.Probe.scrape(ctx.probe)}
        catch
          _kind, _reason -> {503, [], "the probe is stopping\n"}
        end

      "/metrics" ->
        {405, [{"Allow", "GET, HEAD"}], "method not allowed\n"}

      _other ->
        {404, [], "not found: the metrics are at /metrics\n"}
    end
  end

  defp path({:abs_path, target}), do: target |> :binary.split("?") |> hd()
  defp path({:absoluteURI, _scheme, _host, _port, target}), do: target |> :binary.split("?") |> hd()
  defp path(_other), do: nil

  defp response(status, headers, body, keep_alive?, length \\ nil) do
    type = if status == 200, do: @metrics_type, else: "text/plain; charset=utf-8"

    [
      "HTTP/1.1 ",
      status_line(status),
      "\r\nContent-Type: ",
      type,
      "\r\nContent-Length: ",
      Integer.to_string(length || IO.iodata_length(body)),
      "\r\n",
      if(keep_alive?, do: [], else: "Connection: close\r\n"),
      Enum.map(headers, fn {k, v} -> [k, ": ", v, "\r\n"] end),
      "\r\n",
      body
    ]
  end

  defp status_line(200), do: "200 OK"
  defp status_line(400), do: "400 Bad Request"
  defp status_line(404), do: "404 Not Found"
  defp status_line(405), do: "405 Method Not Allowed"
  defp status_line(503), do: "503 Service Unavailable"
end
