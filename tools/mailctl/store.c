// store.c: "mailctl store", the administrator's commands over a libmailstore
// store: create one, add accounts, import a Maildir or an mbox through the
// batch delivery API (with a progress bar on a terminal), print statistics,
// run the full consistency check, drop released blobs, train a zstd
// dictionary on the stored mail (and recompress with it), and export a
// mailbox or a whole account to Maildir, keywords included.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "corvid_parse.h"
#include "mailctl.h"
#include "mailstore.h"
#include "mbox.h"

// IMPORT_BATCH_ITEMS and IMPORT_BATCH_BYTES bound one ms_messages_deliver
// call of an import: one durable commit per batch.
#define IMPORT_BATCH_ITEMS 512
#define IMPORT_BATCH_BYTES (32u << 20)

static void store_usage(FILE *f) {
  fprintf(f,
          "usage: mailctl store COMMAND PATH [ARGS]\n"
          "commands:\n"
          "  create PATH                        create an empty store in directory PATH\n"
          "  add-account PATH NAME [--quota-bytes N] [--quota-messages N]\n"
          "  import PATH ACCOUNT MAILBOX (--maildir DIR | --mbox FILE) [--no-transform]\n"
          "                                     add the messages (mailbox created if needed)\n"
          "  import PATH ACCOUNT --maildir DIR  add a Maildir++ tree (INBOX, .a.b as a/b)\n"
          "  export PATH ACCOUNT [MAILBOX] --maildir DIR\n"
          "                                     write the mailbox's messages as a Maildir,\n"
          "                                     or without MAILBOX every mailbox as Maildir++\n"
          "                                     (flags and keywords: dovecot-keywords)\n"
          "  stats PATH                         accounts, mailboxes, messages, bytes\n"
          "  verify PATH                        full consistency check (exit 1 on damage)\n"
          "  collect PATH                       drop the blobs that expunges released\n"
          "  train PATH [--samples N] [--recompress] [--no-transform]\n"
          "                                     train a zstd dictionary on the stored mail;\n"
          "                                     with --recompress, re-encode every blob with it\n"
          "  recompress PATH [--no-transform]   re-encode blobs with the newest dictionary\n"
          "  (--no-transform: keep Base64 bodies as they are instead of storing them decoded)\n"
          "  summarize PATH                     store the summaries older messages lack\n"
          "Exit status: 0 done, 1 failed (with a message), 2 usage error.\n");
}

static int fail(const char *what, const char *path, int rc) {
  fprintf(stderr, "mailctl store: %s %s: %s\n", what, path, ms_strerror(rc));
  return 1;
}

// take_no_transform removes "--no-transform" from argv[1..*argc) and fills
// *set for it: ms_settings.no_transform is 1 if it was there, else 0.
static void take_no_transform(int *argc, char **argv, struct ms_settings *set) {
  memset(set, 0, sizeof *set);
  for (int i = 1; i < *argc; i++) {
    if (strcmp(argv[i], "--no-transform") == 0) {
      memmove(argv + i, argv + i + 1, (size_t)(*argc - i - 1) * sizeof *argv);
      (*argc)--;
      set->no_transform = 1;
      return;
    }
  }
}

// open_existing opens the store at path, refusing to create one there (a
// typo must not turn verify or import into "create").
static int open_existing(const char *path, ms_store **st, const struct ms_settings *set) {
  char p[4096];
  snprintf(p, sizeof p, "%s/data.mdb", path);
  struct stat sb;
  if (stat(p, &sb) != 0) {
    fprintf(stderr, "mailctl store: %s: no store there (%s)\n", path, strerror(errno));
    return 1;
  }
  // LMDB would make an empty file (a truncated copy, say) a new store.
  if (S_ISREG(sb.st_mode) && sb.st_size == 0) {
    fprintf(stderr, "mailctl store: %s: no store there (data.mdb is empty)\n", path);
    return 1;
  }
  int rc = ms_store_open(st, path, set);
  if (rc < 0)
    return fail("cannot open", path, rc);
  return 0;
}

static int cmd_create(int argc, char **argv) {
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  const char *path = argv[0];
  if (mkdir(path, 0700) != 0 && errno != EEXIST) {
    fprintf(stderr, "mailctl store: cannot create %s: %s\n", path, strerror(errno));
    return 1;
  }
  char p[4096];
  snprintf(p, sizeof p, "%s/data.mdb", path);
  if (access(p, F_OK) == 0) {
    fprintf(stderr, "mailctl store: %s already holds a store\n", path);
    return 1;
  }
  ms_store *st;
  int rc = ms_store_open(&st, path, NULL);
  if (rc < 0)
    return fail("cannot create", path, rc);
  ms_store_close(st);
  printf("created store %s\n", path);
  return 0;
}

