// test_tls.c: keepd's mutual TLS 1.3 seen from outside (argv[1] is the
// daemon): keys made by `keepd keygen`, a client with its own allowed key and
// one holding the cluster key both served, a server with the wrong key
// refused by the client, a client without a certificate, with a key not on
// the list, or revoked by SIGHUP refused by the server (and the connection
// it held cut), TLS 1.2 from `openssl s_client` refused, a plaintext client
// on the TLS port refused, a silent peer closed after the handshake
// timeout, stalled handshakes bounded per shard, large values and
// pipelines over TLS, and the start-up refusals (no key without
// --plaintext, --plaintext off loopback or with a key, a public key as the
// key, keygen over an existing file). The daemon's handshake counters,
// printed at exit, confirm why each connection ended.
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "corvid_libtest.h"
#include "keep.h"
#include "keep_internal.h"
#include "keepd_harness.h"

static const char *keepd_bin;
// KEEPD_TEST_MAX_HANDSHAKES is keepd's KEEPD_MAX_HANDSHAKES (keepd_tls.h).
#define KEEPD_TEST_MAX_HANDSHAKES 256

struct env {
  char dir[64];
  char cluster_key[128], cluster_pub[128];
  char c1_key[128], c1_pub[128], c2_key[128], c2_pub[128];
  char other_key[128], other_pub[128];
  char clients[128], log[128];
};

// run_keepd runs keepd with `args` (NULL-ended, after the binary) and returns
// its exit status, -1 if it did not end within 10 s.
static int run_keepd(const char *const *args, bool quiet) {
  return keepd_run(keepd_bin, args, quiet);
}

static void keygen(char *key, char *pub, const char *dir, const char *name) {
  snprintf(key, 128, "%s/%s.key", dir, name);
  snprintf(pub, 128, "%s/%s.key.pub", dir, name);
  const char *args[] = {"keygen", key, NULL};
  ck_assert_int_eq(run_keepd(args, false), 0);
}

static void write_text(const char *path, const char *a, const char *b) {
  FILE *out = fopen(path, "w");
  ck_assert_ptr_nonnull(out);
  const char *src[] = {a, b};
  for (int i = 0; i < 2; i++) {
    if (src[i] == NULL)
      continue;
    fprintf(out, "# %s\n", src[i]); // comment lines between keys are allowed
    FILE *in = fopen(src[i], "r");
    ck_assert_ptr_nonnull(in);
    int ch;
    while ((ch = fgetc(in)) != EOF)
      fputc(ch, out);
    fclose(in);
  }
  ck_assert_int_eq(fclose(out), 0);
}

