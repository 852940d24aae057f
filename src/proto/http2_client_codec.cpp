#include "proto/http2_client_codec.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <utility>

#include "proto/body_inflater.hpp"

namespace stampede::proto {

namespace {

// HPACK counts 32 bytes of overhead per field (RFC 7541 4.1); so does SETTINGS_MAX_HEADER_LIST_SIZE.
constexpr std::size_t kFieldOverhead = 32;
// A request's fields on the stack; more than this (rare) go to the heap.
constexpr std::size_t kInlineFields = 24;

std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

std::string http2_error_name(std::uint32_t error_code) {
  const std::string_view name = nghttp2_http2_strerror(error_code);
  if (name != "unknown") return std::string(name);
  std::array<char, 16> hex{};
  std::snprintf(hex.data(), hex.size(), "0x%x", error_code);
  return hex.data();
}

// One request's stream, from submit() until nghttp2 closes it (or never opens it).
struct Http2ClientStream {
  std::int32_t id = 0;
  void* request = nullptr;  // null once ended or cancelled: no more events
  std::string_view body;    // DATA still to send starts at body[sent]
  std::size_t sent = 0;
  Http2Response response;
  std::size_t header_bytes = 0;
  bool interim_block = false;   // the header block coming in is a 1xx (skipped)
  bool trailers = false;        // the header block coming in follows the final one (dropped)
  bool final_headers = false;   // the final response's header block is complete
  bool end_stream = false;      // the server ended its side
  bool rst_received = false;
  std::uint32_t rst_code = 0;
  std::string detail;  // why we reset it (malformed)
  bool decoding = false;
  BodyInflater inflater;
};

struct Http2ClientCodec::Impl {
  Impl(Listener& l, Http2ClientLimits lim) : listener(l), limits(lim) {}
  ~Impl() {
    if (session != nullptr) nghttp2_session_del(session);
  }

  Listener& listener;
  Http2ClientLimits limits;
  nghttp2_session* session = nullptr;
  std::vector<std::unique_ptr<Http2ClientStream>> streams;
  std::string error;               // the session failed: why
  std::string last_library_error;  // nghttp2's last words (error_callback2), for error
  bool first_bytes_seen = false;
  bool goaway_received = false;

  Http2ClientStream* find(std::int32_t id) {
    for (auto& s : streams) {
      if (s->id == id) return s.get();
    }
    return nullptr;
  }

  void forget(std::int32_t id) {
    auto it = std::find_if(streams.begin(), streams.end(), [id](const auto& s) { return s->id == id; });
    if (it == streams.end()) return;
    std::swap(*it, streams.back());
    streams.pop_back();
  }

  // The request's one end event. The listener may submit or cancel from inside it (a
  // redirect, the next request of a batch), which may grow `streams`: `s` stays valid.
  void end(Http2ClientStream& s, Http2StreamEnd how, std::uint32_t code, std::string_view detail) {
    void* request = std::exchange(s.request, nullptr);
    if (request == nullptr) return;
    s.inflater.release();
    listener.on_stream_end(request, how, code, detail, s.response);
  }

  // The response broke a rule or a limit: it ends now, and the stream is reset.
  void reject(Http2ClientStream& s, std::string why, std::uint32_t code = NGHTTP2_CANCEL) {
    if (s.request == nullptr) return;
    s.detail = std::move(why);
    nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, s.id, code);
    end(s, Http2StreamEnd::malformed, code, s.detail);
  }

  void on_closed(std::int32_t id, std::uint32_t code) {
    Http2ClientStream* s = find(id);
    if (s == nullptr) return;
    if (s->request != nullptr) {
      const bool clean = code == NGHTTP2_NO_ERROR || (s->rst_received && s->rst_code == NGHTTP2_NO_ERROR);
      if (s->end_stream && s->final_headers && clean) {
        std::string problem;
        if (s->decoding && !s->inflater.finish(problem)) {
          end(*s, Http2StreamEnd::malformed, NGHTTP2_NO_ERROR, problem);
        } else {
          end(*s, Http2StreamEnd::complete, NGHTTP2_NO_ERROR, {});
        }
      } else if (s->rst_received) {
        end(*s, Http2StreamEnd::reset_by_server, s->rst_code, {});
      } else if (code == NGHTTP2_REFUSED_STREAM) {
        end(*s, Http2StreamEnd::refused, code, "the server did not process it");
      } else {
        // nghttp2 reset it: the response broke HTTP's rules (a missing :status, a body longer
        // than its content-length, a forbidden header...).
        const std::string detail = !s->detail.empty() ? s->detail
                                   : code != NGHTTP2_NO_ERROR
                                       ? "the response broke the HTTP/2 rules (" + http2_error_name(code) + ")"
                                       : "the stream closed before the response was complete";
        end(*s, Http2StreamEnd::malformed, code, detail);
      }
    }
    forget(id);
  }