static int cmd_add_account(int argc, char **argv) {
  if (argc < 2) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  uint64_t qb = 0, qm = 0;
  for (int i = 2; i < argc; i += 2) {
    uint64_t *dst = strcmp(argv[i], "--quota-bytes") == 0      ? &qb
                    : strcmp(argv[i], "--quota-messages") == 0 ? &qm
                                                               : NULL;
    if (!dst || i + 1 >= argc || corvid_parse_u64(argv[i + 1], 0, UINT64_MAX, dst) < 0) {
      store_usage(stderr);
      return MAILCTL_USAGE;
    }
  }
  if (argv[1][0] == '\0') {
    fprintf(stderr, "mailctl store: add-account: the account name is empty\n");
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  uint32_t id;
  int rc = ms_account_create(st, &id, argv[1], strlen(argv[1]), qb, qm);
  ms_store_close(st);
  if (rc < 0)
    return fail("cannot add account", argv[1], rc);
  printf("account %s: id %" PRIu32 "\n", argv[1], id);
  return 0;
}

// ---- import ----

struct importer {
  ms_store *st;
  uint32_t acct, box;
  struct ms_delivery items[IMPORT_BATCH_ITEMS];
  uint8_t *bufs[IMPORT_BATCH_ITEMS];
  char *names[IMPORT_BATCH_ITEMS];
  uint32_t kw[IMPORT_BATCH_ITEMS]; // Maildir keyword letters (bit 0: a)
  char kwname[26][256];            // the Maildir's dovecot-keywords
  size_t kwlen[26];
  uint64_t kw_failed;
  size_t n, bytes;
  uint64_t done, stored, failed, total, done_bytes;
  uint64_t total_bytes, scan_pos; // an mbox: its size, and how far it has been read
  int tty;
  uint64_t last_draw_ns;
};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// progress draws the bar on standard error when it is a terminal, at most
// ten times a second, and always at the end.
static void progress(struct importer *im, int final) {
  if (!im->tty)
    return;
  uint64_t t = now_ns();
  if (!final && t - im->last_draw_ns < 100000000u)
    return;
  im->last_draw_ns = t;
  double frac = im->total         ? (double)im->done / (double)im->total
                : im->total_bytes ? (double)im->scan_pos / (double)im->total_bytes
                                  : 1.0;
  if (frac > 1)
    frac = 1;
  char bar[41];
  int fill = (int)(frac * 40);
  for (int i = 0; i < 40; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[40] = 0;
  fprintf(stderr, "\rimport [%s] %3d%%  %" PRIu64 " messages  %.1f MiB", bar, (int)(frac * 100),
          im->done, (double)im->done_bytes / (1024.0 * 1024.0));
  if (final)
    fputc('\n', stderr);
  fflush(stderr);
}

static int flush(struct importer *im) {
  if (im->n == 0)
    return 0;
  int rc = ms_messages_deliver(im->st, im->items, im->n);
  if (rc < 0) {
    fprintf(stderr, "\nmailctl store: import: %s\n", ms_strerror(rc));
    return -1;
  }
  for (size_t i = 0; i < im->n; i++) {
    if (im->items[i].status == 0) {
      im->stored++;
    } else {
      im->failed++;
      fprintf(stderr, "%smailctl store: import: %s: %s\n", im->tty ? "\n" : "", im->names[i],
              ms_strerror(im->items[i].status));
    }
    im->done++;
    im->done_bytes += im->items[i].len;
    free(im->bufs[i]);
    free(im->names[i]);
  }
  // Keywords go on in a transaction per letter after the delivery (the
  // delivery API takes none); at most 26 per batch.
  for (int l = 0; l < 26; l++) {
    uint32_t uids[IMPORT_BATCH_ITEMS];
    size_t nu = 0;
    for (size_t i = 0; i < im->n; i++)
      if (im->items[i].status == 0 && (im->kw[i] >> l & 1))
        uids[nu++] = im->items[i].uid;
    if (nu == 0)
      continue;
    if (im->kwlen[l] == 0) {
      fprintf(stderr,
              "%smailctl store: import: keyword letter %c is not in dovecot-keywords: "
              "%zu messages stored without it\n",
              im->tty ? "\n" : "", 'a' + l, nu);
      im->kw_failed += nu;
      continue;
    }
    const char *nm = im->kwname[l];
    int r = ms_keywords_store(im->st, im->acct, im->box, uids, nu, MS_KEYWORDS_ADD, &nm,
                              &im->kwlen[l], 1);
    if (r < 0) {
      fprintf(stderr, "%smailctl store: import: keyword %s: %s\n", im->tty ? "\n" : "", nm,
              ms_strerror(r));
      im->kw_failed += nu;
    }
  }
  im->n = 0;
  im->bytes = 0;
  progress(im, 0);
  return 0;
}

// add queues one message; it takes ownership of data and name.
static int add(struct importer *im, uint8_t *data, size_t len, uint32_t flags, uint32_t kw,
               int64_t date, char *name) {
  im->items[im->n] = (struct ms_delivery){.account = im->acct,
                                          .mailbox = im->box,
                                          .flags = flags,
                                          .internal_date = date,
                                          .data = data,
                                          .len = len};
  im->bufs[im->n] = data;
  im->names[im->n] = name;
  im->kw[im->n] = kw;
  im->n++;
  im->bytes += len;
  if (im->n == IMPORT_BATCH_ITEMS || im->bytes >= IMPORT_BATCH_BYTES)
    return flush(im);
  return 0;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

// maildir_flags reads the flags of a Maildir file name's ":2," part.
static uint32_t maildir_flags(const char *name) {
  const char *info = strstr(name, ":2,");
  uint32_t f = 0;
  if (!info)
    return 0;
  for (const char *p = info + 3; *p; p++) {
    switch (*p) {
    case 'S':
      f |= MS_FLAG_SEEN;
      break;
    case 'R':
      f |= MS_FLAG_ANSWERED;
      break;
    case 'F':
      f |= MS_FLAG_FLAGGED;
      break;
    case 'T':
      f |= MS_FLAG_DELETED;
      break;
    case 'D':
      f |= MS_FLAG_DRAFT;
      break;
    default:
      break;
    }
  }
  return f;
}

// maildir_keywords reads the keyword letters (a..z) of a Maildir file
// name's ":2," part as bits.
static uint32_t maildir_keywords(const char *name) {
  const char *info = strstr(name, ":2,");
  uint32_t kw = 0;
  for (const char *p = info ? info + 3 : ""; *p; p++)
    if (*p >= 'a' && *p <= 'z')
      kw |= 1u << (*p - 'a');
  return kw;
}

// read_keywords loads dir/dovecot-keywords ("N name" lines, N the letter's
// index); a missing file means no keywords, a bad line is reported and
// its letter left undefined (messages with it count as failed keywords).
static void read_keywords(struct importer *im, const char *dir) {
  memset(im->kwlen, 0, sizeof im->kwlen);
  char p[4096], line[512];
  snprintf(p, sizeof p, "%s/dovecot-keywords", dir);
  FILE *f = fopen(p, "r");
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    size_t l = strcspn(line, "\r\n");
    line[l] = 0;
    char *end;
    long idx = strtol(line, &end, 10);
    const char *nm = *end == ' ' ? end + 1 : NULL;
    if (!nm || end == line || idx < 0 || idx >= 26 || ms_keyword_check(nm, strlen(nm), NULL) < 0 ||
        nm[0] == '\\') {
      fprintf(stderr, "mailctl store: import: %s: ignoring line \"%s\"\n", p, line);
      continue;
    }
    im->kwlen[idx] = strlen(nm);
    memcpy(im->kwname[idx], nm, im->kwlen[idx] + 1);
  }
  fclose(f);
}

// read_file reads the regular file at `path` whole. Returns 0 or -errno:
// -EISDIR for a directory, -EINVAL for anything else that is no regular
// file (a FIFO would block, a device has no size), the read's own error,
// or -EIO for a file that shrank while it was read.
static int read_file(const char *path, uint8_t **out, size_t *out_len, struct stat *st) {
  int fd = open(path, O_RDONLY | O_NONBLOCK);
  if (fd < 0)
    return -errno;
  int e = 0;
  if (fstat(fd, st) != 0)
    e = errno;
  else if (!S_ISREG(st->st_mode))
    e = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
  if (e != 0) {
    close(fd);
    return -e;
  }
  size_t len = (size_t)st->st_size;
  uint8_t *buf = malloc(len ? len : 1);
  size_t got = 0;
  e = EIO;
  while (buf && got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      e = r < 0 ? errno : EIO;
      break;
    }
    got += (size_t)r;
  }
  close(fd);
  if (!buf)
    return -ENOMEM;
  if (got != len) {
    free(buf);
    return -e;
  }
  *out = buf;
  *out_len = len;
  return 0;
}

// A source is what one mailbox is imported from, opened before that
// mailbox is found or made, so that a source that cannot be read leaves the
// store as it was: a Maildir's file names, or an mbox mapped whole.
struct source {
  const char *path;
  int is_mbox;
  char **names; // a Maildir's cur/ and new/ files, sorted
  size_t n;
  const uint8_t *map; // an mbox
  size_t size;
};

static void source_close(struct source *src) {
  for (size_t i = 0; i < src->n; i++)
    free(src->names[i]);
  free(src->names);
  if (src->size)
    munmap((void *)src->map, src->size);
  memset(src, 0, sizeof *src);
}

// maildir_open lists the files of the Maildir `dir`; it prints why not.
static int maildir_open(struct source *src, const char *dir) {
  size_t cap = 0;
  const char *subs[] = {"cur", "new"};
  for (int s = 0; s < 2; s++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, subs[s]);
    DIR *d = opendir(p);
    if (!d) {
      fprintf(stderr, "mailctl store: import: %s: %s\n", p, strerror(errno));
      return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.')
        continue;
      if (src->n == cap) {
        cap = cap ? cap * 2 : 1024;
        char **nn = realloc(src->names, cap * sizeof *nn);
        if (!nn) {
          closedir(d);
          return -1;
        }
        src->names = nn;
      }
      size_t l = strlen(p) + strlen(e->d_name) + 2;
      char *name = malloc(l);
      if (!name) {
        closedir(d);
        return -1;
      }
      snprintf(name, l, "%s/%s", p, e->d_name);
      src->names[src->n++] = name;
    }
    closedir(d);
  }
  // Maildir names start with the delivery time: sorted, they import in
  // about the order the mail arrived, and reproducibly.
  if (src->n > 1) // an empty Maildir has no array: qsort wants one
    qsort(src->names, src->n, sizeof *src->names, name_cmp);
  return 0;
}

