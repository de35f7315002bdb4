// mailparse.c: the mailparse command, a window on libmailparse: reads the
// command line and the files, and dispatches to `dump` (what a reader sees
// of each message, as text or JSON: dump_text.c, dump_json.c), `body` (one
// part's decoded body) and `bench` (parsing speed over files and folders).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "mailparse.h"

// MAX_FILE is the largest message the command reads (1 GiB).
#define MAX_FILE ((size_t)1 << 30)

// help is the usage and the JSON schema of dump --json (kept in step with
// README.md); one string per line, as ISO C limits the length of one literal.
static const char *const help[] = {
    "usage: mailparse dump [--json] FILE...",
    "       mailparse body FILE PART",
    "       mailparse bench [--seconds N] FILE|DIR...",
    "       mailparse --help",
    "",
    "dump parses each FILE as one message (RFC 5322/MIME) and prints what a",
    "reader sees: its header fields (raw, decoded and typed), its part tree, the",
    "text body, HTML body and attachments chosen as RFC 8621 (JMAP Mail) 4.1.4",
    "does, a preview, and the IMAP ENVELOPE and BODYSTRUCTURE; as indented text,",
    "or with --json as one JSON object per FILE, one per line. body writes the",
    "decoded body of part number PART (the \"index\" of dump --json) to standard",
    "output. bench parses every file named, or found under the folders named,",
    "repeatedly for about N seconds (default 2) and prints one JSON line:",
    "{\"bench\":\"mailparse_parse\",\"impl\",\"bytes\",\"items\",\"ns\",\"msgs_per_s\",",
    "\"mb_per_s\"} (items = messages parsed, bytes = their total); N is above 0",
    "and at most 3600.",
    "",
    "JSON output of dump --json (every line is one object; the output is ASCII):",
    "  file          the path as given (string of bytes, see \"Strings\" below)",
    "  size          the message's size in bytes",
    "  problems      [{kind, part, offset}...]: what the parser repaired or",
    "                limited: kind is one of no_colon, nul, long_line, depth,",
    "                parts, headers, work, no_boundary, no_end, unknown_cte,",
    "                no_body, bad_content_type; part is a part index or -1;",
    "                offset a byte offset into the file",
    "  headers       every header field of every part, in file order:",
    "    part        index of the part whose header it is",
    "    name        field name as written (bytes)",
    "    value       raw value (bytes): folding kept, without the final line",
    "                break",
    "    field       [offset, length] of the whole field, line breaks included",
    "    flags       MP_HEADER_* bits of mailparse.h (1 no colon, 2 space",
    "                before colon, 4 8-bit, 8 NUL, 16 long line, 32 bare LF,",
    "                64 continuation first)",
    "    decoded     the value unfolded, RFC 2047 words decoded, in UTF-8",
    "    typed       null, or for the fields that have a typed parser an object",
    "                with \"kind\", the parser's MP_TYPED_* \"flags\", and either",
    "                \"error\" (why the value does not parse) or by kind:",
    "      addresses   From To Cc Bcc Reply-To Sender Resent-From/-To/-Cc/-Bcc/",
    "                  -Sender: \"addresses\": [{name, email, flags} or {group,",
    "                  addresses: [{name, email, flags}...]}...]; name is the",
    "                  decoded display name or null; email is local@domain",
    "                  (null for an entry without address); flags are",
    "                  MP_ADDRESS_* bits",
    "      date        Date Resent-Date: \"date\": {utc: \"YYYY-MM-DDTHH:MM:SSZ\",",
    "                  offset: \"+hhmm\" (zone as written), offset_minutes,",
    "                  local: \"YYYY-MM-DDTHH:MM:SS+hh:mm\", timestamp: seconds",
    "                  since 1970 (UTC), date_flags: MP_DATE_* bits}",
    "      content_type         Content-Type: type, subtype, params",
    "      content_disposition  Content-Disposition: type, params",
    "                  params: [{name (lower case), value (RFC 2231 and 2047",
    "                  decoded, UTF-8), charset, language (RFC 2231, or null),",
    "                  flags: MP_PARAM_* bits}...]",
    "      msgids      Message-ID In-Reply-To References Content-ID",
    "                  Resent-Message-ID: \"ids\": [id without brackets...]",
    "      received    Received: from by via with id for from_info (clauses,",
    "                  null when absent), \"date\" as above or null",
    "      list_uris   List-Help -Subscribe -Unsubscribe -Post -Owner -Archive:",
    "                  \"uris\": [...], \"no\": true for \"List-Post: NO\"",
    "      list_id     List-Id: \"name\" (decoded phrase or null), \"id\"",
    "      subject     Subject: \"base\" (RFC 5256 base subject), \"reply\" (a",
    "                  Re:/Fwd: marker was removed)",
    "  parts         every MIME part, depth first; the root is index 0:",
    "    index       the part's number",
    "    parent      index of the enclosing part, -1 for the root",
    "    children    indices of the parts inside (a multipart's parts, or the",
    "                message inside a message/rfc822 part)",
    "    section     IMAP section number (\"\" for a multipart root)",
    "    depth       nesting level (0 for the root)",
    "    type, subtype  media type in lower case (text/plain by default, or",
    "                message/rfc822 inside multipart/digest)",
    "    params      {\"boundary\", \"charset\"} when present (bytes)",
    "    encoding    \"7bit\", \"8bit\", \"binary\", \"quoted-printable\", \"base64\" or",
    "                \"unknown\" (an unknown Content-Transfer-Encoding, kept raw)",
    "    encoding_name  the Content-Transfer-Encoding as written, or null",
    "    kind        \"multipart\", \"message\" (message/rfc822 or message/global",
    "                with a parsed message inside) or \"leaf\"",
    "    flags       MP_PART_* bits of mailparse.h",
    "    header, body, preamble, epilogue  [offset, length] in the file",
    "    lines       number of lines of the body",
    "    decoded_size, sha256  size and SHA-256 (hex) of the body after its",
    "                transfer encoding is decoded (multipart and message bodies",
    "                are hashed raw)",
    "    content_type  the Content-Type header parsed: {type, subtype, params,",
    "                flags}, or null when absent or unparsable",
    "    disposition the Content-Disposition header parsed: {type, params,",
    "                flags}, or null",
    "    filename    the Content-Disposition filename, else the Content-Type",
    "                name (decoded, UTF-8), or null",
    "    charset     for text/* leaves, the charset the text is read in (the",
    "                parameter, else \"us-ascii\"); null for other parts",
    "    text        for text/* leaves, the decoded body converted to UTF-8;",
    "                null for other parts",
    "    text_flags  MP_CHARSET_* bits: 1 bytes replaced by U+FFFD, 2 unknown",
    "                charset (0 for other parts)",
    "  text_body     indices of the parts to show as the body when plain text",
    "                is preferred (RFC 8621 textBody)",
    "  html_body     the same when HTML is preferred (RFC 8621 htmlBody)",
    "  attachments   indices of the attachments (RFC 8621 attachments; an",
    "                attached message is one entry, its parts are not listed)",
    "  preview       up to 256 characters of the text body, white space",
    "                collapsed (HTML turned into text)",
    "  envelope      the message's IMAP ENVELOPE (RFC 3501 7.4.2), bytes",
    "  bodystructure the message's IMAP BODYSTRUCTURE (RFC 3501 7.4.2), bytes",
    "Strings: \"bytes\" fields (file, name, value, params, encoding_name,",
    "envelope, bodystructure) write each input byte of 0x80 or more as the code",
    "point of the same value (\\u0080-\\u00ff), so encoding the string as Latin-1",
    "gives back the exact bytes. Every other string is UTF-8 text written with",
    "\\u escapes, invalid sequences replaced by U+FFFD.",
    "",
    "Exit status: 0 on success, 1 when a file cannot be read or parsed (a",
    "message to standard error names it; the other files are still dumped), when",
    "body is given a part the message does not have, or when bench finds no file;",
    "2 on wrong usage (a PART that is not a number, a bad --seconds included).",
};

