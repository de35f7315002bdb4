// output.c: writing the corpus as Maildir, mbox or one .eml per message.
// Maildir and .eml files hold the canonical form with CRLF line ends (RFC
// 5322); an mbox uses LF, as mbox files do, with mboxrd quoting of "From "
// lines. File names derive from the seed and the message's position only.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mkcorpus_internal.h"

struct mkc_writer {
  enum mkc_format format;
  char *path;
  FILE *mbox;
  uint64_t seed;
  struct mkc_buf scratch;
};

static void make_dir(const char *path) {
  if (mkdir(path, 0755) != 0 && errno != EEXIST)
    mkc_die("cannot create directory %s: %s", path, strerror(errno));
}

struct mkc_writer *mkc_writer_open(enum mkc_format format, const char *path, uint64_t seed) {
  struct mkc_writer *w = mkc_xcalloc(1, sizeof *w);
  w->format = format;
  w->seed = seed;
  w->path = mkc_xmalloc(strlen(path) + 1);
  strcpy(w->path, path);
  mkc_buf_init(&w->scratch);
  if (format == MKC_FORMAT_MBOX) {
    w->mbox = fopen(path, "wb");
    if (!w->mbox)
      mkc_die("cannot create %s: %s", path, strerror(errno));
  } else if (format == MKC_FORMAT_EML || format == MKC_FORMAT_MAILDIR) {
    make_dir(path);
  }
  if (format == MKC_FORMAT_MAILDIR) {
    static const char *const subdirs[] = {"tmp", "new", "cur"};
    for (int i = 0; i < 3; i++) {
      mkc_buf_printf(&w->scratch, "%s/%s", path, subdirs[i]);
      make_dir(mkc_buf_cstr(&w->scratch));
      w->scratch.len = 0;
    }
  }
  return w;
}

static void write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f)
    mkc_die("cannot create %s: %s", path, strerror(errno));
  if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
    mkc_die("cannot write %s: %s", path, strerror(errno));
}

// Maildir names follow "time.unique.host[,S=size][:2,flags]" with the
// message's date as the time and its position as the unique part; 12% are
// still in new/, the rest in cur/ with the flags people leave behind.
static void put_maildir(struct mkc_writer *w, const struct mkc_buf *msg,
                        const struct mkc_plan *plan) {
  struct mkc_rng r;
  mkc_rng_seed(&r, w->seed, MKC_STREAM_MAILDIR, plan->index);
  char base[160];
  snprintf(base, sizeof base, "%lld.M%lluP%llu.mkcorpus,S=%zu", (long long)plan->date,
           (unsigned long long)plan->index, (unsigned long long)(w->seed % 1000000), msg->len);
  char flags[8] = "";
  bool unread = mkc_rng_chance(&r, 0.12);
  if (!unread) {
    size_t n = 0;
    bool seen = mkc_rng_chance(&r, 0.92);
    // Flags in ASCII order, as the Maildir specification requires.
    if (mkc_rng_chance(&r, 0.06))
      flags[n++] = 'F';
    if (plan->kind == MKC_KIND_FORWARD || mkc_rng_chance(&r, 0.02))
      flags[n++] = 'P';
    if (seen && mkc_rng_chance(&r, 0.2))
      flags[n++] = 'R';
    if (seen)
      flags[n++] = 'S';
    if (mkc_rng_chance(&r, 0.01))
      flags[n++] = 'T';
    flags[n] = '\0';
  }
  struct mkc_buf *s = &w->scratch;
  s->len = 0;
  mkc_buf_printf(s, "%s/tmp/%s", w->path, base);
  size_t tmp_len = s->len;
  mkc_buf_putc(s, '\0');
  mkc_buf_printf(s, "%s/%s/%s%s%s", w->path, unread ? "new" : "cur", base, unread ? "" : ":2,",
                 flags);
  mkc_buf_putc(s, '\0');
  // Delivery as the Maildir specification describes it: write in tmp/, then
  // rename into place, so a reader never sees half a message.
  write_file(s->data, msg->data, msg->len);
  if (rename(s->data, s->data + tmp_len + 1) != 0)
    mkc_die("cannot move %s into place: %s", s->data, strerror(errno));
}

static void put_eml(struct mkc_writer *w, const struct mkc_buf *msg, const struct mkc_plan *plan) {
  w->scratch.len = 0;
  mkc_buf_printf(&w->scratch, "%s/%06llu.eml", w->path, (unsigned long long)plan->index + 1);
  write_file(mkc_buf_cstr(&w->scratch), msg->data, msg->len);
}

// mboxrd: every line that starts with any number of '>' and then "From "
// gets one more '>', which makes the quoting reversible.
static void put_mbox(struct mkc_writer *w, const struct mkc_buf *msg, const struct mkc_plan *plan) {
  struct mkc_buf *s = &w->scratch;
  char date[40];
  mkc_format_asctime(date, sizeof date, plan->date);
  s->len = 0;
  mkc_buf_printf(s, "From %s %s\n", plan->from.addr, date);
  size_t pos = 0;
  while (pos < msg->len) {
    const char *nl = memchr(msg->data + pos, '\n', msg->len - pos);
    size_t end = nl ? (size_t)(nl - msg->data) : msg->len;
    size_t content_end = end > pos && msg->data[end - 1] == '\r' ? end - 1 : end;
    size_t quotes = pos;
    while (quotes < content_end && msg->data[quotes] == '>')
      quotes++;
    if (content_end - quotes >= 5 && memcmp(msg->data + quotes, "From ", 5) == 0)
      mkc_buf_putc(s, '>');
    mkc_buf_put(s, msg->data + pos, content_end - pos);
    mkc_buf_putc(s, '\n');
    pos = nl ? end + 1 : msg->len;
  }
  mkc_buf_putc(s, '\n');
  if (fwrite(s->data, 1, s->len, w->mbox) != s->len)
    mkc_die("cannot write %s: %s", w->path, strerror(errno));
}

void mkc_writer_put(struct mkc_writer *w, const struct mkc_buf *msg, const struct mkc_plan *plan) {
  switch (w->format) {
  case MKC_FORMAT_MAILDIR:
    put_maildir(w, msg, plan);
    break;
  case MKC_FORMAT_EML:
    put_eml(w, msg, plan);
    break;
  case MKC_FORMAT_MBOX:
    put_mbox(w, msg, plan);
    break;
  default:
    break;
  }
}

void mkc_writer_close(struct mkc_writer *w) {
  if (!w)
    return;
  if (w->mbox && fclose(w->mbox) != 0)
    mkc_die("cannot write %s: %s", w->path, strerror(errno));
  mkc_buf_cleanup(&w->scratch);
  free(w->path);
  free(w);
}