static void env_init(struct env *e) {
  memset(e, 0, sizeof *e);
  snprintf(e->dir, sizeof e->dir, "/tmp/keepd-tls-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(e->dir));
  keygen(e->cluster_key, e->cluster_pub, e->dir, "cluster");
  keygen(e->c1_key, e->c1_pub, e->dir, "c1");
  keygen(e->c2_key, e->c2_pub, e->dir, "c2");
  keygen(e->other_key, e->other_pub, e->dir, "other");
  snprintf(e->clients, sizeof e->clients, "%s/clients.pem", e->dir);
  snprintf(e->log, sizeof e->log, "%s/keepd.log", e->dir);
  write_text(e->clients, e->c1_pub, e->c2_pub);
}

static void env_cleanup(struct env *e) {
  const char *files[] = {e->cluster_key, e->cluster_pub, e->c1_key,    e->c1_pub,  e->c2_key,
                         e->c2_pub,      e->other_key,   e->other_pub, e->clients, e->log};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    unlink(files[i]);
  rmdir(e->dir);
}

// start_tls starts keepd with the cluster key and the clients list, its
// stderr going to the log file, plus `extra` (NULL-ended, may be NULL).
static void start_tls_shards(struct keepd_proc *p, const struct env *e, const char *extra,
                             const char *shards) {
  const char *args[12] = {"--tls-key", e->cluster_key, "--tls-clients",
                          e->clients,  "--shards",     shards};
  int n = 6;
  if (extra != NULL) {
    args[n++] = "--handshake-timeout";
    args[n++] = extra;
  }
  args[n] = NULL;
  int logfd = open(e->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ck_assert_int_ge(logfd, 0);
  int saved = dup(STDERR_FILENO);
  dup2(logfd, STDERR_FILENO); // the child inherits it
  int rc = keepd_start(p, keepd_bin, args);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(logfd);
  ck_assert_int_eq(rc, 0);
}

static void start_tls(struct keepd_proc *p, const struct env *e, const char *extra) {
  start_tls_shards(p, e, extra, "2");
}

// env_start makes the keys of `e` and starts keepd on them over two shards:
// the opening of most tests below.
static void env_start(struct env *e, struct keepd_proc *p, const char *extra) {
  env_init(e);
  start_tls(p, e, extra);
}

// env_stop stops keepd, reads its handshake counters from the log into `out`
// and removes the keys and the log of `e`: the closing of most tests below.
static void env_stop(struct env *e, struct keepd_proc *p, unsigned long long out[6]) {
  ck_assert_int_eq(keepd_stop(p), 0);
  FILE *f = fopen(e->log, "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  bool found = false;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line,
               "keepd: tls: %llu handshakes, %llu refused keys, %llu failed, %llu timed out, "
               "%llu over the limit, %llu cut after revocation",
               &out[0], &out[1], &out[2], &out[3], &out[4], &out[5]) == 6)
      found = true;
  fclose(f);
  ck_assert_msg(found, "no TLS counters in the log");
  env_cleanup(e);
}

static bool log_has(const struct env *e, const char *needle) {
  FILE *f = fopen(e->log, "r");
  if (f == NULL)
    return false;
  char line[512];
  bool found = false;
  while (!found && fgets(line, sizeof line, f) != NULL)
    found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

// wait_log waits up to 5 s for keepd to log `needle`; true if it did.
static bool wait_log(const struct env *e, const char *needle) {
  for (int i = 0; i < 500 && !log_has(e, needle); i++)
    keepd_sleep_ms(10);
  return log_has(e, needle);
}

static int client_new(keep_client **c, const struct keepd_proc *p, const char *key,
                      const char *server_pub) {
  const char *members[] = {p->member};
  keep_tls_settings t = {.key_file = key, .server_key_file = server_pub};
  keep_settings s = {
      .members = members, .num_members = 1, .io_timeout_ms = 3000, .tls = key != NULL ? &t : NULL};
  return keep_client_new(c, &s);
}

// round_trip sets and reads back a key: 0 when the server served it.
static int round_trip(keep_client *c, const char *key) {
  int rc = keep_set(c, key, strlen(key), "v", 1, 0);
  if (rc < 0)
    return rc;
  uint8_t buf[8];
  size_t len;
  rc = keep_get(c, buf, sizeof buf, &len, key, strlen(key));
  if (rc == 0 && (len != 1 || buf[0] != 'v'))
    rc = KEEP_ERR_PROTOCOL;
  return rc;
}

// refused runs a fresh client: true when its connection or its first
// request failed (TLS 1.3 finishes the client's handshake before the server
// has judged the client's certificate, so a refusal may surface only there).
static bool refused(const struct keepd_proc *p, const char *key, const char *server_pub) {
  keep_client *c = NULL;
  int rc = client_new(&c, p, key, server_pub);
  if (rc == 0)
    rc = round_trip(c, "refused?");
  keep_client_free(c);
  return rc < 0;
}

START_TEST(mutual_handshake_succeeds) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  keep_client *c;
  // A client with its own key on the allowed list.
  ck_assert_int_eq(client_new(&c, &p, e.c1_key, e.cluster_pub), 0);
  ck_assert_int_eq(round_trip(c, "k1"), 0);
  ck_assert_int_eq(keep_ping(c), 0);
  keep_client_free(c);
  // A client holding the cluster key itself pins its public half.
  ck_assert_int_eq(client_new(&c, &p, e.cluster_key, NULL), 0);
  ck_assert_int_eq(round_trip(c, "k2"), 0);
  keep_client_free(c);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 2);
  ck_assert_uint_eq(n[1] + n[2] + n[3] + n[4], 0);
}
END_TEST

START_TEST(large_values_and_pipelines_over_tls) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  keep_client *c;
  ck_assert_int_eq(client_new(&c, &p, e.c1_key, e.cluster_pub), 0);
  // A 1 MiB value spans many records each way.
  size_t big = KEEP_MAX_VALUE_LEN;
  uint8_t *v = malloc(big), *back = malloc(big);
  ck_assert_ptr_nonnull(v);
  ck_assert_ptr_nonnull(back);
  for (size_t i = 0; i < big; i++)
    v[i] = (uint8_t)(i * 7 + 3);
  ck_assert_int_eq(keep_set(c, "big", 3, v, big, 0), 0);
  size_t len = 0;
  ck_assert_int_eq(keep_get(c, back, big, &len, "big", 3), 0);
  ck_assert_uint_eq(len, big);
  ck_assert(memcmp(v, back, big) == 0);
  // 2,000 pipelined increments in one batch, spread over both shards.
  keep_batch *b;
  ck_assert_int_eq(keep_batch_new(&b), 0);
  char key[16];
  for (int i = 0; i < 2000; i++) {
    snprintf(key, sizeof key, "n%d", i % 50);
    ck_assert_int_eq(keep_batch_incr(b, key, strlen(key), 1, 0), i); // its index
  }
  ck_assert_int_eq(keep_batch_run(c, b), 0);
  int64_t num;
  ck_assert_int_eq(keep_batch_result(b, 1999, &num, NULL, NULL), 0);
  ck_assert_int_eq(num, 40);
  keep_batch_free(b);
  free(v);
  free(back);
  keep_client_free(c);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 1);
}
END_TEST