static void print_help(FILE *o) {
  for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) {
    fputs(help[i], o);
    fputc('\n', o);
  }
}

// read_file reads `path` whole (a regular file, or a pipe such as
// /dev/stdin, up to MAX_FILE bytes). Returns 0 or -errno: the read's own
// error (EISDIR for a directory), EFBIG past MAX_FILE, ENOMEM.
static int read_file(const char *path, uint8_t **out, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return -errno;
  size_t cap = 65536, n = 0;
  uint8_t *buf = malloc(cap);
  int read_errno = 0;
  while (buf != NULL) {
    errno = 0;
    size_t r = fread(buf + n, 1, cap - n, f);
    read_errno = errno;
    n += r;
    if (r == 0)
      break;
    if (n == cap) {
      if (cap >= MAX_FILE) {
        // Exactly MAX_FILE bytes is allowed: only a byte more is too many.
        int next = fgetc(f);
        read_errno = errno;
        if (next == EOF)
          break;
        free(buf);
        fclose(f);
        return -EFBIG;
      }
      uint8_t *nb = realloc(buf, cap * 2);
      if (nb == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  int err = ferror(f) ? -(read_errno != 0 ? read_errno : EIO) : 0;
  fclose(f);
  if (buf == NULL)
    return -ENOMEM;
  if (err != 0) {
    free(buf);
    return err;
  }
  *out = buf;
  *out_len = n;
  return 0;
}

// copy_out writes the whole of `f`, from its start, to standard output;
// a write to `f` that failed (a full disk) fails it.
static int copy_out(FILE *f) {
  errno = 0;
  if (ferror(f) || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0)
    return -(errno != 0 ? errno : EIO);
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (fwrite(chunk, 1, n, stdout) != n)
      return -EIO;
  return ferror(f) ? -EIO : 0;
}

// staging_file opens an unnamed temporary file in $TMPDIR (else /tmp), which
// vanishes with its last descriptor, even after a crash. tmpfile(3) would
// not do: glibc's ignores TMPDIR.
static FILE *staging_file(void) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || *dir == '\0')
    dir = "/tmp";
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
    // A file system without O_TMPFILE: a named file, unlinked at once.
    char name[4096];
    if (snprintf(name, sizeof name, "%s/mailparse-XXXXXX", dir) >= (int)sizeof name) {
      errno = ENAMETOOLONG;
      return NULL;
    }
    if ((fd = mkostemp(name, O_CLOEXEC)) >= 0)
      unlink(name);
  }
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "w+");
  if (f == NULL) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

