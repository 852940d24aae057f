// bench/reference/holdloop: the leanest holder of idle Phoenix channel users we could write, as
// a yardstick for bench/hold-cost (issue 37): what holding a joined user costs on this
// machine, this hour, to a generator that does nothing but the system calls.
//
//   holdloop HOST PORT USERS HEARTBEAT_SECONDS HOLD_SECONDS [RAMP_PER_SECOND]
//
// One thread, one epoll. USERS connections are opened at RAMP_PER_SECOND (default 1,000),
// each upgraded to a WebSocket at /socket/websocket?vsn=2.0.0 (a fixed Sec-WebSocket-Key;
// the 101 and its Accept are checked) and joined to room:lobby with the V2 frame
// ["1","1","room:lobby","phx_join",{}] (masked), whose phx_reply must say "ok". A held
// connection then sends [null,"N","phoenix","heartbeat",{}] every HEARTBEAT_SECONDS on
// Stampede's grid (docs/design/048: the deadline is rounded up to interval/100, at most
// 100 ms, counted from the monotonic clock's zero, so the sockets due in one grid step send
// in one wake-up) and reads its phx_reply; a reply still missing when the next heartbeat is
// due is an error and the connection is dropped, as phoenix.js and Stampede do.
//
// The deadlines: every held socket's next heartbeat is "now + interval" on the grid, and
// "now" only grows, so they are due in the order they were set: a FIFO of connection indices
// is the whole timer structure (no heap, nothing per tick but the sockets that are due).
//
// Reads: edge-triggered epoll, registered once per socket. A read that fills less than the
// buffer has drained the socket, and the next bytes make a new edge, so a reply costs one
// recv and a share of one epoll_wait. Level-triggered epoll puts each reported socket back on
// the ready list and the next epoll_wait polls it again only to find it empty; EPOLLONESHOT
// costs an epoll_ctl per read (what Asio's re-arm costs Stampede). Edge-triggered is the
// cheapest of the three.
//
// After the last user joined, one full heartbeat interval passes (every socket is then on its
// schedule) and the process measures its own CPU (getrusage: user + system) and voluntary
// context switches (its wake-ups) over HOLD_SECONDS. Heartbeats sent in that hold are
// counted, and so are their replies. No heartbeat goes out after it; the replies of those in
// flight are waited for up to 5 s (not measured), and one still missing then is an error. stderr says "holdloop: hold begins" and "holdloop:
// hold ends" as the measurement starts and ends (bench/hold-cost measures the target over
// the same span). Prints one JSON object: users, held (joined and still open at the end),
// heartbeats, replies, errors (the whole run), cpu_seconds, us_per_user_per_second (per held
// user) and wakeups_per_second.
//
// Exits 1 with a message on stderr when a user cannot be opened, upgraded or joined within
// 10 s of the ramp's end, or the process cannot get a descriptor per user. Bounded: the ramp,
// 10 s, an interval, the hold and 5 s. No TLS, no metrics, no Lua, no histogram: it measures
// the floor, not a rival product.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kReadBuffer = 65536, kCarry = 512, kEvents = 1024 };
static const int64_t kSecond = 1000000000LL;
static const int64_t kSetupGrace = 10 * 1000000000LL;  // after the ramp's last start, to join
static const int64_t kReplyGrace = 5 * 1000000000LL;   // after the hold, for its last replies

enum State { kConnecting, kUpgrading, kJoining, kHeld, kGone };

typedef struct {
  int fd;
  uint8_t state;
  uint8_t awaiting;  // a heartbeat of ours has no reply yet
  uint8_t in_hold;   // ... and it went out during the measured hold
  uint16_t carry;    // bytes of an unfinished head or frame kept in carries[index]
  uint32_t ref;      // the last ref sent
  int64_t due;       // the next heartbeat, on the grid
} Connection;

static Connection* connections;
static char (*carries)[kCarry];
static int* queue;  // held connections by due time: a ring of USERS indices
static size_t queue_head, queue_size, queue_capacity;
static int epoll_fd;
static char buffer[kReadBuffer];

