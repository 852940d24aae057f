// bench/reference/openloop: the leanest open-model HTTP generator we could write, as a
// yardstick for bench/max-rate: what this machine allows, this hour, under the same
// criterion, to a generator that does nothing but the system calls.
//
//   openloop HOST PORT RATE SECONDS CONNECTIONS [poll|sleep]
//
// One thread. CONNECTIONS keep-alive connections are opened before the clock starts.
// Arrival k is due at start + k / RATE (absolute times: the schedule never drifts) and goes
// out as `GET /` on any free connection; with none free it waits for one, and the wait
// shows as lag (sent minus scheduled), as in Stampede. The loop polls epoll without
// blocking; its busy time is everything but streaks of polls that found nothing, as
// Stampede's generator.cpu counts it. `sleep` (not the default) blocks in epoll_pwait2 until
// the next arrival is due or a reply comes whenever a poll found nothing, as Stampede's
// default sleeping worker does: what a generator that leaves its core when idle can measure
// on this machine (bench/accuracy shows both, docs/design/053). A reply is complete at the
// end of its head plus its Content-Length. No Lua, no metrics but an array of lags, no TLS, no redirects.
//
// Prints one JSON object: sent, completed, errors, lag p50/p99/max (ms), busy share and
// busy µs per request, and each completed request's time from its scheduled send
// ("from_due") and from its actual send ("service"), p50/p95/p99 in ms (bench/accuracy
// sets them next to Stampede's `iteration` and `http.request`). A connection the server closes, resets or sends anything but the
// reply on is dropped, and a request on it counts as an error. Bounded: it stops SECONDS + 5 s
// after the start whatever is pending, or as soon as no connection is left.
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
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kReplyBuffer = 4096, kEvents = 256 };

