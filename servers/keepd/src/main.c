// main.c: keepd's start-up and shutdown. It reads the configuration file
// (servers/common's reader) and the command line, sizes the shards from the
// CPU budget, opens one SO_REUSEPORT listening socket per shard on the shared
// port before any thread starts (with a filter that keeps each connection on
// the CPU that received it when the shards are pinned), starts the shard
// threads (pinned when the budget is whole CPUs) and then waits for SIGTERM
// or SIGINT, on which it stops the shards, joins them and frees everything.
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keepd_server.h"
#include "srv_config.h"

static void usage(FILE *f) {
  fprintf(f, "usage: keepd [options]\n"
             "       keepd keygen FILE    write a new Ed25519 key to FILE and FILE.pub\n"
             "  --config FILE            configuration file ([keepd] section)\n"
             "  --listen ADDR            listen address (default " KEEPD_DEFAULT_LISTEN ")\n"
             "  --tls-key FILE           the cluster's private key (PEM, from keepd keygen):\n"
             "                           mutual TLS 1.3 for clients and members\n"
             "  --tls-clients FILE       public keys (PEM) of the clients allowed besides\n"
             "                           the cluster key; re-read on SIGHUP\n"
             "  --handshake-timeout MS   close a connection whose TLS handshake takes\n"
             "                           longer (default 2000)\n"
             "  --busy-poll US           after handling events, poll this long without\n"
             "                           sleeping (default 0, at most 1000): less latency\n"
             "                           where waking a thread is dear (VMs), more CPU time\n"
             "  --plaintext              no TLS: only with a loopback listen address\n"
             "  --port N                 port (default 7379; 0 picks a free one)\n"
             "  --port-file FILE         write the port there once listening\n"
             "  --shards N               shard count (default: the CPU budget)\n"
             "  --memory-cap SIZE        memory cap, e.g. 256M (default 256M)\n"
             "  --max-value SIZE         largest value (default and most 1M)\n"
             "  --max-lease MS           longest lock lease (default 60000)\n"
             "  --lock-quarantine MS     refuse new locks this long after start\n"
             "                           (default: the longest lease)\n"
             "  --secret HEX             32 hex digits keying the slot hash\n"
             "  --pin auto|yes|no        pin shards to CPUs (auto: when the cgroup\n"
             "                           holds its CPUs exclusively)\n"
             "  --member ID@HOST:PORT/UDPPORT\n"
             "                           a cluster member (repeat for each; the same\n"
             "                           list, in the same order, on every member)\n"
             "  --self ID                this member's id in the list: it listens on\n"
             "                           the member's host and port\n");
}

// parse_uint reads a plain decimal number: digits only (strtoull alone
// would also take leading blanks and a sign, "-1" as 2^64 - 1).
static int parse_uint(const char *s, uint64_t *out) {
  char *end;
  if (!isdigit((unsigned char)s[0]))
    return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || *end != '\0')
    return -1;
  *out = v;
  return 0;
}

// parse_size reads a byte count: digits, then an optional K, M or G.
static int parse_size(const char *s, uint64_t *out) {
  char *end;
  if (!isdigit((unsigned char)s[0]))
    return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0)
    return -1;
  uint64_t mult = 1;
  switch (*end) {
  case 'k':
  case 'K':
    mult = 1024;
    end++;
    break;
  case 'm':
  case 'M':
    mult = 1024 * 1024;
    end++;
    break;
  case 'g':
  case 'G':
    mult = 1024ull * 1024 * 1024;
    end++;
    break;
  default:
    break;
  }
  if (*end != '\0' || v > UINT64_MAX / mult)
    return -1;
  *out = v * mult;
  return 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// parse_hex_secret reads exactly 2 * KEEP_SECRET_LEN hex digits.