static int64_t interval, grid;
static int joined, setup_failed, measuring;
static size_t heartbeats, replies, errors, awaiting;  // awaiting: heartbeats with no reply yet
static char first_error[200];

static const char kKey[] = "dGhlIHNhbXBsZSBub25jZQ==";       // RFC 6455's sample key...
static const char kAccept[] = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";  // ...and its answer
static const unsigned char kMask[4] = {0x37, 0xfa, 0x21, 0x3d};
static char upgrade[256];
static int upgrade_length;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * kSecond + t.tv_nsec;
}

// Stampede's coarse_deadline: `at` rounded up to the grid every socket shares.
static int64_t on_grid(int64_t at) { return (at + grid - 1) / grid * grid; }

static void queue_push(int index) {
  queue[(queue_head + queue_size++) % queue_capacity] = index;
}

// The connection is gone for the rest of the run; closing its descriptor takes it out of epoll.
static void fail(Connection* c, const char* why) {
  if (c->state == kGone) return;
  if (first_error[0] == '\0') {
    snprintf(first_error, sizeof first_error, "user %d: %s", (int)(c - connections), why);
  }
  errors++;
  if (c->state < kHeld) setup_failed++;
  if (c->awaiting) awaiting--;
  close(c->fd);
  c->state = kGone;
}

// One masked text frame (payloads here are under 126 bytes); 0 when it went out whole (on an
// idle socket its buffer always takes it).
static int send_text(Connection* c, const char* payload, size_t length) {
  char frame[6 + 125];
  if (length > 125) return -1;
  frame[0] = (char)0x81;
  frame[1] = (char)(0x80 | length);
  memcpy(frame + 2, kMask, 4);
  for (size_t i = 0; i < length; i++) frame[6 + i] = (char)(payload[i] ^ kMask[i & 3]);
  const ssize_t sent = send(c->fd, frame, 6 + length, MSG_NOSIGNAL);
  return sent == (ssize_t)(6 + length) ? 0 : -1;
}

static void send_heartbeat(Connection* c, int64_t now) {
  if (c->awaiting) {
    fail(c, "no reply to a heartbeat by the next one");
    return;
  }
  char payload[64];
  const int length = snprintf(payload, sizeof payload, "[null,\"%u\",\"phoenix\",\"heartbeat\",{}]", ++c->ref);
  if (send_text(c, payload, (size_t)length) != 0) {
    fail(c, "a heartbeat's send failed");
    return;
  }
  c->awaiting = 1;
  awaiting++;
  c->in_hold = (uint8_t)measuring;
  heartbeats += (size_t)measuring;
  c->due = on_grid(now + interval);
  queue_push((int)(c - connections));
}

static int starts_with(const char* data, size_t length, const char* prefix) {
  const size_t n = strlen(prefix);
  return length >= n && memcmp(data, prefix, n) == 0;
}

// A whole text message from the target.
static void on_message(Connection* c, const char* data, size_t length, int64_t now) {
  static const char kOk[] = "\"status\":\"ok\"";
  if (c->state == kJoining) {
    if (!starts_with(data, length, "[\"1\",\"1\",\"room:lobby\",\"phx_reply\",") ||
        memmem(data, length, kOk, sizeof kOk - 1) == NULL) {
      fail(c, "the join's reply is not ok");
      return;
    }
    c->state = kHeld;
    c->ref = 1;
    joined++;
    c->due = on_grid(now + interval);
    queue_push((int)(c - connections));
    return;
  }
  // Held: nothing but the reply to the heartbeat in flight, [null,"REF","phoenix","phx_reply",...].
  static const char kHead[] = "[null,\"";
  static const char kTail[] = "\",\"phoenix\",\"phx_reply\",";
  size_t at = sizeof kHead - 1;
  uint64_t ref = 0;
  if (starts_with(data, length, kHead)) {
    while (at < length && at < sizeof kHead + 10 && data[at] >= '0' && data[at] <= '9') {
      ref = ref * 10 + (uint64_t)(data[at++] - '0');
    }
  }
  if (!starts_with(data, length, kHead) || !c->awaiting || ref != c->ref || !starts_with(data + at, length - at, kTail) ||
      memmem(data, length, kOk, sizeof kOk - 1) == NULL) {
    fail(c, "a message that is not the ok reply to the heartbeat in flight");
    return;
  }
  c->awaiting = 0;
  awaiting--;
  replies += c->in_hold;
}