START_TEST(wrong_cluster_key_is_refused_by_the_client) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  keep_client *c = NULL;
  // The client pins another key than the one keepd holds: the client sees
  // the mismatch in its own handshake.
  ck_assert_int_eq(client_new(&c, &p, e.c1_key, e.other_pub), KEEP_ERR_TLS);
  ck_assert_ptr_null(c);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 0);
  ck_assert_uint_eq(n[1] + n[2], 1); // the client's alert ends it
}
END_TEST

START_TEST(unknown_client_key_is_refused) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  ck_assert(refused(&p, e.other_key, e.cluster_pub));
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 0);
  ck_assert_uint_ge(n[1], 1);
}
END_TEST

// no_cert_client connects with BoringSSL directly, offering no certificate.
static int no_cert_client(unsigned port) {
  SSL_CTX *ctx = SSL_CTX_new(TLS_method());
  ck_assert_ptr_nonnull(ctx);
  static const uint16_t ed[] = {SSL_SIGN_ED25519};
  ck_assert(SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION));
  ck_assert(SSL_CTX_set_verify_algorithm_prefs(ctx, ed, 1));
  SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
  int fd = keepd_connect_loopback(port);
  ck_assert_int_ge(fd, 0);
  struct timeval tv = {5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  int served = 0;
  // The client side completes; the server's verdict comes with the first read.
  if (SSL_connect(ssl) == 1) {
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_PING, 1);
    uint8_t ping[64], buf[64];
    size_t len;
    ck_assert_int_eq(keep_frame_encode(ping, sizeof ping, &len, &f), 0);
    if (SSL_write(ssl, ping, (int)len) == (int)len && SSL_read(ssl, buf, sizeof buf) > 0)
      served = 1;
  }
  ERR_clear_error();
  SSL_free(ssl);
  close(fd);
  SSL_CTX_free(ctx);
  return served;
}

START_TEST(client_without_certificate_is_refused) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  ck_assert_int_eq(no_cert_client(p.port), 0);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 0);
  ck_assert_uint_eq(n[1], 1);
}
END_TEST

START_TEST(revoked_client_is_refused_after_sighup) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  keep_client *c1, *c2, *held;
  ck_assert_int_eq(client_new(&c1, &p, e.c1_key, e.cluster_pub), 0);
  ck_assert_int_eq(round_trip(c1, "a"), 0);
  ck_assert(!refused(&p, e.c2_key, e.cluster_pub));
  ck_assert_int_eq(client_new(&held, &p, e.c2_key, e.cluster_pub), 0);
  ck_assert_int_eq(round_trip(held, "h"), 0);
  // Revoke c2: the list without it, then SIGHUP. The cluster key stays.
  write_text(e.clients, e.c1_pub, NULL);
  ck_assert_int_eq(kill(p.pid, SIGHUP), 0);
  ck_assert(wait_log(&e, "client keys reloaded"));
  ck_assert(refused(&p, e.c2_key, e.cluster_pub));
  // The connection c2 held is cut too (each shard checks on its next tick).
  keepd_sleep_ms(50);
  ck_assert_int_lt(round_trip(held, "h"), 0);
  keep_client_free(held);
  // c1 keeps its connection and can make new ones.
  ck_assert_int_eq(round_trip(c1, "b"), 0);
  ck_assert_int_eq(client_new(&c2, &p, e.c1_key, e.cluster_pub), 0);
  ck_assert_int_eq(round_trip(c2, "c"), 0);
  keep_client_free(c2);
  keep_client_free(c1);
  // A broken list is refused and the last good one stays.
  write_text(e.clients, e.c1_pub, NULL);
  FILE *f = fopen(e.clients, "a");
  ck_assert_ptr_nonnull(f);
  fputs("-----BEGIN PUBLIC KEY-----\nnot base64!\n-----END PUBLIC KEY-----\n", f);
  fclose(f);
  ck_assert_int_eq(kill(p.pid, SIGHUP), 0);
  ck_assert(wait_log(&e, "the previous client list stays"));
  ck_assert(!refused(&p, e.c1_key, e.cluster_pub));
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[1], 1);
  ck_assert_uint_eq(n[5], 1);
}
END_TEST