// mbox_open maps the mbox `file` and checks that it starts with a From_
// line (or is empty); it prints why not.
static int mbox_open(struct source *src, const char *file) {
  int fd = open(file, O_RDONLY);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0) {
    fprintf(stderr, "mailctl store: import: %s: %s\n", file, strerror(errno));
    if (fd >= 0)
      close(fd);
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    fprintf(stderr, "mailctl store: import: %s: not a file\n", file);
    close(fd);
    return -1;
  }
  size_t size = (size_t)sb.st_size;
  if (size == 0) {
    close(fd);
    return 0;
  }
  const uint8_t *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    fprintf(stderr, "mailctl store: import: %s: %s\n", file, strerror(errno));
    return -1;
  }
  src->map = m;
  src->size = size;
  // mctl_mbox_next fails only where no From_ line starts: at byte 0.
  struct mctl_mbox_msg msg;
  size_t pos = 0;
  if (mctl_mbox_next(&msg, m, size, &pos) < 0) {
    fprintf(stderr, "mailctl store: import: %s: not an mbox (no From_ line at byte 0)\n", file);
    return -1;
  }
  return 0;
}

// source_open opens `path` as a Maildir or an mbox into *src (closed with
// source_close, also after a failure); it prints why not.
static int source_open(struct source *src, const char *path, int is_mbox) {
  memset(src, 0, sizeof *src);
  src->path = path;
  src->is_mbox = is_mbox;
  return is_mbox ? mbox_open(src, path) : maildir_open(src, path);
}

static int import_maildir(struct importer *im, struct source *src) {
  im->total = src->n;
  read_keywords(im, src->path);
  int rc = 0;
  for (size_t i = 0; i < src->n && rc == 0; i++) {
    uint8_t *data = NULL;
    size_t len = 0;
    struct stat sb;
    int r = read_file(src->names[i], &data, &len, &sb);
    if (r < 0) {
      fprintf(stderr, "mailctl store: import: %s: %s\n", src->names[i],
              r == -EINVAL ? "not a regular file" : strerror(-r));
      im->failed++;
      continue;
    }
    const char *base = strrchr(src->names[i], '/') + 1;
    char *end;
    long long t = strtoll(base, &end, 10);
    int64_t date = end != base && *end == '.' ? (int64_t)t : (int64_t)sb.st_mtime;
    // The importer owns the name from here.
    rc = add(im, data, len, maildir_flags(base), maildir_keywords(base), date, src->names[i]);
    src->names[i] = NULL;
  }
  return rc < 0 ? rc : flush(im);
}