// Whole frames from data[0, length): the bytes used, or -1 once the connection failed.
static long on_frames(Connection* c, const unsigned char* data, size_t length, int64_t now) {
  size_t at = 0;
  while (length - at >= 2) {
    const unsigned char b0 = data[at], b1 = data[at + 1];
    size_t head = 2;
    uint64_t size = b1 & 0x7f;
    if (size == 126) {
      if (length - at < 4) break;
      size = (uint64_t)data[at + 2] << 8 | data[at + 3];
      head = 4;
    } else if (size == 127) {
      if (length - at < 10) break;
      size = 0;
      for (int i = 2; i < 10; i++) size = size << 8 | data[at + i];
      head = 10;
    }
    if ((b1 & 0x80) || size > kReadBuffer / 2) {
      fail(c, "a masked or oversized frame from the target");
      return -1;
    }
    if (length - at - head < size) break;
    if (b0 != 0x81) {  // FIN + text; a close (0x88) or anything else ends the user
      fail(c, (b0 & 0x0f) == 8 ? "closed by the target (a close frame)" : "a frame that is not a whole text frame");
      return -1;
    }
    on_message(c, (const char*)data + at + head, (size_t)size, now);
    if (c->state == kGone) return -1;
    at += head + (size_t)size;
  }
  return (long)at;
}

// The upgrade's response head from data[0, length): the bytes used (0 while incomplete), or -1.
static long on_head(Connection* c, const char* data, size_t length) {
  const char* end = memmem(data, length, "\r\n\r\n", 4);
  if (end == NULL) return 0;
  if (!starts_with(data, length, "HTTP/1.1 101 ") || memmem(data, (size_t)(end - data), kAccept, sizeof kAccept - 1) == NULL) {
    fail(c, "the upgrade was not answered 101 with the key's Accept");
    return -1;
  }
  static const char kJoin[] = "[\"1\",\"1\",\"room:lobby\",\"phx_join\",{}]";
  if (send_text(c, kJoin, sizeof kJoin - 1) != 0) {
    fail(c, "the join's send failed");
    return -1;
  }
  c->state = kJoining;
  return (long)(end + 4 - data);
}

// Reads until a short read: edge-triggered, the socket is then drained.
static void on_readable(Connection* c, int64_t now) {
  const int index = (int)(c - connections);
  for (;;) {
    const size_t kept = c->carry;
    if (kept) memcpy(buffer, carries[index], kept);
    const size_t room = sizeof buffer - kept;
    const ssize_t got = recv(c->fd, buffer + kept, room, 0);
    if (got == 0) {
      fail(c, "closed by the target");
      return;
    }
    if (got < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK) fail(c, strerror(errno));
      return;
    }
    size_t length = kept + (size_t)got, used = 0;
    if (c->state == kUpgrading) {
      const long head = on_head(c, buffer, length);
      if (head < 0) return;
      used = (size_t)head;
    }
    if (c->state == kJoining || c->state == kHeld) {
      const long frames = on_frames(c, (const unsigned char*)buffer + used, length - used, now);
      if (frames < 0) return;
      used += (size_t)frames;
    }
    if (length - used > kCarry) {
      fail(c, "more than 512 bytes of an unfinished head or frame");
      return;
    }
    memmove(carries[index], buffer + used, length - used);
    c->carry = (uint16_t)(length - used);
    if ((size_t)got < room) return;
  }
}

static void send_upgrade(Connection* c) {
  if (send(c->fd, upgrade, (size_t)upgrade_length, MSG_NOSIGNAL) != upgrade_length) {
    fail(c, "the upgrade's send failed");
    return;
  }
  c->state = kUpgrading;
}