static int parse_hex_secret(const char *s, uint8_t out[KEEP_SECRET_LEN]) {
  if (strlen(s) != 2 * KEEP_SECRET_LEN)
    return -1;
  for (size_t i = 0; i < KEEP_SECRET_LEN; i++) {
    int hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return 0;
}

static int parse_pin(const char *s) {
  if (strcmp(s, "auto") == 0)
    return KEEPD_PIN_AUTO;
  if (strcmp(s, "yes") == 0)
    return KEEPD_PIN_YES;
  if (strcmp(s, "no") == 0)
    return KEEPD_PIN_NO;
  return -1;
}

// Cluster configuration, filled from keepd.members/keepd.self and --member/--self.
static struct keepd_cluster_config cluster_cfg;
static int64_t cluster_self = -1;

static void warn_unused(void *ctx, const char *key, const char *file, unsigned line) {
  (void)ctx;
  fprintf(stderr, "keepd: %s:%u: unknown setting %s ignored\n", file, line, key);
}

// The key file paths from the configuration, freed at exit.
static char *cfg_tls_key, *cfg_tls_clients;

// load_config applies the [keepd] section of `path` to `set`.
static int load_config(const char *path, keepd_settings *set, bool *quarantine_set) {
  srv_config *cfg;
  srv_config_diag diag;
  int rc = srv_config_load(&cfg, path, &diag);
  if (rc < 0) {
    fprintf(stderr, "keepd: %s\n", diag.message);
    return rc;
  }
  const char *listen = NULL, *secret = NULL, *pin = NULL, *members = NULL;
  // TLS: the key files (copied, the configuration is freed below) and an
  // explicit "plaintext = yes" for a loopback-only keepd.
  const char *tls_key = NULL, *tls_clients = NULL, *plain = NULL;
  int64_t port, shards, conns;
  uint64_t cap, maxv, lease, quarantine;
  if ((rc = srv_config_get_string(cfg, "keepd.listen", set->listen, &listen)) < 0 ||
      (rc = srv_config_get_int(cfg, "keepd.port", 0, 65535, set->port, &port, &diag)) < 0 ||
      (rc = srv_config_get_int(cfg, "keepd.shards", 0, KEEPD_MAX_SHARDS, 0, &shards, &diag)) < 0 ||
      (rc = srv_config_get_size(cfg, "keepd.memory_cap", 1024 * 1024, UINT64_MAX / 2,
                                set->memory_cap, &cap, &diag)) < 0 ||
      (rc = srv_config_get_size(cfg, "keepd.max_value", 1, KEEP_MAX_VALUE_HARD, KEEP_MAX_VALUE_HARD,
                                &maxv, &diag)) < 0 ||
      (rc = srv_config_get_duration(cfg, "keepd.max_lease", 1, UINT32_MAX, set->max_lease_ms,
                                    &lease, &diag)) < 0 ||
      (rc = srv_config_get_duration(cfg, "keepd.lock_quarantine", 0, UINT32_MAX, UINT32_MAX,
                                    &quarantine, &diag)) < 0 ||
      (rc = srv_config_get_int(cfg, "keepd.max_connections", 1, 1000000, set->max_connections,
                               &conns, &diag)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.secret", NULL, &secret)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.pin", NULL, &pin)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.members", NULL, &members)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.tls_key", NULL, &tls_key)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.tls_clients", NULL, &tls_clients)) < 0 ||
      (rc = srv_config_get_string(cfg, "keepd.plaintext", NULL, &plain)) < 0 ||
      (rc = srv_config_get_int(cfg, "keepd.self", -1, 65535, -1, &cluster_self, &diag)) < 0) {
    fprintf(stderr, "keepd: %s\n", diag.message);
    srv_config_free(cfg);
    return rc;
  }
  const char *bad = NULL, *why = NULL;
  if (strlen(listen) >= sizeof set->listen)
    bad = "keepd.listen", why = "too long for an address";
  else if (pin != NULL && (set->pin = parse_pin(pin)) < 0)
    bad = "keepd.pin", why = "must be auto, yes or no";
  else if (secret != NULL && parse_hex_secret(secret, set->secret) < 0)
    bad = "keepd.secret", why = "must be 32 hex digits";
  else if (members != NULL && keepd_members_parse(&cluster_cfg, members) < 0)
    bad = "keepd.members", why = "must list ID@HOST:PORT/UDPPORT entries";
  else if (plain != NULL && strcmp(plain, "yes") != 0 && strcmp(plain, "no") != 0)
    bad = "keepd.plaintext", why = "must be yes or no";
  if (bad != NULL) {
    rc = srv_config_reject(cfg, bad, &diag, why);
    fprintf(stderr, "keepd: %s\n", diag.message);
    srv_config_free(cfg);
    return rc;
  }
  if (listen != set->listen) // the default is the buffer itself
    snprintf(set->listen, sizeof set->listen, "%s", listen);
  set->port = (uint16_t)port;
  set->shards = (unsigned)shards;
  set->memory_cap = cap;
  set->max_value = maxv;
  set->max_lease_ms = lease;
  set->max_connections = (unsigned)conns;
  if (quarantine != UINT32_MAX) {
    set->lock_quarantine_ms = quarantine;
    *quarantine_set = true;
  }
  if (tls_key != NULL)
    set->tls_key_file = cfg_tls_key = strdup(tls_key);
  if (tls_clients != NULL)
    set->tls_clients_file = cfg_tls_clients = strdup(tls_clients);
  if (plain != NULL)
    set->plaintext = strcmp(plain, "yes") == 0;
  srv_config_unused(cfg, warn_unused, NULL);
  srv_config_free(cfg);
  return 0;
}

