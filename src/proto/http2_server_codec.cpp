#include "proto/http2_server_codec.hpp"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

namespace stampede::proto {

namespace {

constexpr std::size_t kHpackFieldOverhead = 32;  // HPACK's per-field accounting (RFC 7541 4.1)
constexpr std::size_t kInlineResponseFields = 16;

std::string_view bytes_view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

nghttp2_nv field(std::string_view name, std::string_view value) {
  return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
                    NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

// One request's stream, from its HEADERS until nghttp2 closes it.
struct Http2ServerStream {
  std::int32_t id = 0;
  HttpRequest request;
  std::size_t header_bytes = 0;
  bool too_large = false;  // headers or body past the limits: answered 431/413, not routed
  int too_large_status = 0;
  std::string_view body;  // of the response: body[sent..] still to send
  std::size_t sent = 0;
};

struct Http2ServerCodec::Impl {
  Impl(Listener& l, Http2ServerLimits lim) : listener(l), limits(lim) {}
  ~Impl() {
    if (session != nullptr) nghttp2_session_del(session);
  }

  Listener& listener;
  Http2ServerLimits limits;
  nghttp2_session* session = nullptr;
  std::vector<std::unique_ptr<Http2ServerStream>> streams;
  std::vector<std::unique_ptr<Http2ServerStream>> spare;  // closed streams' objects, for their strings' capacity
  std::string error;
  std::string last_library_error;

  Http2ServerStream* find(std::int32_t id) {
    for (auto& s : streams) {
      if (s->id == id) return s.get();
    }
    return nullptr;
  }

  Http2ServerStream& open(std::int32_t id) {
    std::unique_ptr<Http2ServerStream> s;
    if (spare.empty()) {
      s = std::make_unique<Http2ServerStream>();
    } else {
      s = std::move(spare.back());
      spare.pop_back();
      s->request.method.clear();
      s->request.target.clear();
      s->request.headers.clear();
      s->request.body.clear();
      s->header_bytes = 0;
      s->too_large = false;
      s->too_large_status = 0;
      s->body = {};
      s->sent = 0;
    }
    s->id = id;
    s->request.version_minor = 1;
    streams.push_back(std::move(s));
    return *streams.back();
  }

  void close(std::int32_t id) {
    auto it = std::find_if(streams.begin(), streams.end(), [id](const auto& s) { return s->id == id; });
    if (it == streams.end()) return;
    std::unique_ptr<Http2ServerStream> s = std::move(*it);
    std::swap(*it, streams.back());
    streams.pop_back();
    // A stream that carried a large body does not keep it.
    if (spare.size() < limits.max_concurrent_streams && s->request.body.capacity() <= 64 * 1024) {
      spare.push_back(std::move(s));
    }
  }

  static Impl& of(void* user_data) { return *static_cast<Impl*>(user_data); }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      of(user_data).open(frame->hd.stream_id);
    }
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name, std::size_t name_size,
                       const std::uint8_t* value, std::size_t value_size, std::uint8_t, void* user_data) {
    Impl& self = of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers dropped
    Http2ServerStream* s = self.find(frame->hd.stream_id);
    if (s == nullptr || s->too_large) return 0;
    const std::string_view n = bytes_view(name, name_size);
    const std::string_view v = bytes_view(value, value_size);
    s->header_bytes += n.size() + v.size() + kHpackFieldOverhead;
    if (s->header_bytes > self.limits.max_header_bytes) {
      s->too_large = true;
      s->too_large_status = 431;
      return 0;
    }
    HttpRequest& r = s->request;
    if (n == ":method") {
      r.method.assign(v);
    } else if (n == ":path") {
      r.target.assign(v);
    } else if (n == ":authority") {
      r.headers.push_back(HttpHeader{"host", std::string(v)});
    } else if (n.empty() || n.front() != ':') {
      r.headers.push_back(HttpHeader{std::string(n), std::string(v)});
    }
    return 0;
  }

  static int on_data_chunk(nghttp2_session*, std::uint8_t, std::int32_t stream_id, const std::uint8_t* data,
                           std::size_t size, void* user_data) {
    Impl& self = of(user_data);
    Http2ServerStream* s = self.find(stream_id);
    if (s == nullptr || s->too_large) return 0;
    if (size > self.limits.max_body_bytes - s->request.body.size()) {
      s->too_large = true;
      s->too_large_status = 413;
      std::string().swap(s->request.body);
      return 0;
    }
    s->request.body.append(bytes_view(data, size));
    return 0;
  }

  static int on_frame_recv(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    Impl& self = of(user_data);
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
    Http2ServerStream* s = self.find(frame->hd.stream_id);
    if (s == nullptr) return 0;
    if (s->too_large) {
      // Answered here, headers only; the routes never see it.
      const std::array<char, 4> status{static_cast<char>('0' + s->too_large_status / 100),
                                       static_cast<char>('0' + s->too_large_status / 10 % 10),
                                       static_cast<char>('0' + s->too_large_status % 10), '\0'};
      const nghttp2_nv nv = field(":status", std::string_view(status.data(), 3));
      nghttp2_submit_response(session, s->id, &nv, 1, nullptr);
      return 0;
    }
    self.listener.on_request(s->id, s->request);
    return 0;
  }

  static int on_frame_send(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
      of(user_data).listener.on_response_sent(frame->hd.stream_id);
    }
    return 0;
  }