static void on_event(Connection* c, uint32_t events, int64_t now) {
  if (c->state == kGone) return;
  if (c->state == kConnecting) {
    int error = 0;
    socklen_t size = sizeof error;
    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) {
      fail(c, strerror(error ? error : errno));
      return;
    }
    // Connected: from now on only reads wake it (a held socket never fills its send buffer).
    struct epoll_event event = {.events = EPOLLIN | EPOLLET, .data.u32 = (uint32_t)(c - connections)};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &event) != 0) {
      fail(c, strerror(errno));
      return;
    }
    send_upgrade(c);
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(c, now);
}

static int open_connection(int index, const struct sockaddr_in* address) {
  Connection* c = &connections[index];
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    perror("holdloop: socket");
    return -1;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  c->fd = fd;
  c->state = kConnecting;
  const int connected = connect(fd, (const struct sockaddr*)address, sizeof *address);
  if (connected != 0 && errno != EINPROGRESS) {
    fail(c, strerror(errno));
    return 0;
  }
  struct epoll_event event = {.events = connected == 0 ? EPOLLIN | EPOLLET : EPOLLOUT | EPOLLET,
                              .data.u32 = (uint32_t)index};
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) != 0) {
    perror("holdloop: epoll_ctl");
    return -1;
  }
  if (connected == 0) send_upgrade(c);
  return 0;
}