typedef struct {
  int fd;    // -1 once the connection is gone (closed, failed, or out of step)
  int busy;  // a request of ours is in flight on it
  int used;  // bytes of the reply so far
  int64_t due, sent_at;  // the request in flight: when it was scheduled, when it went out
  char reply[kReplyBuffer];
} Connection;

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int compare_u32(const void* a, const void* b) {
  const uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

// The reply's total length once its head is complete; 0 while it is not; -1 if unusable.
static long reply_length(Connection* c) {
  c->reply[c->used] = '\0';
  const char* end = strstr(c->reply, "\r\n\r\n");
  if (end == NULL) return c->used >= kReplyBuffer - 1 ? -1 : 0;
  const char* field = strcasestr(c->reply, "\r\ncontent-length:");
  if (field == NULL || field > end) return -1;
  return (long)(end + 4 - c->reply) + strtol(field + 17, NULL, 10);
}

// The p-th percentile (nearest rank below) of `n` sorted values, µs to ms.
static double percentile_ms(const uint32_t* sorted, size_t n, double p) {
  return n ? sorted[(size_t)(p * (double)(n - 1))] / 1000.0 : 0;
}

static int live = 0;  // connections not dropped

// Takes a connection out of use for the rest of the run (its slot may still be on the free
// stack: the sender skips it).
static void drop(int epoll, Connection* c) {
  epoll_ctl(epoll, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->fd = -1;
  c->busy = 0;
  live--;
}

int main(int argc, char** argv) {
  if (argc != 6 && !(argc == 7 && (strcmp(argv[6], "poll") == 0 || strcmp(argv[6], "sleep") == 0))) {
    fprintf(stderr, "usage: openloop HOST PORT RATE SECONDS CONNECTIONS [poll|sleep]\n");
    return 2;
  }
  const int sleeping = argc == 7 && strcmp(argv[6], "sleep") == 0;
  // As Stampede's workers: timers to the microsecond, not up to 50 µs late (timer slack).
  if (sleeping) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  const char* host = argv[1];
  const int port = atoi(argv[2]);
  const double rate = atof(argv[3]);
  const int seconds = atoi(argv[4]);
  const int pool = atoi(argv[5]);
  if (port <= 0 || rate <= 0 || seconds <= 0 || pool <= 0) {
    fprintf(stderr, "openloop: PORT, RATE, SECONDS and CONNECTIONS must be positive\n");
    return 2;
  }
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  if (inet_pton(AF_INET, host, &address.sin_addr) != 1) {
    fprintf(stderr, "openloop: HOST must be an IPv4 address, not %s\n", host);
    return 2;
  }
  char request[160];
  const int request_length = snprintf(request, sizeof request, "GET / HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port);

  const size_t planned = (size_t)(rate * seconds);
  uint32_t* lag_us = calloc(planned + 1, sizeof *lag_us);
  uint32_t* from_due_us = calloc(planned + 1, sizeof *from_due_us);
  uint32_t* service_us = calloc(planned + 1, sizeof *service_us);
  Connection* connections = calloc((size_t)pool, sizeof *connections);
  int* free_stack = calloc((size_t)pool, sizeof *free_stack);
  const int epoll = epoll_create1(0);
  if (lag_us == NULL || from_due_us == NULL || service_us == NULL || connections == NULL || free_stack == NULL || epoll < 0) {
    perror("openloop: setup");
    return 1;
  }
  int free_count = 0;
  for (int i = 0; i < pool; i++) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        connect(fd, (struct sockaddr*)&address, sizeof address) != 0 || fcntl(fd, F_SETFL, O_NONBLOCK) != 0) {
      perror("openloop: connect");
      return 1;
    }
    struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
    if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0) {
      perror("openloop: epoll_ctl");
      return 1;
    }
    connections[i].fd = fd;
    free_stack[free_count++] = i;
    live++;
  }

  const int64_t start = now_ns() + 100 * 1000000LL;
  const int64_t give_up = start + (int64_t)(seconds + 5) * 1000000000LL;
  size_t next = 0, completed = 0, errors = 0;
  int in_flight = 0;
  int64_t idle_ns = 0, idle_since = -1;
  struct epoll_event events[kEvents];
  while (now_ns() < start) {
  }
  for (;;) {
    const int64_t t = now_ns();
    int worked = 0;
    while (next < planned && free_count > 0) {
      const int64_t due = start + (int64_t)((double)next * 1e9 / rate);
      if (due > t) break;
      Connection* c = &connections[free_stack[--free_count]];
      if (c->fd < 0) continue;  // gone while idle: not for this arrival
      c->used = 0;
      const int64_t sent_at = now_ns();
      // A fresh request on an idle connection: the socket's buffer always takes it whole.
      if (send(c->fd, request, (size_t)request_length, MSG_NOSIGNAL) != request_length) {
        errors++;
        drop(epoll, c);
      } else {
        c->busy = 1;
        c->due = due;
        c->sent_at = sent_at;
        in_flight++;
      }
      lag_us[next++] = (uint32_t)((sent_at - due) / 1000);
      worked = 1;
    }
    // Done, out of time, or no connection left to send the rest on (they stay unsent:
    // sent < planned, and the target's count shows it).
    if ((next == planned && in_flight == 0) || t > give_up || live == 0) break;
    int n = epoll_wait(epoll, events, kEvents, 0);
    int64_t polled_at = t;  // where this round's idle streak, if any, ends
    if (n == 0 && !worked && sleeping) {
      // Nothing to do: block until the next arrival is due (if a connection is free for it)
      // or a reply comes. The time blocked counts as idle, like a streak of empty polls.
      int64_t wait_ns = 100 * 1000000LL;  // bounded: the give-up time is checked again
      if (next < planned && free_count > 0) {
        const int64_t due = start + (int64_t)((double)next * 1e9 / rate);
        wait_ns = due > t ? due - t : 0;
      }
      if (idle_since < 0) idle_since = t;
      const struct timespec timeout = {.tv_sec = wait_ns / 1000000000LL, .tv_nsec = wait_ns % 1000000000LL};
      n = epoll_pwait2(epoll, events, kEvents, &timeout, NULL);
      if (n < 0) n = 0;  // EINTR: go round again
      polled_at = now_ns();
    }
    for (int i = 0; i < n; i++) {
      const int index = (int)events[i].data.u32;
      Connection* c = &connections[index];
      const ssize_t got = recv(c->fd, c->reply + c->used, (size_t)(kReplyBuffer - 1 - c->used), 0);
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      long length = -1;
      if (got > 0 && c->busy) {
        c->used += (int)got;
        length = reply_length(c);
      }
      // Closed, failed, bytes while idle, an unparsable reply or bytes past it: the connection
      // is gone, and with it the request in flight, if any.
      if (length < 0 || length < c->used) {
        if (c->busy) {
          errors++;
          in_flight--;
        }
        drop(epoll, c);
      } else if (length == c->used) {
        const int64_t done_at = now_ns();
        from_due_us[completed] = (uint32_t)((done_at - c->due) / 1000);
        service_us[completed] = (uint32_t)((done_at - c->sent_at) / 1000);
        completed++;
        in_flight--;
        c->busy = 0;
        free_stack[free_count++] = index;
      }
    }
    if (n > 0) worked = 1;
    if (worked) {
      if (idle_since >= 0) idle_ns += polled_at - idle_since;
      idle_since = -1;
    } else if (idle_since < 0) {
      idle_since = t;
    }
  }
  const int64_t span = now_ns() - start;
  if (idle_since >= 0) idle_ns += now_ns() - idle_since;
  const double busy = (double)(span - idle_ns);
  qsort(lag_us, next, sizeof *lag_us, compare_u32);
  const double p50 = next ? lag_us[(size_t)(0.50 * (double)(next - 1))] / 1000.0 : 0;
  const double p99 = next ? lag_us[(size_t)(0.99 * (double)(next - 1))] / 1000.0 : 0;
  const double max = next ? lag_us[next - 1] / 1000.0 : 0;
  qsort(from_due_us, completed, sizeof *from_due_us, compare_u32);
  qsort(service_us, completed, sizeof *service_us, compare_u32);
  printf("{\"planned\": %zu, \"sent\": %zu, \"completed\": %zu, \"errors\": %zu, \"lag_p50_ms\": %.3f, "
         "\"lag_p99_ms\": %.3f, \"lag_max_ms\": %.3f, \"busy_share\": %.3f, \"busy_us_per_request\": %.2f, "
         "\"from_due_p50_ms\": %.3f, \"from_due_p95_ms\": %.3f, \"from_due_p99_ms\": %.3f, "
         "\"service_p50_ms\": %.3f, \"service_p95_ms\": %.3f, \"service_p99_ms\": %.3f}\n",
         planned, next, completed, errors, p50, p99, max, busy / (double)span,
         completed ? busy / 1000.0 / (double)completed : 0.0, percentile_ms(from_due_us, completed, 0.50),
         percentile_ms(from_due_us, completed, 0.95), percentile_ms(from_due_us, completed, 0.99),
         percentile_ms(service_us, completed, 0.50), percentile_ms(service_us, completed, 0.95),
         percentile_ms(service_us, completed, 0.99));
  return 0;
}