// s_client runs `openssl s_client` with `version` and c1's key and
// certificate; its exit status.
static int s_client(const struct env *e, unsigned port, const char *version) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "cd %s && openssl req -new -x509 -key %s -subj /CN=c1 -days 1 -out c1.crt "
           ">/dev/null 2>&1 && timeout 10 openssl s_client -connect 127.0.0.1:%u %s "
           "-cert c1.crt -key %s </dev/null >/dev/null 2>&1; st=$?; rm -f c1.crt; exit $st",
           e->dir, e->c1_key, port, version, e->c1_key);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(tls12_is_refused) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  ck_assert_int_eq(s_client(&e, p.port, "-tls1_3"), 0); // the same client in TLS 1.3
  ck_assert_int_ne(s_client(&e, p.port, "-tls1_2"), 0);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 1);
  ck_assert_uint_eq(n[2], 1);
}
END_TEST

START_TEST(plaintext_client_is_refused) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, NULL);
  keep_client *c = NULL;
  int rc = client_new(&c, &p, NULL, NULL); // plaintext to loopback: allowed client-side
  ck_assert_int_eq(rc, 0);
  ck_assert_int_lt(keep_ping(c), 0);
  keep_client_free(c);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[0], 0);
  ck_assert_uint_eq(n[2], 1);
}
END_TEST

START_TEST(silent_peer_times_out) {
  struct env e;
  struct keepd_proc p;
  env_start(&e, &p, "300");
  int fd = keepd_connect_loopback(p.port);
  ck_assert_int_ge(fd, 0);
  uint64_t t0 = keepd_test_now_ns();
  struct pollfd pf = {.fd = fd, .events = POLLIN};
  ck_assert_int_eq(poll(&pf, 1, 5000), 1);
  char ch;
  ck_assert_int_le(recv(fd, &ch, 1, 0), 0); // closed, sending nothing
  uint64_t waited_ms = (keepd_test_now_ns() - t0) / 1000000u;
  ck_assert_uint_ge(waited_ms, 250);
  ck_assert_uint_le(waited_ms, 3000);
  close(fd);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[3], 1);
}
END_TEST

static long rss_kib(pid_t pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  long kib = -1;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
      break;
  fclose(f);
  return kib;
}

#define STALLED 300

START_TEST(stalled_handshakes_are_bounded) {
  struct env e;
  env_init(&e);
  struct keepd_proc p;
  start_tls_shards(&p, &e, "10000", "1");
  SSL_CTX *ctx = SSL_CTX_new(TLS_method());
  static const uint16_t ed[] = {SSL_SIGN_ED25519};
  ck_assert(SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION));
  ck_assert(SSL_CTX_set_verify_algorithm_prefs(ctx, ed, 1)); // or keepd cannot sign
  static SSL *ssl[STALLED];
  static int fds[STALLED];
  long before = rss_kib(p.pid);
  // Each peer sends its ClientHello and then nothing: the server has
  // answered and holds the handshake's state until the timeout.
  for (int i = 0; i < STALLED; i++) {
    fds[i] = keepd_connect_loopback(p.port);
    ck_assert_int_ge(fds[i], 0);
    // The hello is made into memory and sent by hand, so that nothing ever
    // answers the server's flight.
    ssl[i] = SSL_new(ctx);
    BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl[i], rb, wb);
    SSL_set_connect_state(ssl[i]);
    ck_assert_int_le(SSL_do_handshake(ssl[i]), 0); // wants the server's flight
    const uint8_t *hello;
    size_t hello_len;
    ck_assert(BIO_mem_contents(wb, &hello, &hello_len));
    ck_assert_int_eq(send(fds[i], hello, hello_len, 0), (ssize_t)hello_len);
    int fl = fcntl(fds[i], F_GETFL);
    fcntl(fds[i], F_SETFL, fl | O_NONBLOCK);
  }
  // Wait until the server answered the ones it keeps and closed the rest.
  int closed = 0;
  for (int i = 0; i < STALLED; i++) {
    struct pollfd pf = {.fd = fds[i], .events = POLLIN};
    ck_assert_int_eq(poll(&pf, 1, 5000), 1);
    char b[1];
    if (recv(fds[i], b, 1, MSG_PEEK) <= 0) // EOF, or a reset: the hello went unread
      closed++;
  }
  keepd_sleep_ms(100);
  long grown = rss_kib(p.pid) - before;
  fprintf(stderr,
          "# %d stalled handshakes kept, %d closed at accept: keepd grew by %ld KiB "
          "(%.1f KiB each)\n",
          STALLED - closed, closed, grown, (double)grown / (STALLED - closed));
  ck_assert_int_eq(closed, STALLED - KEEPD_TEST_MAX_HANDSHAKES);
  ck_assert_int_lt(grown, 32 * 1024); // far below: a bound, not a measurement
  for (int i = 0; i < STALLED; i++) {
    SSL_free(ssl[i]);
    close(fds[i]);
  }
  SSL_CTX_free(ctx);
  unsigned long long n[6];
  env_stop(&e, &p, n);
  ck_assert_uint_eq(n[4], STALLED - KEEPD_TEST_MAX_HANDSHAKES);
}
END_TEST