  static int on_stream_close(nghttp2_session*, std::int32_t stream_id, std::uint32_t, void* user_data) {
    Impl& self = of(user_data);
    if (self.find(stream_id) == nullptr) return 0;
    self.listener.on_stream_closed(stream_id);
    self.close(stream_id);
    return 0;
  }

  static int on_error(nghttp2_session*, int, const char* message, std::size_t size, void* user_data) {
    of(user_data).last_library_error.assign(message, size);
    return 0;
  }

  static ssize_t read_body(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* s = static_cast<Http2ServerStream*>(source->ptr);
    const std::size_t n = std::min(length, s->body.size() - s->sent);
    std::copy_n(s->body.data() + s->sent, n, buffer);
    s->sent += n;
    if (s->sent == s->body.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

namespace {

const nghttp2_session_callbacks* server_callbacks() {
  static nghttp2_session_callbacks* callbacks = [] {
    using Impl = Http2ServerCodec::Impl;
    nghttp2_session_callbacks* c = nullptr;
    if (nghttp2_session_callbacks_new(&c) != 0) return c;
    nghttp2_session_callbacks_set_on_begin_headers_callback(c, &Impl::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(c, &Impl::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(c, &Impl::on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(c, &Impl::on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(c, &Impl::on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(c, &Impl::on_stream_close);
    nghttp2_session_callbacks_set_error_callback2(c, &Impl::on_error);
    return c;
  }();
  return callbacks;
}

}  // namespace

Http2ServerCodec::Http2ServerCodec(Listener& listener, Http2ServerLimits limits)
    : impl_(std::make_unique<Impl>(listener, limits)) {
  Impl& impl = *impl_;
  const nghttp2_session_callbacks* callbacks = server_callbacks();
  if (callbacks == nullptr || nghttp2_session_server_new(&impl.session, callbacks, &impl) != 0) {
    impl.session = nullptr;
    impl.error = "out of memory while starting an HTTP/2 session";
    return;
  }
  const std::array<nghttp2_settings_entry, 2> settings{{
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits.max_concurrent_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, static_cast<std::uint32_t>(limits.max_header_bytes)},
  }};
  nghttp2_submit_settings(impl.session, NGHTTP2_FLAG_NONE, settings.data(), settings.size());
}

Http2ServerCodec::~Http2ServerCodec() = default;

bool Http2ServerCodec::feed(std::string_view bytes) {
  Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty()) return false;
  const ssize_t used =
      nghttp2_session_mem_recv(impl.session, reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  if (used < 0) {
    impl.error = used == NGHTTP2_ERR_BAD_CLIENT_MAGIC
                     ? std::string("the client did not start with the HTTP/2 connection preface")
                     : std::string("the client's HTTP/2 frames could not be processed: ") +
                           nghttp2_strerror(static_cast<int>(used));
    return false;
  }
  return true;
}

bool Http2ServerCodec::take_output(std::string& out) {
  Impl& impl = *impl_;
  if (impl.session == nullptr) return false;
  for (;;) {
    const std::uint8_t* data = nullptr;
    const ssize_t n = nghttp2_session_mem_send(impl.session, &data);
    if (n < 0) {
      if (impl.error.empty()) impl.error = std::string("HTTP/2 output failed: ") + nghttp2_strerror(static_cast<int>(n));
      return false;
    }
    if (n == 0) return true;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
}

void Http2ServerCodec::respond(std::int32_t stream_id, int status, std::span<const Http2Field> fields,
                               std::string_view body, bool head_request) {
  Impl& impl = *impl_;
  Http2ServerStream* s = impl.find(stream_id);
  if (s == nullptr || impl.session == nullptr) return;
  const std::string status_text = std::to_string(status);
  const std::string length = std::to_string(body.size());
  std::array<nghttp2_nv, kInlineResponseFields> inline_nva{};
  std::vector<nghttp2_nv> heap_nva;
  nghttp2_nv* nva = inline_nva.data();
  // 204 and 304 carry no body and announce none (RFC 9110 8.6).
  const bool bodyless = status == 204 || status == 304;
  const std::size_t count = fields.size() + (bodyless ? 1 : 2);
  if (count > inline_nva.size()) {
    heap_nva.resize(count);
    nva = heap_nva.data();
  }
  std::size_t at = 0;
  nva[at++] = field(":status", status_text);
  if (!bodyless) nva[at++] = field("content-length", length);
  for (const Http2Field& f : fields) nva[at++] = field(f.name, f.value);
  const bool with_body = !head_request && !body.empty() && !bodyless;
  s->body = with_body ? body : std::string_view();
  s->sent = 0;
  nghttp2_data_provider provider{};
  provider.source.ptr = s;
  provider.read_callback = &Impl::read_body;
  nghttp2_submit_response(impl.session, stream_id, nva, count, with_body ? &provider : nullptr);
}

void Http2ServerCodec::go_away() {
  Impl& impl = *impl_;
  if (impl.session == nullptr) return;
  nghttp2_submit_goaway(impl.session, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(impl.session),
                        NGHTTP2_NO_ERROR, nullptr, 0);
}

bool Http2ServerCodec::failed() const { return !impl_->error.empty(); }
const std::string& Http2ServerCodec::error() const { return impl_->error; }

bool Http2ServerCodec::finished() const {
  const Impl& impl = *impl_;
  if (impl.session == nullptr || !impl.error.empty()) return true;
  return nghttp2_session_want_read(impl.session) == 0 && nghttp2_session_want_write(impl.session) == 0;
}

}  // namespace stampede::proto