// write_port_file writes the bound port to `path` through "<path>.tmp" and a
// rename, so that a script polling for the file never reads half of it.
// Returns 0 or -errno; a failed write leaves no temporary file.
static int write_port_file(const char *path, uint16_t port) {
  char tmp[4096];
  if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
    return -ENAMETOOLONG;
  FILE *f = fopen(tmp, "w");
  if (f == NULL)
    return -errno;
  errno = 0;
  bool ok = fprintf(f, "%u\n", port) > 0;
  int e = errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    e = errno;
  }
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok) {
    unlink(tmp);
    return -(e != 0 ? e : EIO);
  }
  return 0;
}

// open_listener opens one listening socket of the shared port. With `probe`
// it only checks that the port is free: a socket without SO_REUSEPORT cannot
// bind where another keepd of the same user already listens, where the real
// ones would silently share its connections.
static int open_listener(const keepd_settings *set, uint16_t port, bool probe, uint16_t *bound) {
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  socklen_t len;
  int family;
  struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
  if (inet_pton(AF_INET, set->listen, &v4->sin_addr) == 1) {
    family = v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, set->listen, &v6->sin6_addr) == 1) {
    family = v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof *v6;
  } else {
    return -EINVAL;
  }
  int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  int one = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      (!probe && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) ||
      bind(fd, (struct sockaddr *)&ss, len) < 0 || (!probe && listen(fd, 1024) < 0)) {
    int e = -errno;
    close(fd);
    return e;
  }
  len = sizeof ss;
  if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
    int e = -errno;
    close(fd);
    return e;
  }
  *bound = ntohs(family == AF_INET ? v4->sin_port : v6->sin6_port);
  return fd;
}

// steer_to_receiving_cpu attaches to the reuseport group of the listeners a
// classic BPF program that picks, for a new connection, the listener of the
// shard pinned to the CPU that is processing its SYN: the CPU the NIC queue
// (or, on loopback, the connecting thread) delivered it to, so the
// connection's packets and its shard share one CPU's caches. A SYN that
// arrives on a CPU without a shard gets an index past the group's end, and
// the kernel then falls back to its hash. Listeners join the group in shard
// order (each is bound and listening before the next is opened), so group
// index i is shard i. Returns 0 or -errno.
static int steer_to_receiving_cpu(int lfd, const int *cpu_of_shard, unsigned shards) {
  struct sock_filter code[2 + 2 * KEEPD_MAX_SHARDS];
  unsigned n = 0;
  code[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_CPU);
  for (unsigned i = 0; i < shards; i++) {
    code[n++] =
        (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)cpu_of_shard[i], 0, 1);
    code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, i);
  }
  code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffffu);
  struct sock_fprog prog = {.len = (unsigned short)n, .filter = code};
  if (setsockopt(lfd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof prog) < 0)
    return -errno;
  return 0;
}