// dump_one prints one message: into a temporary file first, so that a
// failure half way prints nothing and standard output only ever holds whole,
// valid dumps. A file, not memory: a dump can be several times the message
// (each NUL byte of a body is six in JSON), and the message itself may be
// MAX_FILE.
static int dump_one(const char *path, int json) {
  uint8_t *buf;
  size_t len;
  int rc = read_file(path, &buf, &len);
  if (rc != 0) {
    fprintf(stderr, "mailparse: %s: cannot read: %s\n", path, mp_strerror(rc));
    return 1;
  }
  mp_message *m = NULL;
  FILE *staged = NULL;
  rc = mp_message_parse(&m, NULL, buf, len, NULL);
  if (rc == 0 && (staged = staging_file()) == NULL)
    rc = -(errno != 0 ? errno : EIO);
  if (rc == 0)
    rc = json ? dump_json(staged, path, m) : dump_text(staged, path, m);
  if (rc == 0)
    rc = copy_out(staged);
  if (staged != NULL && fclose(staged) != 0 && rc == 0)
    rc = -EIO;
  if (rc != 0)
    fprintf(stderr, "mailparse: %s: cannot dump: %s\n", path, mp_strerror(rc));
  mp_message_free(m);
  free(buf);
  return rc == 0 ? 0 : 1;
}

