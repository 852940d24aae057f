#pragma once
// What a worker's hold ends into (Worker::hold): a connection that owes the held response.
// HTTP/1.1 connections (connection.hpp) and HTTP/2 ones (h2_connection.hpp) both hold
// responses for the drawn delay; the worker's HoldQueue does not care which.
namespace stampede::target {

struct PendingResponse;

class HeldResponder {
 public:
  virtual ~HeldResponder() = default;
  // The hold of `slot` is over: it may be written (unless the connection closed meanwhile).
  virtual void end_hold(PendingResponse& slot) = 0;
};

}  // namespace stampede::target
