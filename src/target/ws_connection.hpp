#pragma once
// One upgraded connection of the target, followed top to bottom:
//   readable -> read into the worker's scratch buffer -> WebSocketReader -> each message to
//   the application (the Phoenix ChannelsSession, the LiveViewSession, or the /ws echo), pings answered with
//   pongs, the peer's close answered with a close -> the frames the application queued in
//   the meantime written in one write -> read again.
// Frames queued from outside a read (broadcasts from other sockets, Absinthe timers) are
// written at once.
//
// One timer per socket serves the idle timeout (like Cowboy's: reset by anything the client
// sends, and closing with 1000 when it fires), the application's next due time, and the
// wait for the peer's close reply. It is re-armed only when it fires or must fire earlier,
// not on every read: a read just records the time.
//
// Idle memory: a 96-byte inbox for the waiting read, no other read buffer (more is read
// into the worker's scratch and the reader keeps nothing between messages), no write buffer
// (borrowed from the worker while there is output).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.hpp"
#include "proto/permessage_deflate.hpp"
#include "proto/websocket_frame.hpp"
#include "target/asio_types.hpp"
#include "target/channels_session.hpp"
#include "target/liveview_session.hpp"
#include "target/websocket_upgrade.hpp"

namespace stampede::target {

class Worker;

class WsConnection final : public std::enable_shared_from_this<WsConnection>, private ChannelsSink {
 public:
  // `socket` has just been sent the 101 response for `plan`.
  WsConnection(Worker& worker, Socket socket, WsPlan plan);
  ~WsConnection();
  WsConnection(const WsConnection&) = delete;
  WsConnection& operator=(const WsConnection&) = delete;

  void start();

 private:
  enum class State : std::uint8_t {
    Open,
    Closing,  // our close frame is queued or sent: waiting for the peer's, or for the write
    Closed,
  };

  // ChannelsSink: what the session sends, and its request to end the socket.
  void send(std::string_view data, bool binary) override;
  void close(std::uint16_t code, std::string_view reason) override;

  void read_available();
  void wait_readable();
  void on_received(const boost::system::error_code& ec, std::size_t n);
  void end_read();  // after a read's bytes are consumed: what they queued goes out
  void consume(std::string_view bytes, Nanos now);
  void on_message(const proto::ws::WsEvent& event, Nanos now);
  void on_peer_close(std::uint16_t code);

  // Queues a frame; data frames are compressed when permessage-deflate was negotiated.
  void queue_frame(proto::ws::Opcode opcode, std::string_view payload);
  std::string& output();
  void flush();
  void wrote_all();

  // Sends our close frame and waits (a moment) for the peer's.
  void begin_close(std::uint16_t code, std::string_view reason);
  void finish_if_closing_done();
  // Closes the socket. The session leaves its channels from a posted job, never inside the
  // call that found the socket dead: that call may be a broadcast walking subscriber lists.
  void finish();

  void arm_timer();
  void on_timer();

  Worker& worker_;
  Socket socket_;
  Timer timer_;
  proto::ws::WebSocketReader reader_;
  std::optional<ChannelsSession> session_;         // /socket/websocket; none for the echo
  std::unique_ptr<LiveViewSession> liveview_;      // /live/websocket (apart: most sockets are not)
  std::unique_ptr<proto::ws::Deflater> deflater_;  // permessage-deflate, when negotiated
  std::unique_ptr<proto::ws::Inflater> inflater_;
  // What the waiting read lands in (wait_readable): small, because a held socket always has
  // one, and its usual input (a heartbeat) is smaller still.
  std::array<char, 96> inbox_;
  std::string early_bytes_;  // sent by the client right behind its upgrade request
  std::string out_;          // the write in flight, or the frames of the next one
  std::string next_;         // frames queued while out_ is being written
  Nanos last_heard_ = 0;     // the last read from the client
  Nanos timer_at_ = 0;       // when the armed timer fires; 0: not armed
  Nanos closing_deadline_ = 0;
  State state_ = State::Open;
  bool writing_ = false;
  bool in_read_ = false;           // queued frames wait for the end of the read
  bool peer_sent_close_ = false;
  bool close_when_flushed_ = false;
};

}  // namespace stampede::target