static int cmd_dump(int argc, char **argv) {
  int json = 0, status = 0, files = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--help") == 0) {
      print_help(stdout);
      return 0;
    } else if (strncmp(argv[i], "--", 2) == 0) {
      fprintf(stderr, "mailparse: unknown option %s\n", argv[i]);
      print_help(stderr);
      return 2;
    }
  }
  for (int i = 0; i < argc; i++) {
    if (strncmp(argv[i], "--", 2) == 0)
      continue;
    files++;
    if (dump_one(argv[i], json) != 0)
      status = 1;
  }
  if (files == 0) {
    print_help(stderr);
    return 2;
  }
  return status;
}

static int cmd_body(int argc, char **argv) {
  if (argc != 2) {
    print_help(stderr);
    return 2;
  }
  // PART is a decimal part index (dump lists them), nothing else.
  char *end;
  errno = 0;
  unsigned long ix = strtoul(argv[1], &end, 10);
  if (argv[1][0] < '0' || argv[1][0] > '9' || *end != '\0' || errno != 0) {
    fprintf(stderr, "mailparse: body: PART must be a part number, not '%s'\n", argv[1]);
    return 2;
  }
  uint8_t *buf;
  size_t len;
  int rc = read_file(argv[0], &buf, &len);
  if (rc != 0) {
    fprintf(stderr, "mailparse: %s: %s\n", argv[0], mp_strerror(rc));
    return 1;
  }
  mp_message *m = NULL;
  uint8_t *out = NULL;
  size_t n = 0;
  rc = mp_message_parse(&m, NULL, buf, len, NULL);
  if (rc == 0 && ix >= mp_message_num_parts(m)) {
    fprintf(stderr, "mailparse: %s: no part %lu (its parts are 0 to %zu)\n", argv[0], ix,
            mp_message_num_parts(m) - 1);
    mp_message_free(m);
    free(buf);
    return 1;
  }
  if (rc == 0) {
    size_t cap = mp_part_decode_max_len(m, (uint32_t)ix);
    out = malloc(cap ? cap : 1);
    rc = out == NULL ? -ENOMEM : mp_part_decode(m, (uint32_t)ix, out, cap, &n);
  }
  if (rc == 0 && fwrite(out, 1, n, stdout) != n)
    rc = -EIO;
  if (rc != 0)
    fprintf(stderr, "mailparse: %s: %s\n", argv[0], mp_strerror(rc));
  free(out);
  mp_message_free(m);
  free(buf);
  return rc == 0 ? 0 : 1;
}

struct corpus {
  uint8_t **bufs;
  size_t *lens;
  size_t n, cap, bytes;
};

static void corpus_free(struct corpus *c) {
  for (size_t i = 0; i < c->n; i++)
    free(c->bufs[i]);
  free(c->bufs);
  free(c->lens);
}

// add_path reads the file `path`, or every file under the directory `path`
// (names starting with '.' skipped), into `c`; prints what failed. Inside a
// directory only regular files are messages: a FIFO there would block the
// read for ever. A path named on the command line may be a pipe (`named`).
static int add_path(struct corpus *c, const char *path, bool named) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "mailparse: %s: %s\n", path, strerror(errno));
    return -1;
  }
  if (!named && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
    fprintf(stderr, "mailparse: %s: not a regular file\n", path);
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (d == NULL) {
      fprintf(stderr, "mailparse: %s: %s\n", path, strerror(errno));
      return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.')
        continue;
      size_t n = strlen(path) + strlen(e->d_name) + 2;
      char *sub = malloc(n);
      if (sub == NULL) {
        rc = -1;
        break;
      }
      snprintf(sub, n, "%s/%s", path, e->d_name);
      rc = add_path(c, sub, false);
      free(sub);
    }
    closedir(d);
    return rc;
  }
  if (c->n == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    uint8_t **bufs = realloc(c->bufs, cap * sizeof *bufs);
    if (bufs == NULL)
      return -1;
    c->bufs = bufs;
    size_t *lens = realloc(c->lens, cap * sizeof *lens);
    if (lens == NULL)
      return -1;
    c->lens = lens;
    c->cap = cap;
  }
  int rc = read_file(path, &c->bufs[c->n], &c->lens[c->n]);
  if (rc != 0) {
    fprintf(stderr, "mailparse: %s: cannot read: %s\n", path, mp_strerror(rc));
    return -1;
  }
  c->bytes += c->lens[c->n++];
  return 0;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

