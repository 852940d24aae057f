#include "clients/client_context.hpp"

#include <openssl/ssl.h>

namespace stampede::clients {

namespace {

// Big enough for a typical response in one read, small enough to stay in cache. One per
// worker, so its size does not multiply with the connections.
constexpr std::size_t kReadBufferBytes = 64 * 1024;

std::unique_ptr<boost::asio::ssl::context> make_tls_context(bool verify) {
  namespace ssl = boost::asio::ssl;
  auto context = std::make_unique<ssl::context>(ssl::context::tls_client);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  if (verify) {
    context->set_default_verify_paths();  // the system CA store (honours SSL_CERT_FILE / SSL_CERT_DIR)
    context->set_verify_mode(ssl::verify_peer);
  } else {
    context->set_verify_mode(ssl::verify_none);
  }
  // An idle TLS connection gives its OpenSSL record buffers back (Asio sets this per
  // connection too; here it also covers the handshake buffers of every SSL made from it).
  SSL_CTX_set_mode(context->native_handle(), SSL_MODE_RELEASE_BUFFERS);
  return context;
}

}  // namespace

boost::asio::ssl::context& ClientContext::tls(bool verify) {
  auto& slot = verify ? tls_verify_ : tls_insecure_;
  if (!slot) slot = make_tls_context(verify);
  return *slot;
}

WorkerTimers& ClientContext::timers() {
  if (!timers_) timers_ = std::make_unique<WorkerTimers>(io, clock, grid_phase);
  return *timers_;
}

std::string& ClientContext::read_buffer() {
  if (read_buffer_.size() < kReadBufferBytes) read_buffer_.resize(kReadBufferBytes);
  return read_buffer_;
}

proto::HttpResponseParser ClientContext::take_http_parser() {
  if (spare_parsers_.empty()) return proto::HttpResponseParser();
  proto::HttpResponseParser parser = std::move(spare_parsers_.back());
  spare_parsers_.pop_back();
  return parser;
}

// A burst of requests in flight leaves no more than this many parsers and buffers behind.
constexpr std::size_t kMaxSpares = 64;
constexpr std::size_t kKeptTextCapacity = 4 * 1024;

void ClientContext::give_back_http_parser(proto::HttpResponseParser parser) {
  if (spare_parsers_.size() < kMaxSpares) spare_parsers_.push_back(std::move(parser));
}

std::string ClientContext::take_text() {
  if (spare_texts_.empty()) return {};
  std::string text = std::move(spare_texts_.back());
  spare_texts_.pop_back();
  return text;
}

void ClientContext::give_back_text(std::string text) {
  if (text.capacity() > kKeptTextCapacity) return;  // a head with a large cookie, say
  text.clear();  // taken empty, whatever the last user left in it
  // A request in flight holds up to three (its head, its URL, its response's URL); more
  // in flight than this keeps take new ones.
  if (spare_texts_.size() < 2 * kMaxSpares) spare_texts_.push_back(std::move(text));
}

std::unique_ptr<ClientContext::ReceiveBuffer> ClientContext::take_receive_buffer() {
  if (spare_receive_buffers_.empty()) return std::make_unique<ReceiveBuffer>();
  std::unique_ptr<ReceiveBuffer> buffer = std::move(spare_receive_buffers_.back());
  spare_receive_buffers_.pop_back();
  return buffer;
}

void ClientContext::give_back_receive_buffer(std::unique_ptr<ReceiveBuffer> buffer) {
  if (spare_receive_buffers_.size() < kMaxSpares) spare_receive_buffers_.push_back(std::move(buffer));
}

transport::SendBatch* ClientContext::send_batch() {
  if (!send_batch_opened_) {
    send_batch_opened_ = true;
    send_batch_ = transport::SendBatch::open(io, clock);
  }
  return send_batch_.get();
}

}  // namespace stampede::clients
