#pragma once
// The worker's read buffer (ClientContext::read_buffer), borrowed for the duration of one
// read handler. Messages are delivered from it without a copy, and a callback may run code
// that reads into the worker's buffer itself (an HTTP request probing an idle TLS
// connection, another socket's handler run from a completion): that code then gets a buffer
// of its own instead of overwriting the bytes still being parsed here.
#include <string>

#include "clients/client_context.hpp"

namespace stampede::clients {

class BorrowedReadBuffer {
 public:
  explicit BorrowedReadBuffer(ClientContext& ctx) : home_(ctx.read_buffer()) { mine_.swap(home_); }
  ~BorrowedReadBuffer() {
    if (home_.empty()) home_.swap(mine_);  // else someone made a new one meanwhile; ours goes
  }
  BorrowedReadBuffer(const BorrowedReadBuffer&) = delete;
  BorrowedReadBuffer& operator=(const BorrowedReadBuffer&) = delete;
  std::string& get() { return mine_; }

 private:
  std::string& home_;
  std::string mine_;
};

}  // namespace stampede::clients