// mbox_date parses the asctime date of a From_ line ("From addr Www Mmm dd
// hh:mm:ss yyyy"); 0 when it cannot.
static int64_t mbox_date(const char *line, size_t len) {
  char buf[128];
  if (len >= sizeof buf)
    len = sizeof buf - 1;
  memcpy(buf, line, len);
  buf[len] = 0;
  const char *p = buf + 5;
  while (*p && *p != ' ')
    p++;
  while (*p == ' ')
    p++;
  struct tm tm = {0};
  const char *e = strptime(p, "%a %b %d %H:%M:%S %Y", &tm);
  return e ? (int64_t)timegm(&tm) : 0;
}

// import_mbox stores each message of an mboxrd file as it was delivered
// (mbox.c undoes the quoting and restores CRLF line ends, the form IMAP
// serves), dated by its From_ line.
static int import_mbox(struct importer *im, const struct source *src) {
  im->total_bytes = src->size;
  int rc = 0;
  uint64_t index = 0;
  size_t pos = 0;
  struct mctl_mbox_msg msg;
  while (rc == 0 && src->size > 0 && mctl_mbox_next(&msg, src->map, src->size, &pos) == 1) {
    index++;
    im->scan_pos = pos;
    if (msg.len == 0)
      continue;
    uint8_t *out = malloc(mctl_mbox_max_len(msg.len));
    char *name = malloc(64);
    if (!out || !name) {
      free(out);
      free(name);
      rc = -1;
      break;
    }
    snprintf(name, 64, "message %" PRIu64, index);
    size_t o = mctl_mbox_unquote(out, msg.data, msg.len);
    rc = add(im, out, o, 0, 0, mbox_date((const char *)msg.from_line, msg.from_len), name);
  }
  return rc < 0 ? rc : flush(im);
}

// import_source imports the opened `src` into im's mailbox.
static int import_source(struct importer *im, struct source *src) {
  return src->is_mbox ? import_mbox(im, src) : import_maildir(im, src);
}

static int resolve(ms_store *st, const char *path, const char *account, const char *mailbox,
                   int create, uint32_t *acct, uint32_t *box) {
  int rc = ms_account_find(st, acct, account, strlen(account));
  if (rc < 0) {
    fprintf(stderr, "mailctl store: %s: account %s: %s\n", path, account, ms_strerror(rc));
    return -1;
  }
  rc = ms_mailbox_find(st, box, *acct, mailbox, strlen(mailbox));
  if (rc == MS_ERR_NOTFOUND && create)
    rc = ms_mailbox_create(st, box, *acct, mailbox, strlen(mailbox),
                           strcmp(mailbox, "INBOX") == 0 ? MS_ROLE_INBOX : MS_ROLE_NONE);
  if (rc < 0) {
    fprintf(stderr, "mailctl store: %s: mailbox %s of %s: %s\n", path, mailbox, account,
            ms_strerror(rc));
    return -1;
  }
  return 0;
}

// ensure_mailbox finds mailbox `name` of acct, creating it and any missing
// parent ("a" for "a/b") first.
static int ensure_mailbox(ms_store *st, uint32_t acct, const char *name, uint32_t *box) {
  size_t len = strlen(name);
  int rc = ms_mailbox_find(st, box, acct, name, len);
  if (rc != MS_ERR_NOTFOUND)
    return rc;
  for (size_t i = 1; i < len; i++) {
    if (name[i] != '/')
      continue;
    uint32_t id;
    rc = ms_mailbox_find(st, &id, acct, name, i);
    if (rc == MS_ERR_NOTFOUND)
      rc = ms_mailbox_create(st, &id, acct, name, i, MS_ROLE_NONE);
    if (rc < 0)
      return rc;
  }
  return ms_mailbox_create(st, box, acct, name, len,
                           strcmp(name, "INBOX") == 0 ? MS_ROLE_INBOX : MS_ROLE_NONE);
}

// import_account imports a Maildir++ tree: dir itself into INBOX and each
// dir/.a.b folder into mailbox "a/b" (parents created as needed), in name
// order, each with its own dovecot-keywords.
static int import_account(struct importer *im, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "mailctl store: import: %s: %s\n", dir, strerror(errno));
    return -1;
  }
  char **sub = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  int rc = 0;
  while ((e = readdir(d))) {
    char p[4096];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s/cur", dir, e->d_name);
    if (e->d_name[0] != '.' || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
        stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
      continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **ns = realloc(sub, cap * sizeof *ns);
      if (!ns) {
        rc = -1;
        break;
      }
      sub = ns;
    }
    if (!(sub[n] = strdup(e->d_name + 1))) {
      rc = -1;
      break;
    }
    n++;
  }
  closedir(d);
  // Sorted, a parent ("a") comes before its children ("a.b").
  if (rc == 0 && n > 1) // no array for an empty tree: qsort wants one
    qsort(sub, n, sizeof *sub, name_cmp);
  for (size_t i = 0; rc == 0 && i <= n; i++) {
    char name[1024], path[4096];
    if (i == 0) {
      snprintf(name, sizeof name, "INBOX");
      snprintf(path, sizeof path, "%s", dir);
    } else {
      snprintf(name, sizeof name, "%s", sub[i - 1]);
      snprintf(path, sizeof path, "%s/.%s", dir, sub[i - 1]);
      for (char *c = name; *c; c++)
        if (*c == '.')
          *c = '/';
    }
    struct source src;
    if (source_open(&src, path, 0) < 0) {
      source_close(&src);
      rc = -1;
      break;
    }
    int r = ensure_mailbox(im->st, im->acct, name, &im->box);
    if (r < 0) {
      fprintf(stderr, "mailctl store: import: mailbox %s: %s\n", name, ms_strerror(r));
      rc = -1;
    } else {
      rc = import_source(im, &src);
    }
    source_close(&src);
  }
  for (size_t i = 0; i < n; i++)
    free(sub[i]);
  free(sub);
  return rc;
}

