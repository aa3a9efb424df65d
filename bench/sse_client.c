/*
 * The stream benchmark's load generator in C (bench/stream_channels_bench.ts --client c): one
 * thread, epoll, `subscribers` raw SSE connections to GET /sessions/s<channel>/stream?replay=false,
 * the same scan as the Deno client (each token frame's "message" is its emit time in epoch ms),
 * a fraction of its CPU per frame, so that the server is what is measured at 200,000 frames/s.
 *
 * Usage: sse_client <host> <port> <subscribers> <channels> <events> <timeout-seconds>
 * Prints "READY" once every subscriber has its stream open, then, when each has every frame of
 * its channel (or at the timeout), one JSON line: delivered, p50, p99 (ms), on_time (≤ 50 ms), cpu (its
 * own seconds).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 600000 /* 0.1 ms each, as the Deno client's histogram */
#define BUF 65536

struct conn {
  int fd, channel, ready, done;
  long expected, got;
  size_t len;
  char buf[BUF];
};

static unsigned long histogram[BUCKETS];
static unsigned long count;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double quantile(double q) {
  unsigned long seen = 0, target = (unsigned long)(q * count);
  for (int i = 0; i < BUCKETS; i++) {
    seen += histogram[i];
    if (seen >= target && seen > 0) return i / 10.0;
  }
  return -1;
}

static int open_stream(const char *host, int port, struct conn *c, int epfd) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
  inet_pton(AF_INET, host, &addr.sin_addr);
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  char request[256];
  int n = snprintf(request, sizeof request, "GET /sessions/s%d/stream?replay=false HTTP/1.1\r\nHost: %s\r\n\r\n",
                   c->channel, host);
  if (write(fd, request, n) != n) {
    close(fd);
    return -1;
  }
  c->fd = fd;
  c->len = 0;
  c->ready = 0;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
  return 0;
}

/* Counts the complete token frames in c->buf and keeps what follows the last complete line. */
static void scan(struct conn *c, double at) {
  static const char token[] = "event: token\ndata: ";
  static const char message[] = "\"message\":\"";
  char *p = c->buf, *end = c->buf + c->len, *keep = c->buf;
  for (;;) {
    char *frame = memmem(p, end - p, token, sizeof token - 1);
    if (!frame) break;
    char *line_end = memchr(frame + sizeof token - 1, '\n', end - frame - (sizeof token - 1));
    if (!line_end) {
      keep = frame; /* the frame's data line is not all here yet */
      break;
    }
    char *m = memmem(frame, line_end - frame, message, sizeof message - 1);
    if (m) {
      double emitted = strtod(m + sizeof message - 1, NULL);
      long bucket = (long)((at - emitted) * 10 + 0.5);
      histogram[bucket < 0 ? 0 : bucket >= BUCKETS ? BUCKETS - 1 : bucket]++;
      count++;
      c->got++;
    }
    p = keep = line_end + 1;
  }
  if (keep == c->buf && c->len == BUF) keep = c->buf + c->len / 2; /* no frame in a full buffer: drop half */
  c->len = end - keep;
  memmove(c->buf, keep, c->len);
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: %s host port subscribers channels events timeout-seconds\n", argv[0]);
    return 2;
  }
  const char *host = argv[1];
  int port = atoi(argv[2]), subscribers = atoi(argv[3]), channels = atoi(argv[4]);
  long events = atol(argv[5]);
  double deadline = now_ms() + atof(argv[6]) * 1e3;
  struct conn *conns = calloc(subscribers, sizeof *conns);
  int epfd = epoll_create1(0), ready = 0, done = 0;
  for (int i = 0; i < subscribers; i++) {
    struct conn *c = &conns[i];
    c->channel = i % channels;
    c->expected = events / channels + (c->channel < events % channels ? 1 : 0);
    while (open_stream(host, port, c, epfd) != 0) usleep(100000);
  }
  struct epoll_event events_out[4096];
  while (done < subscribers && now_ms() < deadline) {
    // Once every stream is open, a pause between rounds lets frames gather in the sockets: a read takes
    // several at once instead of a system call each (latencies read up to 2 ms late: within the 50 ms bound).
    if (ready == subscribers) usleep(2000);
    int n = epoll_wait(epfd, events_out, 4096, 1000);
    double at = now_ms();
    for (int i = 0; i < n; i++) {
      struct conn *c = events_out[i].data.ptr;
      ssize_t r = read(c->fd, c->buf + c->len, BUF - c->len);
      if (r <= 0) {
        if (r < 0 && errno == EINTR) continue;
        epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        if (!c->ready) { /* refused or closed before its stream opened: again */
          usleep(100000);
          open_stream(host, port, c, epfd);
        } else if (!c->done) {
          c->done = 1;
          done++;
        }
        continue;
      }
      c->len += r;
      if (!c->ready) {
        if (c->len >= 12 && strncmp(c->buf, "HTTP/1.1 200", 12) != 0) {
          c->len = 0;
          epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
          close(c->fd);
          usleep(100000);
          open_stream(host, port, c, epfd);
          continue;
        }
        if (!memmem(c->buf, c->len, "retry: 1000", 11)) continue;
        c->ready = 1;
        if (++ready == subscribers) {
          puts("READY");
          fflush(stdout);
        }
      }
      scan(c, at);
      if (!c->done && c->got >= c->expected) {
        c->done = 1;
        done++;
        epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
      }
    }
  }
  unsigned long on_time = 0;
  for (int i = 0; i < 500; i++) on_time += histogram[i];
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  double cpu = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  printf("{\"delivered\":%lu,\"p50\":%.1f,\"p99\":%.1f,\"on_time\":%lu,\"cpu\":%.3f}\n", count, quantile(0.5),
         quantile(0.99), on_time, cpu);
  return 0;
}