  void on_final_headers(Http2ClientStream& s) {
    s.final_headers = true;
    int codings = 0;
    std::string_view coding;
    for (const auto& h : s.response.headers) {
      if (h.name == "content-encoding") coding = decodable_content_coding(h.value, codings);
    }
    if (!coding.empty() && codings == 1) {
      s.decoding = true;
      s.inflater.start(coding);
    }
  }

  // ---- nghttp2's callbacks ---------------------------------------------------------------

  static Impl& of(void* user_data) { return *static_cast<Impl*>(user_data); }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;
    Http2ClientStream* s = of(user_data).find(frame->hd.stream_id);
    if (s == nullptr) return 0;
    s->trailers = s->final_headers;
    s->interim_block = false;
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_size,
                       const std::uint8_t* value, std::size_t value_size, std::uint8_t, void* user_data) {
    Impl& self = of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS) return 0;  // PUSH_PROMISE: we disabled push
    Http2ClientStream* s = self.find(frame->hd.stream_id);
    if (s == nullptr || s->request == nullptr || s->trailers) return 0;
    const std::string_view n = view(name, name_size);
    const std::string_view v = view(value, value_size);
    if (n == ":status") {
      int status = 0;
      std::from_chars(v.data(), v.data() + v.size(), status);  // nghttp2 checked it is 3 digits
      if (status >= 100 && status < 200) {
        s->interim_block = true;
      } else {
        s->response.status = status;
      }
      return 0;
    }
    if (s->interim_block || (!n.empty() && n.front() == ':')) return 0;
    s->header_bytes += n.size() + v.size() + kFieldOverhead;
    if (s->header_bytes > self.limits.max_header_bytes) {
      self.reject(*s, "the response's headers are larger than the limit of " +
                          std::to_string(self.limits.max_header_bytes) + " bytes");
      return 0;
    }
    s->response.headers.push_back(HttpHeader{std::string(n), std::string(v)});
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                           std::size_t size, void* user_data) {
    Impl& self = of(user_data);
    Http2ClientStream* s = self.find(stream_id);
    if (s == nullptr || s->request == nullptr) return 0;
    std::string& body = s->response.body;
    const std::size_t limit = self.limits.max_body_bytes;
    if (s->decoding) {
      std::string problem;
      if (!s->inflater.write(view(data, size), body, limit, problem)) self.reject(*s, problem);
      return 0;
    }
    if (size > limit - body.size()) {
      self.reject(*s, too_large_body_message(limit));
      return 0;
    }
    body.append(view(data, size));
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    Impl& self = of(user_data);
    switch (frame->hd.type) {
      case NGHTTP2_GOAWAY:
        self.goaway_received = true;
        self.listener.on_goaway(frame->goaway.last_stream_id, frame->goaway.error_code,
                                view(frame->goaway.opaque_data, frame->goaway.opaque_data_len));
        return 0;
      case NGHTTP2_HEADERS:
      case NGHTTP2_DATA:
      case NGHTTP2_RST_STREAM:
        break;
      default:
        return 0;
    }
    Http2ClientStream* s = self.find(frame->hd.stream_id);
    if (s == nullptr) return 0;
    if (frame->hd.type == NGHTTP2_RST_STREAM) {
      s->rst_received = true;
      s->rst_code = frame->rst_stream.error_code;
      return 0;
    }
    if (frame->hd.type == NGHTTP2_HEADERS && !s->trailers) {
      if (s->interim_block) {
        s->interim_block = false;
      } else if (!s->final_headers) {
        self.on_final_headers(*s);
      }
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) s->end_stream = true;
    return 0;
  }

  static int on_invalid_frame(nghttp2_session*, const nghttp2_frame* frame, int lib_error, void* user_data) {
    Http2ClientStream* s = of(user_data).find(frame->hd.stream_id);
    if (s != nullptr && s->detail.empty()) {
      s->detail = std::string("the server sent an invalid frame on the stream: ") + nghttp2_strerror(lib_error);
    }
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t code, void* user_data) {
    of(user_data).on_closed(stream_id, code);
    return 0;
  }

  static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    Impl& self = of(user_data);
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      Http2ClientStream* s = self.find(frame->hd.stream_id);
      if (s != nullptr && s->request != nullptr) self.listener.on_request_sent(s->request);
    } else if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR &&
               self.error.empty()) {
      // Only nghttp2 sends GOAWAY here, to end a session the server broke.
      self.error = "the server broke the HTTP/2 protocol (" + http2_error_name(frame->goaway.error_code) + ")";
      if (!self.last_library_error.empty()) self.error += ": " + self.last_library_error;
    }
    return 0;
  }

  static int on_frame_not_send(nghttp2_session* session, const nghttp2_frame* frame, int lib_error, void* user_data) {
    Impl& self = of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    Http2ClientStream* s = self.find(frame->hd.stream_id);
    if (s == nullptr) return 0;
    if (lib_error == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED || lib_error == NGHTTP2_ERR_STREAM_CLOSED ||
        lib_error == NGHTTP2_ERR_STREAM_CLOSING) {
      self.end(*s, Http2StreamEnd::refused, NGHTTP2_REFUSED_STREAM,
               "it was still waiting to be sent when the connection stopped taking requests");
    } else {
      self.end(*s, Http2StreamEnd::malformed, NGHTTP2_INTERNAL_ERROR,
               std::string("the request could not be sent: ") + nghttp2_strerror(lib_error));
    }
    // nghttp2 closes a stream it had opened for it (on_stream_close frees it then).
    if (nghttp2_session_find_stream(session, frame->hd.stream_id) == nullptr) self.forget(frame->hd.stream_id);
    return 0;
  }

  static int on_error(nghttp2_session*, int, const char* message, std::size_t size, void* user_data) {
    of(user_data).last_library_error.assign(message, size);
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* s = static_cast<Http2ClientStream*>(source->ptr);
    const std::size_t n = std::min(length, s->body.size() - s->sent);
    std::copy_n(s->body.data() + s->sent, n, buffer);
    s->sent += n;
    if (s->sent == s->body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

namespace {

// Made once, shared by every session (nghttp2 copies them into each; they never change).
const nghttp2_session_callbacks* client_callbacks() {
  static nghttp2_session_callbacks* callbacks = [] {
    using Impl = Http2ClientCodec::Impl;
    nghttp2_session_callbacks* c = nullptr;
    if (nghttp2_session_callbacks_new(&c) != 0) return c;
    nghttp2_session_callbacks_set_on_begin_headers_callback(c, &Impl::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(c, &Impl::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, &Impl::on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, &Impl::on_frame_recv);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(c, &Impl::on_invalid_frame);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, &Impl::on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(c, &Impl::on_frame_send);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(c, &Impl::on_frame_not_send);
    nghttp2_session_callbacks_set_error_callback2(c, &Impl::on_error);
    return c;
  }();
  return callbacks;
}

// Until the server's SETTINGS arrive we do not know its SETTINGS_MAX_CONCURRENT_STREAMS.
// nghttp2 assumes 100 meanwhile, and a server allowing fewer would reset the excess of a
// burst on a new connection with REFUSED_STREAM. One stream is safe with any server, and the
// first request of a connection (all that a scenario without http.batch ever has in flight)
// goes at once; the rest of a burst waits for the SETTINGS, which follow the server's side of
// the connection preface within a round trip.
const nghttp2_option* client_options() {
  static nghttp2_option* options = [] {
    nghttp2_option* o = nullptr;
    if (nghttp2_option_new(&o) != 0) return o;
    nghttp2_option_set_peer_max_concurrent_streams(o, 1);
    return o;
  }();
  return options;
}

}  // namespace

Http2ClientCodec::Http2ClientCodec(Listener& listener, Http2ClientLimits limits)
    : impl_(std::make_unique<Impl>(listener, limits)) {
  Impl& impl = *impl_;
  const nghttp2_session_callbacks* callbacks = client_callbacks();
  const nghttp2_option* options = client_options();
  if (callbacks == nullptr || options == nullptr ||
      nghttp2_session_client_new2(&impl.session, callbacks, &impl, options) != 0) {
    impl.session = nullptr;
    impl.error = "out of memory while starting an HTTP/2 session";
    return;
  }
  // The connection preface's SETTINGS: no server push, our windows and header limit.
  const std::array<nghttp2_settings_entry, 3> settings{{
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, limits.stream_window},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, static_cast<std::uint32_t>(limits.max_header_bytes)},
  }};
  nghttp2_submit_settings(impl.session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
  nghttp2_session_set_local_window_size(impl.session, NGHTTP2_FLAG_NONE, 0,
                                        static_cast<std::int32_t>(limits.connection_window));
}

Http2ClientCodec::~Http2ClientCodec() = default;

std::int32_t Http2ClientCodec::submit(std::span<const Http2Field> fields, std::string_view body, bool has_body,
                                      void* request, std::string& error) {
  Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty()) {
    error = "the HTTP/2 session has ended";
    return 0;
  }
  std::array<nghttp2_nv, kInlineFields> inline_nva{};
  std::vector<nghttp2_nv> heap_nva;
  nghttp2_nv* nva = inline_nva.data();
  if (fields.size() > inline_nva.size()) {
    heap_nva.resize(fields.size());
    nva = heap_nva.data();
  }
  for (std::size_t i = 0; i < fields.size(); ++i) {
    // Copied by nghttp2 (no NO_COPY flags): the caller's strings may go after this call.
    nva[i] = nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(fields[i].name.data())),
                        reinterpret_cast<std::uint8_t*>(const_cast<char*>(fields[i].value.data())),
                        fields[i].name.size(), fields[i].value.size(), NGHTTP2_NV_FLAG_NONE};
  }
  auto stream = std::make_unique<Http2ClientStream>();
  stream->request = request;
  stream->body = body;
  nghttp2_data_provider provider{};
  provider.source.ptr = stream.get();
  provider.read_callback = &Impl::read_body;
  const std::int32_t id =
      nghttp2_submit_request(impl.session, nullptr, nva, fields.size(), has_body ? &provider : nullptr, nullptr);
  if (id < 0) {
    error = std::string("the request could not be queued: ") + nghttp2_strerror(id);
    return 0;
  }
  stream->id = id;
  impl.streams.push_back(std::move(stream));
  return id;
}