// cmd_import: "import PATH ACCOUNT MAILBOX (--maildir DIR | --mbox FILE)"
// fills one mailbox, "import PATH ACCOUNT --maildir DIR" a whole Maildir++
// tree.
static int cmd_import(int argc, char **argv) {
  struct ms_settings set;
  take_no_transform(&argc, argv, &set);
  int whole = argc == 4 && strcmp(argv[2], "--maildir") == 0;
  if (!whole &&
      (argc != 5 || (strcmp(argv[3], "--maildir") != 0 && strcmp(argv[3], "--mbox") != 0))) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  static struct importer im;
  memset(&im, 0, sizeof im);
  int r = open_existing(argv[0], &im.st, &set);
  if (r)
    return r;
  int rc = ms_account_find(im.st, &im.acct, argv[1], strlen(argv[1]));
  if (rc < 0) {
    fprintf(stderr, "mailctl store: %s: account %s: %s\n", argv[0], argv[1], ms_strerror(rc));
    ms_store_close(im.st);
    return 1;
  }
  // One mailbox: its source is opened first, and the mailbox made only
  // for a source that can be read.
  struct source src;
  memset(&src, 0, sizeof src);
  if (!whole && (source_open(&src, argv[4], strcmp(argv[3], "--mbox") == 0) < 0 ||
                 resolve(im.st, argv[0], argv[1], argv[2], 1, &im.acct, &im.box) < 0)) {
    source_close(&src);
    ms_store_close(im.st);
    return 1;
  }
  im.tty = isatty(2);
  uint64_t t0 = now_ns();
  rc = whole ? import_account(&im, argv[3]) : import_source(&im, &src);
  source_close(&src);
  progress(&im, 1);
  ms_store_close(im.st);
  double secs = (double)(now_ns() - t0) / 1e9;
  printf("imported %" PRIu64 " messages (%.1f MiB) into %s%s%s in %.2f s", im.stored,
         (double)im.done_bytes / (1024.0 * 1024.0), argv[1], whole ? "" : "/", whole ? "" : argv[2],
         secs);
  if (im.failed)
    printf(", %" PRIu64 " failed", im.failed);
  if (im.kw_failed)
    printf(", %" PRIu64 " without some keyword", im.kw_failed);
  printf("\n");
  return rc < 0 || im.failed || im.kw_failed ? 1 : 0;
}

// ---- export ----

// export_error says on stderr which file of an export failed, and why;
// it returns 1, the export functions' "a file error, already reported".
static int export_error(const char *path, int err) {
  fprintf(stderr, "mailctl store: export: %s: %s\n", path, strerror(err));
  return 1;
}

// write_maildir_file writes one message into dir/tmp, then renames it into
// dir/cur. It returns 0, or 1 having named the file that failed, leaving
// nothing in tmp/.
static int write_maildir_file(const char *dir, const char *name, const uint8_t *data, size_t len,
                              int64_t date) {
  char tmp[4096], dst[4096];
  snprintf(tmp, sizeof tmp, "%s/tmp/%s", dir, name);
  snprintf(dst, sizeof dst, "%s/cur/%s", dir, name);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return export_error(tmp, errno);
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w <= 0) {
      int e = w < 0 ? errno : EIO;
      close(fd);
      unlink(tmp);
      return export_error(tmp, e);
    }
    off += (size_t)w;
  }
  // The internal date becomes the file's time, as Maildir readers expect.
  struct timespec ts[2] = {{(time_t)date, 0}, {(time_t)date, 0}};
  futimens(fd, ts);
  if (fsync(fd) != 0 || close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    return export_error(tmp, e);
  }
  // Delivered by rename, so no reader sees half a file (the Maildir rule).
  if (rename(tmp, dst) != 0) {
    int e = errno;
    unlink(tmp);
    return export_error(dst, e);
  }
  return 0;
}

// MAILDIR_KEYWORDS is how many keywords a Maildir file name can carry:
// Dovecot's letters a..z, each naming a line of the folder's
// dovecot-keywords file ("0 $Junk" is letter a).
#define MAILDIR_KEYWORDS 26

// kwmap is one exported folder's keyword letters: the store's keyword id
// of each letter, in order of first use in the folder.
struct kwmap {
  uint32_t id[MAILDIR_KEYWORDS];
  size_t n;
  uint64_t dropped; // keyword settings beyond 26 letters, left out
};

// write_keywords writes dir/dovecot-keywords for map (by rename, as the
// messages are); nothing when the folder used no keyword. A file error is
// reported here, naming the file, and returns 1; a store error is returned.
static int write_keywords(ms_store *st, uint32_t acct, const char *dir, const struct kwmap *map) {
  if (map->n == 0)
    return 0;
  char tmp[4096], dst[4096];
  snprintf(tmp, sizeof tmp, "%s/tmp/dovecot-keywords.mailctl", dir);
  snprintf(dst, sizeof dst, "%s/dovecot-keywords", dir);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return export_error(tmp, errno);
  int rc = 0;
  for (size_t i = 0; i < map->n && rc == 0; i++) {
    char name[256];
    size_t len;
    if ((rc = ms_keyword_name(st, name, sizeof name, &len, acct, map->id[i])) == 0)
      fprintf(f, "%zu %.*s\n", i, (int)len, name);
  }
  int err = 0;
  if (fflush(f) != 0 || fsync(fileno(f)) != 0)
    err = errno;
  if (fclose(f) != 0 && err == 0)
    err = errno;
  if (rc == 0 && err != 0)
    rc = export_error(tmp, err);
  if (rc == 0 && rename(tmp, dst) != 0)
    rc = export_error(dst, errno);
  if (rc != 0)
    unlink(tmp);
  return rc;
}