static bool is_loopback(const char *addr) {
  struct in_addr a4;
  struct in6_addr a6;
  if (inet_pton(AF_INET, addr, &a4) == 1)
    return (ntohl(a4.s_addr) >> 24) == 127;
  return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int keepd_server_run(const keepd_settings *set) {
  keepd_cpu_budget budget;
  keepd_cpu_budget_read(&budget);
  static struct keepd_server srv;
  memset(&srv, 0, sizeof srv);
  srv.set = *set;
  srv.num_shards = set->shards ? set->shards : budget.budget;
  if (srv.num_shards == 0 || srv.num_shards > KEEPD_MAX_SHARDS)
    srv.num_shards = 1;
  bool pin = set->pin != KEEPD_PIN_NO && srv.num_shards <= budget.cpus &&
             (set->pin == KEEPD_PIN_YES || budget.exclusive);
  srv.shards = calloc(srv.num_shards, sizeof *srv.shards);
  srv.rings = calloc((size_t)srv.num_shards * srv.num_shards, sizeof *srv.rings);
  if (srv.shards == NULL || srv.rings == NULL) {
    fprintf(stderr, "keepd: out of memory\n");
    return 1;
  }
  srv.quarantine_until_ns = keepd_now_ns() + set->lock_quarantine_ms * 1000000u;
  if (set->cluster != NULL) {
    // Each slot gets its own quarantine when this member starts serving it.
    srv.quarantine_until_ns = 0;
    int e = keepd_cluster_new(&srv.cl, set->cluster, set->secret, set->lock_quarantine_ms,
                              srv.num_shards);
    if (e < 0) {
      const struct keepd_member *m = &set->cluster->members[set->cluster->self];
      fprintf(stderr, "keepd: cluster: cannot use udp %s:%u: %s\n", m->host, m->udp_port,
              strerror(-e));
      free(srv.shards);
      free(srv.rings);
      return 1;
    }
  }

  // Listeners first: the shared port is known (and bound) before any
  // thread runs, so a client can connect as soon as the port file exists.
  uint16_t port = set->port;
  int rc = 0;
  unsigned started = 0;
  if (port != 0) {
    uint16_t unused;
    int probe = open_listener(set, port, true, &unused);
    if (probe < 0) {
      fprintf(stderr, "keepd: cannot listen on %s:%u: %s\n", set->listen, port, strerror(-probe));
      rc = 1;
      srv.num_shards = 0;
    } else {
      close(probe);
    }
  }
  for (unsigned i = 0; i < srv.num_shards; i++) {
    uint16_t bound = port;
    int lfd = open_listener(set, port, false, &bound);
    if (lfd < 0) {
      fprintf(stderr, "keepd: cannot listen on %s:%u: %s\n", set->listen, port, strerror(-lfd));
      rc = 1;
      break;
    }
    port = bound;
    int e = keepd_shard_init(&srv.shards[i], &srv, i, lfd);
    started = i + 1;
    if (e < 0) {
      fprintf(stderr, "keepd: shard %u: %s\n", i, strerror(-e));
      rc = 1;
      break;
    }
  }
  // Steering by CPU needs a shard that stays on each CPU; unpinned shards
  // move, so their connections are spread by the kernel's hash instead.
  const char *spread = "connections spread by the kernel's SO_REUSEPORT hash";
  if (rc == 0 && pin && srv.num_shards > 1) {
    int e = steer_to_receiving_cpu(srv.shards[0].lfd, budget.cpu_list, srv.num_shards);
    if (e == 0)
      spread = "connections kept on the shard of the CPU that received them "
               "(SO_ATTACH_REUSEPORT_CBPF)";
    else
      fprintf(stderr, "keepd: cannot steer connections by CPU (%s); hashing instead\n",
              strerror(-e));
  }
  snprintf(srv.member, sizeof srv.member, strchr(set->listen, ':') ? "[%s]:%u" : "%s:%u",
           set->listen, port);

  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);

  unsigned running = 0;
  if (rc == 0 && srv.cl != NULL && keepd_cluster_start(srv.cl) < 0) {
    fprintf(stderr, "keepd: cannot start the cluster thread\n");
    rc = 1;
  }
  for (unsigned i = 0; rc == 0 && i < srv.num_shards; i++) {
    if (keepd_shard_start(&srv.shards[i]) < 0) {
      fprintf(stderr, "keepd: cannot start shard %u\n", i);
      rc = 1;
      break;
    }
    running++;
    if (pin) {
      cpu_set_t cs;
      CPU_ZERO(&cs);
      CPU_SET(budget.cpu_list[i], &cs);
      pthread_setaffinity_np(srv.shards[i].thread, sizeof cs, &cs);
    }
  }
  if (rc == 0) {
    fprintf(stderr,
            "keepd: listening on %s with %u shard%s (budget %u from %s: %u cpus, quota %u, %s), "
            "%s; %s; memory cap %llu bytes%s; "
            "lock quarantine %llu ms\n",
            srv.member, srv.num_shards, srv.num_shards == 1 ? "" : "s", budget.budget,
            budget.source, budget.cpus, budget.quota_cpus,
            budget.exclusive ? "exclusive" : "shared", pin ? "pinned" : "not pinned", spread,
            (unsigned long long)set->memory_cap,
            srv.shards[0].store.huge_pages ? " (huge pages)" : "",
            (unsigned long long)set->lock_quarantine_ms);
    int e;
    if (set->port_file != NULL && (e = write_port_file(set->port_file, port)) < 0) {
      fprintf(stderr, "keepd: cannot write %s: %s\n", set->port_file, strerror(-e));
      rc = 1;
    }
  }
  if (rc == 0) {
    int sig;
    while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP) {
      // SIGHUP re-reads the allowed client keys: how a client is revoked.
      char err[512];
      if (keepd_tls_reload(err, sizeof err) < 0)
        fprintf(stderr, "keepd: SIGHUP: %s; the previous client list stays\n", err);
      else
        fprintf(stderr, "keepd: SIGHUP: client keys reloaded\n");
    }
    fprintf(stderr, "keepd: signal %d, shutting down\n", sig);
    if (srv.cl != NULL) {
      // A clean leave: stop serving, and keep heartbeating with the leaving
      // flag long enough for the peers to take the slots over at once
      // instead of after the dead timeout.
      keepd_cluster_leave(srv.cl);
      struct timespec ts = {0, 6 * (long)KEEPD_HB_INTERVAL_MS * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  atomic_store_explicit(&srv.stop, true, memory_order_release);
  for (unsigned i = 0; i < running; i++) {
    uint64_t one = 1;
    if (write(srv.shards[i].efd, &one, sizeof one) < 0) {
      // Its 10 ms tick notices the stop flag anyway.
    }
  }
  for (unsigned i = 0; i < running; i++)
    pthread_join(srv.shards[i].thread, NULL);
  for (unsigned i = 0; i < started; i++)
    keepd_shard_drain_rings_at_exit(&srv.shards[i]);
  keepd_cluster_free(srv.cl);
  for (unsigned i = 0; i < started; i++)
    keepd_shard_cleanup(&srv.shards[i]);
  free(srv.shards);
  free(srv.rings);
  return rc;
}

int main(int argc, char **argv) {
  keepd_settings set;
  memset(&set, 0, sizeof set);
  snprintf(set.listen, sizeof set.listen, "%s", KEEPD_DEFAULT_LISTEN);
  set.port = KEEPD_DEFAULT_PORT;
  set.memory_cap = KEEPD_DEFAULT_MEMORY_CAP;
  set.max_lease_ms = KEEPD_DEFAULT_MAX_LEASE_MS;
  set.max_connections = KEEPD_DEFAULT_MAX_CONNECTIONS;
  bool quarantine_set = false;
  if (argc >= 2 && strcmp(argv[1], "keygen") == 0) {
    if (argc != 3) {
      fprintf(stderr, "keepd: keygen takes one FILE (it writes FILE and FILE.pub)\n");
      usage(stderr);
      return 2;
    }
    int e = keepd_tls_keygen(argv[2]);
    if (e < 0)
      fprintf(stderr, "keepd: keygen %s: %s\n", argv[2], keep_strerror(e));
    return e < 0 ? 1 : 0;
  }

  enum {
    O_CONFIG = 256,
    O_LISTEN,
    O_PORT,
    O_PORT_FILE,
    O_SHARDS,
    O_CAP,
    O_MAXV,
    O_LEASE,
    O_QUAR,
    O_SECRET,
    O_PIN,
    O_MEMBER,
    O_SELF,
    O_TLS_KEY,
    O_TLS_CLIENTS,
    O_HANDSHAKE,
    O_BUSY_POLL,
    O_PLAINTEXT,
    O_HELP
  };
  static const struct option opts[] = {
      {"config", required_argument, NULL, O_CONFIG},
      {"listen", required_argument, NULL, O_LISTEN},
      {"port", required_argument, NULL, O_PORT},
      {"port-file", required_argument, NULL, O_PORT_FILE},
      {"shards", required_argument, NULL, O_SHARDS},
      {"memory-cap", required_argument, NULL, O_CAP},
      {"max-value", required_argument, NULL, O_MAXV},
      {"max-lease", required_argument, NULL, O_LEASE},
      {"lock-quarantine", required_argument, NULL, O_QUAR},
      {"secret", required_argument, NULL, O_SECRET},
      {"pin", required_argument, NULL, O_PIN},
      {"member", required_argument, NULL, O_MEMBER},
      {"self", required_argument, NULL, O_SELF},
      {"tls-key", required_argument, NULL, O_TLS_KEY},
      {"tls-clients", required_argument, NULL, O_TLS_CLIENTS},
      {"handshake-timeout", required_argument, NULL, O_HANDSHAKE},
      {"busy-poll", required_argument, NULL, O_BUSY_POLL},
      {"plaintext", no_argument, NULL, O_PLAINTEXT},
      {"help", no_argument, NULL, O_HELP},
      {NULL, 0, NULL, 0},
  };
  // The configuration file first, so that flags override it: a first pass
  // of getopt takes --config in every form it accepts (--config FILE,
  // --config=FILE, an abbreviation), quiet about the rest, which the second
  // pass judges.
  int o;
  opterr = 0;
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1)
    if (o == O_CONFIG && load_config(optarg, &set, &quarantine_set) < 0)
      return 1;
  opterr = 1;
  optind = 0;     // glibc: start again from the first argument
  uint64_t v = 0; // each parse_* writes it only on success
  while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
    bool ok = true;
    switch (o) {
    case O_CONFIG:
      break;
    case O_LISTEN:
      ok = strlen(optarg) < sizeof set.listen;
      snprintf(set.listen, sizeof set.listen, "%s", optarg);
      break;
    case O_PORT:
      ok = parse_uint(optarg, &v) == 0 && v <= 65535;
      set.port = (uint16_t)v;
      break;
    case O_PORT_FILE:
      set.port_file = optarg;
      break;
    case O_SHARDS:
      ok = parse_uint(optarg, &v) == 0 && v >= 1 && v <= KEEPD_MAX_SHARDS;
      set.shards = (unsigned)v;
      break;
    case O_CAP:
      ok = parse_size(optarg, &v) == 0 && v >= 64 * 1024 && v <= UINT64_MAX / 2;
      set.memory_cap = v;
      break;
    case O_MAXV:
      ok = parse_size(optarg, &v) == 0 && v >= 1 && v <= KEEP_MAX_VALUE_HARD;
      set.max_value = v;
      break;
    case O_LEASE:
      ok = parse_uint(optarg, &v) == 0 && v >= 1 && v <= UINT32_MAX;
      set.max_lease_ms = v;
      break;
    case O_QUAR:
      ok = parse_uint(optarg, &v) == 0 && v <= UINT32_MAX;
      set.lock_quarantine_ms = v;
      quarantine_set = true;
      break;
    case O_SECRET:
      ok = parse_hex_secret(optarg, set.secret) == 0;
      break;
    case O_PIN:
      set.pin = parse_pin(optarg);
      ok = set.pin >= 0;
      break;
    case O_MEMBER:
      ok = keepd_members_parse(&cluster_cfg, optarg) == 0;
      break;
    case O_SELF:
      ok = parse_uint(optarg, &v) == 0 && v <= 65535;
      cluster_self = (int64_t)v;
      break;
    case O_TLS_KEY:
      set.tls_key_file = optarg;
      break;
    case O_TLS_CLIENTS:
      set.tls_clients_file = optarg;
      break;
    case O_HANDSHAKE:
      ok = parse_uint(optarg, &v) == 0 && v >= 1 && v <= 600000;
      set.handshake_timeout_ms = (uint32_t)v;
      break;
    case O_BUSY_POLL:
      ok = parse_uint(optarg, &v) == 0 && v <= 1000;
      set.busy_poll_us = (uint32_t)v;
      break;
    case O_PLAINTEXT:
      set.plaintext = true;
      break;
    case O_HELP:
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
    if (!ok) {
      fprintf(stderr, "keepd: bad value for --%s: %s\n", opts[o - O_CONFIG].name, optarg);
      return 2;
    }
  }
  if (optind != argc) {
    fprintf(stderr, "keepd: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }
  if (cluster_cfg.num_members > 0 || cluster_self >= 0) {
    cluster_cfg.self = -1;
    for (unsigned i = 0; i < cluster_cfg.num_members; i++)
      if (cluster_cfg.members[i].id == cluster_self)
        cluster_cfg.self = (int)i;
    if (cluster_cfg.self < 0) {
      fprintf(stderr, "keepd: --self must name one of the --member ids\n");
      return 2;
    }
    const struct keepd_member *me = &cluster_cfg.members[cluster_cfg.self];
    snprintf(set.listen, sizeof set.listen, "%s", me->host);
    set.port = me->port;
    set.cluster = &cluster_cfg;
  }
  // In a cluster a slot can change owner: besides the longest lease, the
  // old owner may still grant for up to the quorum window after the new one
  // took over (docs/keep-guarantees.md).
  if (!quarantine_set)
    set.lock_quarantine_ms =
        set.max_lease_ms +
        (set.cluster != NULL ? KEEPD_QUORUM_WINDOW_MS + KEEPD_QUARANTINE_MARGIN_MS : 0);
  // Plaintext only where nobody else can listen in, and only when asked for.
  if (set.plaintext && set.tls_key_file != NULL) {
    fprintf(stderr, "keepd: --plaintext and --tls-key exclude each other\n");
    return 2;
  }
  if (set.plaintext && !is_loopback(set.listen)) {
    fprintf(stderr,
            "keepd: %s is not a loopback address: --plaintext is only allowed on "
            "loopback\n",
            set.listen);
    return 2;
  }
  if (!set.plaintext) {
    char err[512];
    if (set.tls_key_file == NULL) {
      fprintf(stderr, "keepd: TLS needs the cluster key: --tls-key FILE (make one with "
                      "`keepd keygen FILE`), or --plaintext on loopback\n");
      return 2;
    }
    if (keepd_tls_init(set.tls_key_file, set.tls_clients_file, set.handshake_timeout_ms, err,
                       sizeof err) < 0) {
      fprintf(stderr, "keepd: %s\n", err);
      keepd_tls_free();
      return 2;
    }
  }
  int run = keepd_server_run(&set);
  if (keepd_tls_enabled())
    fprintf(stderr,
            "keepd: tls: %llu handshakes, %llu refused keys, %llu failed, %llu timed out, "
            "%llu over the limit, %llu cut after revocation\n",
            (unsigned long long)atomic_load(&keepd_tls_stats.ok),
            (unsigned long long)atomic_load(&keepd_tls_stats.refused),
            (unsigned long long)atomic_load(&keepd_tls_stats.failed),
            (unsigned long long)atomic_load(&keepd_tls_stats.timed_out),
            (unsigned long long)atomic_load(&keepd_tls_stats.over_limit),
            (unsigned long long)atomic_load(&keepd_tls_stats.revoked));
  keepd_tls_free();
  free(cfg_tls_key);
  free(cfg_tls_clients);
  return run == 0 ? 0 : 1;
}