void Http2ClientCodec::cancel(std::int32_t stream_id) {
  Impl& impl = *impl_;
  Http2ClientStream* s = impl.find(stream_id);
  if (s == nullptr || s->request == nullptr) return;
  s->request = nullptr;
  s->body = {};  // nothing more of it is read (the caller's bytes may go now)
  s->sent = 0;
  s->inflater.release();
  if (impl.session != nullptr) nghttp2_submit_rst_stream(impl.session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
}

bool Http2ClientCodec::feed(std::string_view bytes) {
  Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty()) return false;
  if (!impl.first_bytes_seen && !bytes.empty()) {
    impl.first_bytes_seen = true;
    // An HTTP/1.x server answering our preface (h2c to a server that does not speak it):
    // say so, rather than nghttp2's "unexpected data while we expected SETTINGS".
    if (bytes.substr(0, 5) == "HTTP/") {
      const std::string_view line = bytes.substr(0, std::min(bytes.find_first_of("\r\n"), std::size_t{60}));
      impl.error = "the server answered in HTTP/1 (\"" + std::string(line) + "\"): it does not speak HTTP/2 here";
      return false;
    }
  }
  const ssize_t used =
      nghttp2_session_mem_recv(impl.session, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (used < 0 && impl.error.empty()) {
    impl.error = std::string("the server's HTTP/2 frames could not be processed: ") +
                 nghttp2_strerror(static_cast<int>(used));
    if (!impl.last_library_error.empty()) impl.error += " (" + impl.last_library_error + ")";
  }
  return impl.error.empty();
}

bool Http2ClientCodec::take_output(std::string& out) {
  Impl& impl = *impl_;
  if (impl.session == nullptr) return false;
  for (;;) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(impl.session, &data);
    if (n < 0) {
      if (impl.error.empty()) impl.error = std::string("HTTP/2 output failed: ") + nghttp2_strerror(static_cast<int>(n));
      return false;
    }
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  return impl.error.empty();
}

bool Http2ClientCodec::failed() const { return !impl_->error.empty(); }
const std::string& Http2ClientCodec::error() const { return impl_->error; }

bool Http2ClientCodec::finished() const {
  const Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty()) return true;
  return nghttp2_session_want_read(impl.session) == 0 && nghttp2_session_want_write(impl.session) == 0;
}

bool Http2ClientCodec::accepts_requests() const {
  const Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty() || impl.goaway_received) return false;
  // Stream ids are odd numbers below 2^31: a connection that used them up must be replaced.
  return nghttp2_session_get_next_stream_id(impl.session) < (1u << 31) - 1;
}

std::size_t Http2ClientCodec::open_requests() const {
  return static_cast<std::size_t>(std::count_if(impl_->streams.begin(), impl_->streams.end(),
                                                [](const auto& s) { return s->request != nullptr; }));
}

void Http2ClientCodec::end_all(std::string_view detail) {
  Impl& impl = *impl_;
  // By index: the listener may submit more (onto this dead session: they fail at once).
  for (std::size_t i = 0; i < impl.streams.size(); ++i) {
    Http2ClientStream& s = *impl.streams[i];
    if (s.request == nullptr) continue;
    s.body = {};
    impl.end(s, Http2StreamEnd::connection_ended, NGHTTP2_NO_ERROR, detail);
  }
}

}  // namespace stampede::proto