static double cpu_seconds(const struct rusage* u) {
  return (double)u->ru_utime.tv_sec + (double)u->ru_utime.tv_usec / 1e6 + (double)u->ru_stime.tv_sec +
         (double)u->ru_stime.tv_usec / 1e6;
}

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    fprintf(stderr, "usage: holdloop HOST PORT USERS HEARTBEAT_SECONDS HOLD_SECONDS [RAMP_PER_SECOND]\n");
    return 2;
  }
  const char* host = argv[1];
  const int port = atoi(argv[2]);
  const int users = atoi(argv[3]);
  const double heartbeat_seconds = atof(argv[4]);
  const double hold_seconds = atof(argv[5]);
  const double ramp = argc == 7 ? atof(argv[6]) : 1000;
  if (port <= 0 || port > 65535 || users <= 0 || heartbeat_seconds <= 0 || hold_seconds <= 0 || ramp <= 0) {
    fprintf(stderr, "holdloop: PORT, USERS, HEARTBEAT_SECONDS, HOLD_SECONDS and RAMP_PER_SECOND must be positive\n");
    return 2;
  }
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
    fprintf(stderr, "holdloop: HOST must be an IPv4 address, not %s\n", host);
    return 2;
  }
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < (rlim_t)users + 16) {
    files.rlim_cur = files.rlim_max;
    if (files.rlim_cur < (rlim_t)users + 16 || setrlimit(RLIMIT_NOFILE, &files) != 0) {
      fprintf(stderr, "holdloop: %d users need %d descriptors; the limit is %llu\n", users, users + 16,
              (unsigned long long)files.rlim_max);
      return 1;
    }
  }
  upgrade_length = snprintf(upgrade, sizeof upgrade,
                            "GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                            host, port, kKey);
  interval = (int64_t)(heartbeat_seconds * 1e9);
  grid = interval / 100;
  if (grid < 1000) grid = 1000;
  if (grid > 100000000) grid = 100000000;
  const int64_t hold = (int64_t)(hold_seconds * 1e9);

  connections = calloc((size_t)users, sizeof *connections);
  carries = calloc((size_t)users, sizeof *carries);
  queue = calloc((size_t)users, sizeof *queue);
  queue_capacity = (size_t)users;
  epoll_fd = epoll_create1(0);
  if (connections == NULL || carries == NULL || queue == NULL || epoll_fd < 0) {
    perror("holdloop: setup");
    return 1;
  }

  const int64_t start = now_ns();
  const int64_t last_start = start + (int64_t)((double)(users - 1) * 1e9 / ramp);
  int started = 0;
  int64_t measure_from = -1, measure_to = -1, stop_at = -1, measured_from = 0, measured_to = 0;
  struct rusage before, after;
  struct epoll_event events[kEvents];
  for (;;) {
    int64_t t = now_ns();
    // The ramp: every start that is due.
    while (started < users && start + (int64_t)((double)started * 1e9 / ramp) <= t) {
      if (open_connection(started++, &address) != 0) return 1;
    }
    if (measure_from < 0 && started == users && (joined + setup_failed == users || t > last_start + kSetupGrace)) {
      if (joined < users) {
        fprintf(stderr, "holdloop: %d of %d users not joined within %.0f s of the ramp's end (first: %s)\n",
                users - joined, users, (double)kSetupGrace / 1e9, first_error[0] ? first_error : "no answer");
        return 1;
      }
      measure_from = t + interval;
      fprintf(stderr, "holdloop: %d users joined in %.1f s; the hold starts an interval later\n", joined,
              (double)(t - start) / 1e9);
    }
    if (measure_from >= 0 && measure_to < 0 && t >= measure_from) {
      getrusage(RUSAGE_SELF, &before);
      measured_from = t;
      measure_to = t + hold;
      measuring = 1;
      fprintf(stderr, "holdloop: hold begins\n");
    }
    if (measuring && t >= measure_to) {
      getrusage(RUSAGE_SELF, &after);
      measured_to = t;
      measuring = 0;
      stop_at = t + kReplyGrace;
      fprintf(stderr, "holdloop: hold ends\n");
    }
    // The heartbeats due, until the hold is over (after it only its replies are waited for).
    if (stop_at < 0) {
      while (queue_size > 0 && connections[queue[queue_head]].due <= t) {
        Connection* c = &connections[queue[queue_head]];
        queue_head = (queue_head + 1) % queue_capacity;
        queue_size--;
        if (c->state == kHeld) send_heartbeat(c, t);
      }
    }
    if (stop_at >= 0 && (awaiting == 0 || t >= stop_at)) break;

    // Sleep until the next thing due, or bytes.
    int64_t next = stop_at >= 0 ? stop_at : INT64_MAX;
    if (started < users) {
      const int64_t at = start + (int64_t)((double)started * 1e9 / ramp);
      if (at < next) next = at;
    }
    if (measure_from < 0 && last_start + kSetupGrace < next) next = last_start + kSetupGrace;
    if (measure_from >= 0 && measure_to < 0 && measure_from < next) next = measure_from;
    if (measuring && measure_to < next) next = measure_to;
    if (stop_at < 0 && queue_size > 0 && connections[queue[queue_head]].due < next) next = connections[queue[queue_head]].due;
    t = now_ns();
    const int timeout = next <= t ? 0 : (int)((next - t + 999999) / 1000000);
    const int n = epoll_wait(epoll_fd, events, kEvents, timeout);
    if (n < 0 && errno != EINTR) {
      perror("holdloop: epoll_wait");
      return 1;
    }
    if (n > 0) t = now_ns();
    for (int i = 0; i < n; i++) on_event(&connections[events[i].data.u32], events[i].events, t);
  }
  // Replies that never came.
  errors += awaiting;
  int held = 0;
  for (int i = 0; i < users; i++) held += connections[i].state == kHeld;
  const double span = (double)(measured_to - measured_from) / 1e9;
  const double cpu = cpu_seconds(&after) - cpu_seconds(&before);
  if (errors) fprintf(stderr, "holdloop: %zu errors (first: %s)\n", errors, first_error[0] ? first_error : "a reply missing");
  printf("{\"users\": %d, \"held\": %d, \"heartbeats\": %zu, \"replies\": %zu, \"errors\": %zu, "
         "\"cpu_seconds\": %.6f, \"us_per_user_per_second\": %.4f, \"wakeups_per_second\": %.1f}\n",
         users, held, heartbeats, replies, errors, cpu, held ? cpu * 1e6 / span / held : 0.0,
         (double)(after.ru_nvcsw - before.ru_nvcsw) / span);
  return 0;
}
