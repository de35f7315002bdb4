// keep-null.c: the least a keep/1 server can do, for measuring keep-bench's
// own latency floor. It listens on loopback, gives each connection a thread
// that blocks in recv, and answers every complete request frame with an
// empty OK carrying the request's id, all answers to one read in one send.
// It stores nothing, so whatever latency keep-bench reports against it is
// the generator's and the kernel's (scheduling, loopback TCP), not a
// server's. A benchmark aid, never a test or a server.
//   keep-null [--port N] [--port-file PATH]   (port 0: any free port)
// Runs until killed.
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "corvid_parse.h"
#include "keep_internal.h"

enum { IN_CAP = 1 << 20 };

// serve answers the requests on connection `arg` (an fd) until it closes.
static void *serve(void *arg) {
  int fd = (int)(intptr_t)arg;
  uint8_t *in = malloc(IN_CAP), *out = malloc(IN_CAP);
  size_t have = 0;
  while (in != NULL && out != NULL) {
    ssize_t n = recv(fd, in + have, IN_CAP - have, 0);
    if (n <= 0)
      break;
    have += (size_t)n;
    size_t pos = 0, off = 0;
    keep_frame f;
    size_t used;
    while (keep_frame_decode(&f, &used, in + pos, have - pos, 0) == 1) {
      pos += used;
      keep_frame a;
      keep_frame_init(&a, KEEP_OP_OK, f.id);
      size_t len;
      if (keep_frame_encode(out + off, IN_CAP - off, &len, &a) != 0)
        break; // the answer buffer is full: the rest waits for the next read
      off += len;
    }
    if (off > 0 && send(fd, out, off, MSG_NOSIGNAL) != (ssize_t)off)
      break;
    memmove(in, in + pos, have - pos);
    have -= pos;
    if (have == IN_CAP)
      break; // a frame larger than the buffer: not a client of ours
  }
  free(in);
  free(out);
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  unsigned port = 0;
  const char *port_file = NULL;
  static const struct option opts[] = {{"port", required_argument, NULL, 'p'},
                                       {"port-file", required_argument, NULL, 'f'},
                                       {NULL, 0, NULL, 0}};
  int o;
  uint64_t u;
  bool bad = false;
  while (!bad && (o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    if (o == 'p' && corvid_parse_u64(optarg, 0, 65535, &u) == 0)
      port = (unsigned)u;
    else if (o == 'f')
      port_file = optarg;
    else
      bad = true;
  }
  if (bad || optind < argc) {
    fprintf(stderr, "usage: keep-null [--port N] [--port-file PATH]\n");
    return 2;
  }
  int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof a;
  if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 64) < 0 ||
      getsockname(lfd, (struct sockaddr *)&a, &alen) < 0) {
    fprintf(stderr, "keep-null: cannot listen: %s\n", strerror(errno));
    return 1;
  }
  if (port_file != NULL) {
    // Written whole under a temporary name, so a reader never sees half.
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
    FILE *f = fopen(tmp, "w");
    if (f == NULL || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 ||
        rename(tmp, port_file) != 0) {
      fprintf(stderr, "keep-null: cannot write %s\n", port_file);
      return 1;
    }
  }
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      return 1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pthread_t t;
    if (pthread_create(&t, NULL, serve, (void *)(intptr_t)fd) != 0)
      close(fd);
    else
      pthread_detach(t);
  }
}