START_TEST(configuration_file) {
  struct env e;
  env_init(&e);
  char conf[128], text[512];
  snprintf(conf, sizeof conf, "%s/keepd.conf", e.dir);
  snprintf(text, sizeof text, "[keepd]\ntls_key = %s\ntls_clients = %s\nshards = 1\n",
           e.cluster_key, e.clients);
  FILE *f = fopen(conf, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  struct keepd_proc p;
  const char *args[] = {"--config", conf, "--tls-key", e.cluster_key, NULL};
  ck_assert_int_eq(keepd_start(&p, keepd_bin, args), 0);
  keep_client *c;
  ck_assert_int_eq(client_new(&c, &p, e.c2_key, e.cluster_pub), 0); // c2 is on the list
  ck_assert_int_eq(round_trip(c, "conf"), 0);
  keep_client_free(c);
  ck_assert(refused(&p, e.other_key, e.cluster_pub));
  ck_assert_int_eq(keepd_stop(&p), 0);
  // plaintext = yes beside a key is refused like the flags.
  f = fopen(conf, "a");
  ck_assert_ptr_nonnull(f);
  fputs("plaintext = yes\n", f);
  fclose(f);
  const char *again[] = {"--config", conf, "--port", "0", NULL};
  ck_assert_int_eq(run_keepd(again, true), 2);
  unlink(conf);
  env_cleanup(&e);
}
END_TEST

START_TEST(startup_refusals) {
  struct env e;
  env_init(&e);
  // Neither a key nor --plaintext.
  const char *none[] = {"--port", "0", NULL};
  ck_assert_int_eq(run_keepd(none, true), 2);
  // --plaintext off loopback.
  const char *wide[] = {"--port", "0", "--plaintext", "--listen", "0.0.0.0", NULL};
  ck_assert_int_eq(run_keepd(wide, true), 2);
  // Both at once is a contradiction, refused rather than guessed.
  const char *both[] = {"--port", "0", "--plaintext", "--tls-key", e.cluster_key, NULL};
  ck_assert_int_eq(run_keepd(both, true), 2);
  // A key file that is not a private key (the public half).
  const char *pubkey[] = {"--port", "0", "--tls-key", e.cluster_pub, NULL};
  ck_assert_int_eq(run_keepd(pubkey, true), 2);
  // keygen never overwrites.
  const char *again[] = {"keygen", e.cluster_key, NULL};
  ck_assert_int_eq(run_keepd(again, true), 1);
  struct stat st;
  ck_assert_int_eq(stat(e.cluster_key, &st), 0);
  ck_assert_uint_eq(st.st_mode & 0777, 0600);
  env_cleanup(&e);
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_keepd_tls PATH-TO-KEEPD\n");
    return 2;
  }
  keepd_bin = argv[1];
  Suite *s = suite_create("keepd-tls");
  TCase *tc = tcase_create("tls");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, mutual_handshake_succeeds);
  tcase_add_test(tc, large_values_and_pipelines_over_tls);
  tcase_add_test(tc, wrong_cluster_key_is_refused_by_the_client);
  tcase_add_test(tc, unknown_client_key_is_refused);
  tcase_add_test(tc, client_without_certificate_is_refused);
  tcase_add_test(tc, revoked_client_is_refused_after_sighup);
  tcase_add_test(tc, tls12_is_refused);
  tcase_add_test(tc, plaintext_client_is_refused);
  tcase_add_test(tc, silent_peer_times_out);
  tcase_add_test(tc, stalled_handshakes_are_bounded);
  tcase_add_test(tc, configuration_file);
  tcase_add_test(tc, startup_refusals);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