// MAX_SECONDS bounds bench --seconds (an hour).
#define MAX_SECONDS 3600.0

static int cmd_bench(int argc, char **argv) {
  struct corpus c = {0};
  double seconds = 2;
  int paths = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--seconds") == 0) {
      char *end = NULL;
      if (i + 1 < argc)
        seconds = strtod(argv[++i], &end);
      if (end == NULL || end == argv[i] || *end != '\0' || !(seconds > 0) ||
          seconds > MAX_SECONDS) {
        fprintf(stderr, "mailparse: bench: --seconds needs a number above 0, at most %.0f\n",
                MAX_SECONDS);
        corpus_free(&c);
        return 2;
      }
      continue;
    }
    if (strcmp(argv[i], "--help") == 0) {
      print_help(stdout);
      corpus_free(&c);
      return 0;
    }
    if (strncmp(argv[i], "--", 2) == 0) {
      fprintf(stderr, "mailparse: bench: unknown option %s\n", argv[i]);
      print_help(stderr);
      corpus_free(&c);
      return 2;
    }
    paths++;
    if (add_path(&c, argv[i], true) != 0) {
      corpus_free(&c);
      return 1;
    }
  }
  if (paths == 0) {
    print_help(stderr);
    return 2;
  }
  if (c.n == 0) {
    fprintf(stderr, "mailparse: bench: no files under the given paths\n");
    return 1;
  }
  uint64_t items = 0, bytes = 0, t0 = now_ns(), ns = 0;
  do {
    for (size_t i = 0; i < c.n; i++) {
      mp_message *m = NULL;
      int rc = mp_message_parse(&m, NULL, c.bufs[i], c.lens[i], NULL);
      if (rc != 0) {
        fprintf(stderr, "mailparse: bench: a message does not parse: %s\n", mp_strerror(rc));
        corpus_free(&c);
        return 1;
      }
      mp_message_free(m);
    }
    items += c.n;
    bytes += c.bytes;
    ns = now_ns() - t0;
  } while ((double)ns < seconds * 1e9);
  printf("{\"bench\":\"mailparse_parse\",\"impl\":\"%s\",\"bytes\":%llu,\"items\":%llu,"
         "\"ns\":%llu,\"msgs_per_s\":%.1f,\"mb_per_s\":%.1f}\n",
         mp_impl_name(), (unsigned long long)bytes, (unsigned long long)items,
         (unsigned long long)ns, (double)items * 1e9 / (double)ns,
         (double)bytes * 1e3 / (double)ns);
  corpus_free(&c);
  return 0;
}

static int dispatch(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    print_help(stdout);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "dump") == 0)
    return cmd_dump(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "body") == 0)
    return cmd_body(argc - 2, argv + 2);
  if (argc >= 2 && strcmp(argv[1], "bench") == 0)
    return cmd_bench(argc - 2, argv + 2);
  if (argc >= 2)
    fprintf(stderr, "mailparse: unknown command '%s'\n", argv[1]);
  print_help(stderr);
  return 2;
}

int main(int argc, char **argv) {
  int status = dispatch(argc, argv);
  // Output smaller than stdio's buffer is written only now: a full disk or
  // a closed pipe must not pass for success.
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "mailparse: cannot write standard output: %s\n", strerror(errno));
    if (status == 0)
      status = 1;
  }
  return status;
}