// make_maildir creates dir and its cur, new and tmp.
static int make_maildir(const char *dir) {
  const char *subs[] = {"", "/cur", "/new", "/tmp"};
  for (int i = 0; i < 4; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s%s", dir, subs[i]);
    if (mkdir(p, 0700) != 0 && errno != EEXIST) {
      fprintf(stderr, "mailctl store: export: cannot create %s: %s\n", p, strerror(errno));
      return -1;
    }
  }
  return 0;
}

// check_digest compares the bytes read for entry `en` with the SHA-256 the
// store keeps for them. ms_message_read does not: zstd stores incompressible
// data in raw blocks, where a damaged byte decompresses without complaint,
// and an export is a copy someone will trust in place of the store.
static int check_digest(ms_store *st, const uint8_t *data, size_t len, uint32_t acct,
                        const struct ms_entry *en) {
  uint8_t want[32], got[32];
  int rc = ms_message_digest(st, want, acct, en->message_id);
  if (rc < 0)
    return rc;
  SHA256(data, len, got);
  if (memcmp(want, got, sizeof got) != 0) {
    fprintf(stderr,
            "mailctl store: export: UID %" PRIu32 " (message %" PRIu64
            "): its bytes do not match their SHA-256\n",
            en->uid, en->message_id);
    return MS_ERR_CORRUPT;
  }
  return 0;
}

// export_mailbox writes every message of mailbox box to the Maildir dir
// (which must exist) with its flags and keywords, adding to *count and
// *bytes. Returns 0, 1 (a file error, already reported) or an MS_ERR_*.
static int export_mailbox(ms_store *st, uint32_t acct, uint32_t box, const char *dir,
                          uint64_t *count, uint64_t *bytes, uint64_t *dropped) {
  enum { PAGE = 1024, IDS = 16384 };
  static struct ms_keyword_entry e[PAGE];
  static uint32_t ids[IDS];
  struct kwmap map = {0};
  size_t got, nids, cap = 1 << 16;
  uint8_t *buf = malloc(cap);
  uint32_t from = 1;
  int rc = buf ? 0 : -ENOMEM;
  do {
    if (rc < 0 ||
        (rc = ms_mailbox_list_keywords(st, e, PAGE, &got, ids, IDS, &nids, acct, box, from)) < 0)
      break;
    for (size_t i = 0; i < got && rc == 0; i++) {
      const struct ms_entry *en = &e[i].entry;
      struct ms_message_info mi;
      size_t len;
      if ((rc = ms_message_get(st, &mi, acct, en->message_id)) < 0)
        break;
      if (mi.size > cap) {
        uint8_t *nb = realloc(buf, (size_t)mi.size);
        if (!nb) {
          rc = -ENOMEM;
          break;
        }
        buf = nb;
        cap = (size_t)mi.size;
      }
      if ((rc = ms_message_read(st, buf, cap, &len, acct, en->message_id)) < 0 ||
          (rc = check_digest(st, buf, len, acct, en)) < 0)
        break;
      // Maildir info flags in ASCII order: D F R S T, then keyword letters.
      char fl[8 + MAILDIR_KEYWORDS];
      size_t k = 0;
      if (en->flags & MS_FLAG_DRAFT)
        fl[k++] = 'D';
      if (en->flags & MS_FLAG_FLAGGED)
        fl[k++] = 'F';
      if (en->flags & MS_FLAG_ANSWERED)
        fl[k++] = 'R';
      if (en->flags & MS_FLAG_SEEN)
        fl[k++] = 'S';
      if (en->flags & MS_FLAG_DELETED)
        fl[k++] = 'T';
      int letter[MAILDIR_KEYWORDS] = {0};
      for (uint32_t j = 0; j < e[i].count; j++) {
        uint32_t id = ids[e[i].first + j];
        size_t l = 0;
        while (l < map.n && map.id[l] != id)
          l++;
        if (l == map.n && map.n < MAILDIR_KEYWORDS)
          map.id[map.n++] = id;
        if (l < map.n)
          letter[l] = 1;
        else
          map.dropped++;
      }
      for (size_t l = 0; l < MAILDIR_KEYWORDS; l++)
        if (letter[l])
          fl[k++] = (char)('a' + l);
      fl[k] = 0;
      char name[256];
      snprintf(name, sizeof name, "%lld.U%" PRIu32 ".mailctl,S=%zu:2,%s",
               (long long)mi.internal_date, en->uid, len, fl);
      if ((rc = write_maildir_file(dir, name, buf, len, mi.internal_date)) != 0)
        break;
      (*count)++;
      *bytes += len;
      from = en->uid + 1;
    }
    // A page ends early when the next message's keyword ids do not fit;
    // only an empty page is the end.
  } while (rc == 0 && got > 0);
  free(buf);
  if (rc == 0)
    rc = write_keywords(st, acct, dir, &map);
  *dropped += map.dropped;
  return rc;
}

#define MAILBOX_NAME_CAP 1024

// mailbox_name reads the full name of `box` into `name`, NUL-terminated.
static int mailbox_name(ms_store *st, uint32_t acct, uint32_t box, char name[MAILBOX_NAME_CAP]) {
  size_t len;
  int rc = ms_mailbox_name(st, name, MAILBOX_NAME_CAP - 1, &len, acct, box);
  if (rc == 0)
    name[len] = 0;
  return rc;
}

// export_account writes every mailbox of acct as a Maildir++ tree under
// dir: INBOX in dir itself, mailbox "a/b" in dir/.a.b (Maildir++ uses '.'
// between levels, so a name with a '.' in a level is refused).
static int export_account(ms_store *st, uint32_t acct, const char *dir, uint64_t *count,
                          uint64_t *bytes, uint64_t *dropped) {
  size_t n;
  int rc = ms_account_mailboxes(st, NULL, 0, &n, acct);
  if (rc < 0 && rc != MS_ERR_LIMIT)
    return rc;
  uint32_t *boxes = malloc((n ? n : 1) * sizeof *boxes);
  if (!boxes)
    return -ENOMEM;
  if ((rc = ms_account_mailboxes(st, boxes, n, &n, acct)) < 0) {
    free(boxes);
    return rc;
  }
  // Every name is checked before anything is written, so that a refused
  // export leaves no partial tree.
  for (size_t i = 0; i < n && rc == 0; i++) {
    char name[MAILBOX_NAME_CAP];
    if ((rc = mailbox_name(st, acct, boxes[i], name)) < 0)
      break;
    if (strcmp(name, "INBOX") != 0 && strchr(name, '.')) {
      fprintf(stderr, "mailctl store: export: mailbox %s: '.' cannot be kept in Maildir++\n", name);
      rc = 1;
    }
  }
  if (rc == 0 && make_maildir(dir) < 0)
    rc = 1;
  for (size_t i = 0; i < n && rc == 0; i++) {
    char name[MAILBOX_NAME_CAP], path[4096];
    if ((rc = mailbox_name(st, acct, boxes[i], name)) < 0)
      break;
    if (strcmp(name, "INBOX") == 0) {
      snprintf(path, sizeof path, "%s", dir);
    } else {
      for (char *p = name; *p; p++)
        if (*p == '/')
          *p = '.';
      snprintf(path, sizeof path, "%s/.%s", dir, name);
      if (make_maildir(path) < 0) {
        rc = 1;
        break;
      }
    }
    rc = export_mailbox(st, acct, boxes[i], path, count, bytes, dropped);
  }
  free(boxes);
  return rc;
}

// cmd_export: "export PATH ACCOUNT MAILBOX --maildir DIR" writes one
// mailbox, "export PATH ACCOUNT --maildir DIR" every mailbox of the account.
static int cmd_export(int argc, char **argv) {
  int whole = argc == 4;
  if ((argc != 4 && argc != 5) || strcmp(argv[argc - 2], "--maildir") != 0) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  const char *dir = argv[argc - 1];
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  uint32_t acct, box = 0;
  int rc = ms_account_find(st, &acct, argv[1], strlen(argv[1]));
  if (rc < 0) {
    fprintf(stderr, "mailctl store: %s: account %s: %s\n", argv[0], argv[1], ms_strerror(rc));
    ms_store_close(st);
    return 1;
  }
  if (!whole && resolve(st, argv[0], argv[1], argv[2], 0, &acct, &box) < 0) {
    ms_store_close(st);
    return 1;
  }
  uint64_t count = 0, bytes = 0, dropped = 0;
  if (whole)
    rc = export_account(st, acct, dir, &count, &bytes, &dropped);
  else
    rc = make_maildir(dir) < 0 ? 1 : export_mailbox(st, acct, box, dir, &count, &bytes, &dropped);
  ms_store_close(st);
  if (rc == 1)
    return 1;
  if (rc < 0)
    return fail("export from", argv[0], rc);
  printf("exported %" PRIu64 " messages (%" PRIu64 " bytes) to %s\n", count, bytes, dir);
  if (dropped)
    fprintf(stderr,
            "mailctl store: export: %" PRIu64 " keyword settings beyond the 26 Maildir letters "
            "of a folder were left out\n",
            dropped);
  return 0;
}

// ---- stats, verify, collect ----

static int cmd_stats(int argc, char **argv) {
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  struct ms_store_stats s;
  int rc = ms_store_stats_get(st, &s);
  if (rc < 0) {
    ms_store_close(st);
    return fail("cannot read", argv[0], rc);
  }
  printf("accounts: %" PRIu64 "\n", s.accounts);
  printf("mailboxes: %" PRIu64 "\n", s.mailboxes);
  printf("messages: %" PRIu64 "\n", s.messages);
  printf("mailbox entries: %" PRIu64 "\n", s.memberships);
  printf("bytes: %" PRIu64 "\n", s.bytes);
  printf("blobs: %" PRIu64 "\n", s.blobs);
  printf("blob bytes raw: %" PRIu64 "\n", s.blob_raw);
  printf("blob bytes stored: %" PRIu64 "\n", s.blob_stored);
  printf("compression ratio: %.2f\n",
         s.blob_stored ? (double)s.blob_raw / (double)s.blob_stored : 0.0);
  printf("released, not collected: %" PRIu64 "\n", s.released);
  printf("map used: %" PRIu64 "\n", s.map_used);
  printf("dictionaries: %" PRIu64 " (%" PRIu64 " bytes), current %" PRIu32 "\n", s.dicts,
         s.dict_bytes, s.dict_current);
  printf("blobs with a dictionary: %" PRIu64 "\n", s.dict_blobs);
  printf("dictionary blob bytes raw: %" PRIu64 "\n", s.dict_raw);
  printf("dictionary blob bytes stored: %" PRIu64 "\n", s.dict_stored);
  printf("dictionary compression ratio: %.2f\n",
         s.dict_stored ? (double)s.dict_raw / (double)s.dict_stored : 0.0);
  uint64_t plain_raw = s.blob_raw - s.dict_raw, plain_stored = s.blob_stored - s.dict_stored;
  printf("plain compression ratio: %.2f\n",
         plain_stored ? (double)plain_raw / (double)plain_stored : 0.0);
  printf("chunked blobs: %" PRIu64 "\n", s.chunked_blobs);
  printf("chunked blob bytes raw: %" PRIu64 "\n", s.chunked_raw);
  printf("chunked blob bytes stored: %" PRIu64 "\n", s.chunked_stored);
  printf("transformed blobs: %" PRIu64 "\n", s.xf_blobs);
  printf("transformed blob bytes raw: %" PRIu64 "\n", s.xf_raw);
  printf("transformed blob bytes stored: %" PRIu64 "\n", s.xf_stored);
  printf("decoded bodies: %" PRIu64 " (%" PRIu64 " bytes of Base64 stored as %" PRIu64 ")\n",
         s.xf_segments, s.xf_encoded, s.xf_decoded);
  printf("search queue: %" PRIu64 "\n", s.search_queued);
  // Account ids are dense from 1 and never reused.
  for (uint32_t id = 1; id <= s.accounts; id++) {
    struct ms_account_info ai;
    if (ms_account_get(st, &ai, id) < 0)
      continue;
    printf("account %" PRIu32 ": %" PRIu64 " messages, %" PRIu64 " bytes, quota %" PRIu64
           " bytes / %" PRIu64 " messages (0 = none), modseq %" PRIu64 "\n",
           id, ai.used_messages, ai.used_bytes, ai.quota_bytes, ai.quota_messages,
           ai.highest_modseq);
  }
  ms_store_close(st);
  return 0;
}

static int cmd_verify(int argc, char **argv) {
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  struct ms_diag diag;
  int rc = ms_store_verify(st, &diag);
  ms_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mailctl store: verify %s: FAILED: %s%s%s\n", argv[0], ms_strerror(rc),
            diag.message[0] ? ": " : "", diag.message);
    return 1;
  }
  printf("verify %s: ok\n", argv[0]);
  return 0;
}

static int cmd_collect(int argc, char **argv) {
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  uint64_t total = 0;
  int rc;
  while ((rc = ms_store_collect(st, 0)) > 0)
    total += (uint64_t)rc;
  ms_store_close(st);
  if (rc < 0)
    return fail("collect in", argv[0], rc);
  printf("released %" PRIu64 " blob references\n", total);
  return 0;
}

// recompress_all re-encodes blobs until none is left; returns the count or
// a negative code.
static int64_t recompress_all(ms_store *st) {
  int64_t total = 0;
  int rc;
  while ((rc = ms_store_recompress(st, 0)) > 0)
    total += rc;
  return rc < 0 ? rc : total;
}

static int cmd_train(int argc, char **argv) {
  struct ms_settings set;
  take_no_transform(&argc, argv, &set);
  uint64_t samples = 0;
  int recompress = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--recompress") == 0) {
      recompress = 1;
    } else if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc &&
               corvid_parse_u64(argv[i + 1], 0, UINT64_MAX, &samples) == 0) {
      i++;
    } else {
      store_usage(stderr);
      return MAILCTL_USAGE;
    }
  }
  if (argc < 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, &set);
  if (r)
    return r;
  uint32_t id;
  uint64_t t0 = now_ns();
  int rc = ms_store_train(st, &id, (size_t)samples);
  if (rc < 0) {
    ms_store_close(st);
    return fail("cannot train a dictionary for", argv[0], rc);
  }
  struct ms_store_stats s;
  if (ms_store_stats_get(st, &s) == 0)
    printf("trained dictionary %" PRIu32 " in %.2f s (%" PRIu64 " dictionary bytes in the store)\n",
           id, (double)(now_ns() - t0) / 1e9, s.dict_bytes);
  int64_t n = recompress ? recompress_all(st) : 0;
  ms_store_close(st);
  if (n < 0)
    return fail("recompress in", argv[0], (int)n);
  if (recompress)
    printf("recompressed %" PRId64 " blobs\n", n);
  return 0;
}

static int cmd_recompress(int argc, char **argv) {
  struct ms_settings set;
  take_no_transform(&argc, argv, &set);
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, &set);
  if (r)
    return r;
  int64_t n = recompress_all(st);
  ms_store_close(st);
  if (n < 0)
    return fail("recompress in", argv[0], (int)n);
  printf("recompressed %" PRId64 " blobs\n", n);
  return 0;
}

// summarize_bar draws the summarize progress on standard error when it is a
// terminal, at most ten times a second and always at the end.
static void summarize_bar(uint64_t done, uint64_t total, int final, uint64_t *last) {
  if (!isatty(2))
    return;
  uint64_t t = now_ns();
  if (!final && t - *last < 100000000u)
    return;
  *last = t;
  double frac = total ? (double)done / (double)total : 1.0;
  frac = frac > 1 ? 1 : frac;
  char bar[41];
  for (int i = 0; i < 40; i++)
    bar[i] = i < (int)(frac * 40) ? '#' : '.';
  bar[40] = 0;
  fprintf(stderr, "\rsummarize [%s] %3d%%  %" PRIu64 " messages%s", bar, (int)(frac * 100), done,
          final ? "\n" : "");
  fflush(stderr);
}

// cmd_summarize stores the summaries that messages written before summaries
// existed lack, 65,536 per transaction, until ms_store_summarize finds none;
// the bar measures against every message of the store (an upper bound of
// those without one).
static int cmd_summarize(int argc, char **argv) {
  if (argc != 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  ms_store *st;
  int r = open_existing(argv[0], &st, NULL);
  if (r)
    return r;
  struct ms_store_stats stats;
  int rc = ms_store_stats_get(st, &stats);
  uint64_t total = 0, last = 0;
  while (rc >= 0 && (rc = ms_store_summarize(st, 65536)) > 0) {
    total += (uint64_t)rc;
    summarize_bar(total, stats.messages, 0, &last);
  }
  ms_store_close(st);
  if (rc < 0)
    return fail("summarize in", argv[0], rc);
  summarize_bar(total, 0, 1, &last); // total 0: a full bar
  printf("summarized %" PRIu64 " messages\n", total);
  return 0;
}

int mailctl_store_main(int argc, char **argv) {
  static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
  } cmds[] = {{"create", cmd_create},         {"add-account", cmd_add_account},
              {"import", cmd_import},         {"export", cmd_export},
              {"stats", cmd_stats},           {"verify", cmd_verify},
              {"collect", cmd_collect},       {"train", cmd_train},
              {"recompress", cmd_recompress}, {"summarize", cmd_summarize}};
  if (argc < 1) {
    store_usage(stderr);
    return MAILCTL_USAGE;
  }
  if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
    store_usage(stdout);
    return 0;
  }
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
    if (strcmp(argv[0], cmds[i].name) == 0)
      return cmds[i].run(argc - 1, argv + 1);
  fprintf(stderr, "mailctl store: unknown command '%s'\n", argv[0]);
  store_usage(stderr);
  return MAILCTL_USAGE;
}
