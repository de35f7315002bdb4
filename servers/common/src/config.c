// config.c: reads a daemon's configuration file (the Postfix/INI-like format
// documented in srv_config.h) into an immutable srv_config, and converts its
// values on demand with typed getters that apply defaults, check ranges and
// name the key, file and line of any bad value. The input is untrusted text:
// it is read with bounded reads, walked only through a bounded cursor, and
// every limit is a named constant whose excess is an error. Keys and values
// are copied into one growable arena (addressed by offsets, so growing it
// never leaves a dangling pointer) and indexed by an open-addressing hash
// table, which also finds duplicate keys while parsing.
#include "srv_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corvid_errtext.h"

// Bounded cursor (CONVENTIONS.md §5). Each function returns 1 or 0 and
// advances only on success.
//
// TODO: these helpers are generic; they belong in common/include/ (next to
// corvid_errtext.h) once another module or library needs the same cursor.

struct cur {
  const uint8_t *p;
  size_t len;
};

static inline void cur_init(struct cur *c, const void *p, size_t len) {
  c->p = p;
  c->len = len;
}

static inline size_t cur_len(const struct cur *c) {
  return c->len;
}

static inline int cur_peek_u8(const struct cur *c, uint8_t *out) {
  if (c->len == 0)
    return 0;
  *out = c->p[0];
  return 1;
}

static inline int cur_get_u8(struct cur *c, uint8_t *out) {
  if (!cur_peek_u8(c, out))
    return 0;
  c->p++;
  c->len--;
  return 1;
}

static inline int cur_skip(struct cur *c, size_t n) {
  if (n > c->len)
    return 0;
  c->p += n;
  c->len -= n;
  return 1;
}

// cur_get_bytes splits the first `n` bytes of `c` off into `out`.
static inline int cur_get_bytes(struct cur *c, size_t n, struct cur *out) {
  if (n > c->len)
    return 0;
  cur_init(out, c->p, n);
  c->p += n;
  c->len -= n;
  return 1;
}

// cur_get_until splits the bytes before the first `delim` off into `out` and
// leaves `c` at the delimiter. It fails when `delim` does not occur.
static inline int cur_get_until(struct cur *c, uint8_t delim, struct cur *out) {
  const uint8_t *hit = c->len > 0 ? memchr(c->p, delim, c->len) : NULL;
  if (hit == NULL)
    return 0;
  return cur_get_bytes(c, (size_t)(hit - c->p), out);
}

// cur_get_span splits the longest prefix whose bytes all satisfy `pred` off
// into `out` (possibly empty) and returns its length.
static inline size_t cur_get_span(struct cur *c, int (*pred)(uint8_t), struct cur *out) {
  size_t n = 0;
  while (n < c->len && pred(c->p[n]))
    n++;
  cur_init(out, c->p, n);
  c->p += n;
  c->len -= n;
  return n;
}

static inline int is_blank(uint8_t b) {
  return b == ' ' || b == '\t';
}

static inline size_t cur_skip_blanks(struct cur *c) {
  struct cur blanks;
  return cur_get_span(c, is_blank, &blanks);
}

static inline void cur_trim_blanks_end(struct cur *c) {
  while (c->len > 0 && is_blank(c->p[c->len - 1]))
    c->len--;
}

// Character classes of the format.

static int is_key_char(uint8_t b) {
  return (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '_';
}

static int is_section_char(uint8_t b) {
  return is_key_char(b) || b == '.' || b == '-';
}

static inline uint8_t ascii_lower(uint8_t b) {
  return (b >= 'A' && b <= 'Z') ? (uint8_t)(b - 'A' + 'a') : b;
}

// The handle.

// HASH_SLOTS is a power of two at least twice SRV_CONFIG_MAX_ENTRIES, so the
// table is at most half full and every probe sequence reaches an empty slot.
#define HASH_SLOTS 8192u
_Static_assert((HASH_SLOTS & (HASH_SLOTS - 1)) == 0, "HASH_SLOTS must be a power of two");
_Static_assert(HASH_SLOTS >= 2 * SRV_CONFIG_MAX_ENTRIES, "hash table too small");
_Static_assert(SRV_CONFIG_MAX_ENTRIES < UINT16_MAX, "slots hold entry index + 1 in 16 bits");

struct entry {
  size_t key_off;   // NUL-terminated full key in the arena
  size_t value_off; // NUL-terminated value in the arena
  size_t value_len;
  unsigned line;
  atomic_bool used; // set by the getters; read by srv_config_unused
};

struct srv_config {
  char *arena;
  size_t arena_len;
  size_t arena_cap;
  struct entry *entries;
  size_t num_entries;
  size_t entries_cap;
  uint16_t *slots; // HASH_SLOTS slots: 0 (empty) or entry index + 1
  char name[SRV_CONFIG_DIAG_FILE_SIZE];
};

// FNV-1a: keys are short and come from the administrator, not from a network
// peer, so a keyed hash buys nothing here.
static uint32_t hash_key(const char *key, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) {
    h ^= (uint8_t)key[i];
    h *= 16777619u;
  }
  return h;
}

static void copy_name(char *dst, const char *name) {
  size_t len = strlen(name);
  if (len < SRV_CONFIG_DIAG_FILE_SIZE) {
    memcpy(dst, name, len + 1);
    return;
  }
  // Keep the end of a long path: it names the file.
  size_t keep = SRV_CONFIG_DIAG_FILE_SIZE - 4;
  memcpy(dst, "...", 3);
  memcpy(dst + 3, name + len - keep, keep + 1);
}

// Diagnostics.

#if defined(__GNUC__) || defined(__clang__)
#define SRV_PRINTF(fmt_index, args_index) __attribute__((format(printf, fmt_index, args_index)))
#else
#define SRV_PRINTF(fmt_index, args_index)
#endif

static int vfail(srv_config_diag *diag, const char *file, unsigned line, int code, const char *fmt,
                 va_list ap) {
  if (diag == NULL)
    return code;
  char what[SRV_CONFIG_DIAG_MESSAGE_SIZE];
  if (vsnprintf(what, sizeof what, fmt, ap) < 0)
    what[0] = '\0';
  diag->code = code;
  copy_name(diag->file, file);
  diag->line = line;
  int n = line > 0
              ? snprintf(diag->message, sizeof diag->message, "%s:%u: %s", diag->file, line, what)
              : snprintf(diag->message, sizeof diag->message, "%s: %s", diag->file, what);
  if (n < 0)
    diag->message[0] = '\0';
  return code;
}

// fail fills `diag` (if any) and returns `code`.
SRV_PRINTF(5, 6)
static int fail(srv_config_diag *diag, const char *file, unsigned line, int code, const char *fmt,
                ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(diag, file, line, code, fmt, ap);
  va_end(ap);
  return rc;
}

// describe_byte writes a quoted printable byte, or its hex code, into `out`.
static const char *describe_byte(uint8_t b, char out[8]) {
  if (b > 0x20 && b < 0x7f && b != '\'')
    snprintf(out, 8, "'%c'", b);
  else
    snprintf(out, 8, "0x%02x", b);
  return out;
}

// excerpt copies a value for a message: at most 40 bytes, non-printable bytes
// shown as '?', "..." when cut.
#define EXCERPT_SIZE 48
static const char *excerpt(const char *value, size_t len, char out[EXCERPT_SIZE]) {
  size_t n = len > 40 ? 40 : len;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = (uint8_t)value[i];
    out[i] = (b >= 0x20 && b < 0x7f) ? (char)b : '?';
  }
  if (n < len) {
    memcpy(out + n, "...", 4);
  } else {
    out[n] = '\0';
  }
  return out;
}

// Storage.

static int arena_reserve(srv_config *cfg, size_t extra) {
  if (cfg->arena_cap - cfg->arena_len >= extra)
    return 0;
  size_t need = cfg->arena_len + extra;
  size_t cap = cfg->arena_cap > 0 ? cfg->arena_cap : 1024;
  while (cap < need)
    cap *= 2; // cannot overflow: need is bounded by a few times SRV_CONFIG_MAX_FILE
  char *p = realloc(cfg->arena, cap);
  if (p == NULL)
    return -ENOMEM;
  cfg->arena = p;
  cfg->arena_cap = cap;
  return 0;
}

static int entries_reserve(srv_config *cfg) {
  if (cfg->num_entries < cfg->entries_cap)
    return 0;
  size_t cap = cfg->entries_cap > 0 ? cfg->entries_cap * 2 : 16;
  if (cap > SRV_CONFIG_MAX_ENTRIES)
    cap = SRV_CONFIG_MAX_ENTRIES;
  struct entry *p = realloc(cfg->entries, cap * sizeof *p);
  if (p == NULL)
    return -ENOMEM;
  cfg->entries = p;
  cfg->entries_cap = cap;
  return 0;
}

// find_slot returns the slot that holds `key`, or the empty slot where it
// would go.
static size_t find_slot(const srv_config *cfg, const char *key, size_t key_len) {
  size_t slot = hash_key(key, key_len) & (HASH_SLOTS - 1);
  while (cfg->slots[slot] != 0) {
    const struct entry *e = &cfg->entries[cfg->slots[slot] - 1];
    if (strcmp(cfg->arena + e->key_off, key) == 0)
      break;
    slot = (slot + 1) & (HASH_SLOTS - 1);
  }
  return slot;
}

// Parsing.

struct parser {
  srv_config *cfg;
  srv_config_diag *diag;
  char section[SRV_CONFIG_MAX_NAME + 1];
  size_t section_len; // 0 before the first section header
  uint8_t *logical;   // the logical line being assembled; never longer than the input
  size_t logical_cap;
  size_t logical_len;
  size_t last_join;    // offset just past the last continuation join, 0 if none
  unsigned start_line; // the physical line the logical line starts on
};

SRV_PRINTF(4, 5)
static int parse_fail(struct parser *p, unsigned line, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vfail(p->diag, p->cfg->name, line, code, fmt, ap);
  va_end(ap);
  return rc;
}

// check_comment is called with `c` at a '#' that starts a comment. A comment
// that spans a continuation join would swallow the continued line in
// silence, so that is an error.
static int check_comment(struct parser *p, const struct cur *c) {
  size_t offset = (size_t)(c->p - p->logical);
  if (p->last_join > offset)
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX,
                      "a comment cannot be continued with '\\' (the next line would be "
                      "part of the comment)");
  return 0;
}

// expect_end accepts blanks and an optional comment after `what`.
static int expect_end(struct parser *p, struct cur *c, const char *what) {
  uint8_t b;
  (void)cur_skip_blanks(c);
  if (!cur_peek_u8(c, &b))
    return 0;
  if (b == '#')
    return check_comment(p, c);
  char desc[8];
  return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "unexpected %s after %s",
                    describe_byte(b, desc), what);
}

static int parse_section(struct parser *p, struct cur *c) {
  struct cur name;
  uint8_t b;
  char desc[8];
  (void)cur_skip(c, 1); // '['
  (void)cur_skip_blanks(c);
  cur_get_span(c, is_section_char, &name);
  if (cur_len(&name) > SRV_CONFIG_MAX_NAME)
    return parse_fail(p, p->start_line, SRV_ERR_LIMIT, "section name longer than %u bytes",
                      SRV_CONFIG_MAX_NAME);
  (void)cur_skip_blanks(c);
  if (!cur_get_u8(c, &b))
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "missing ']' in section header");
  if (b != ']')
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX,
                      "invalid character %s in section name (use a-z, 0-9, '_', '.', '-')",
                      describe_byte(b, desc));
  if (cur_len(&name) == 0)
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "empty section name");
  memcpy(p->section, name.p, name.len);
  p->section[name.len] = '\0';
  p->section_len = name.len;
  return expect_end(p, c, "section header");
}

// parse_quoted unescapes the quoted string at `c` (which starts at '"') into
// `dst`, which has room for cur_len(c) bytes.
static int parse_quoted(struct parser *p, struct cur *c, char *dst, size_t *dst_len) {
  uint8_t b;
  size_t n = 0;
  (void)cur_skip(c, 1); // '"'
  for (;;) {
    if (!cur_get_u8(c, &b))
      return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "unterminated quoted string");
    if (b == '"')
      break;
    if (b == '\\') {
      char desc[8];
      if (!cur_get_u8(c, &b))
        return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "unterminated quoted string");
      switch (b) {
      case '\\':
      case '"':
        break;
      case 'n':
        b = '\n';
        break;
      case 't':
        b = '\t';
        break;
      default:
        return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX,
                          "unknown escape: backslash before %s (use \\\\, \\\", \\n or \\t)",
                          describe_byte(b, desc));
      }
    }
    dst[n++] = (char)b;
  }
  *dst_len = n;
  return expect_end(p, c, "the closing quote");
}

// parse_value reads the value after '=' into `dst`, which has room for
// cur_len(c) bytes.
static int parse_value(struct parser *p, struct cur *c, char *dst, size_t *dst_len) {
  uint8_t b;
  size_t blanks = cur_skip_blanks(c);
  if (cur_peek_u8(c, &b) && b == '"')
    return parse_quoted(p, c, dst, dst_len);

  // A bare value ends at a '#' that follows a blank (the blanks between '='
  // and the value count), or at the end of the line.
  struct cur value = *c;
  int prev_blank = blanks > 0;
  while (cur_peek_u8(c, &b)) {
    if (b == '#' && prev_blank) {
      int rc = check_comment(p, c);
      if (rc < 0)
        return rc;
      break;
    }
    prev_blank = is_blank(b);
    (void)cur_skip(c, 1);
  }
  value.len -= cur_len(c);
  cur_trim_blanks_end(&value);
  if (value.len > 0)
    memcpy(dst, value.p, value.len);
  *dst_len = value.len;
  return 0;
}

static int parse_assignment(struct parser *p, struct cur *c) {
  srv_config *cfg = p->cfg;
  struct cur key;
  uint8_t b = 0;
  char desc[8];

  cur_get_span(c, is_key_char, &key);
  if (cur_len(&key) == 0) {
    (void)cur_peek_u8(c, &b);
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX,
                      "invalid character %s at the start of a line (expected a key of a-z, 0-9 "
                      "and '_', a [section] or a # comment)",
                      describe_byte(b, desc));
  }
  if (cur_len(&key) > SRV_CONFIG_MAX_NAME)
    return parse_fail(p, p->start_line, SRV_ERR_LIMIT, "key name longer than %u bytes",
                      SRV_CONFIG_MAX_NAME);
  size_t blanks = cur_skip_blanks(c);
  if (!cur_get_u8(c, &b))
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "expected '=' after key '%.*s'",
                      (int)key.len, (const char *)key.p);
  if (b != '=') {
    if (blanks == 0)
      return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX,
                        "invalid character %s in key '%.*s' (keys use a-z, 0-9 and '_')",
                        describe_byte(b, desc), (int)key.len, (const char *)key.p);
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_SYNTAX, "expected '=' after key '%.*s'",
                      (int)key.len, (const char *)key.p);
  }

  if (cfg->num_entries >= SRV_CONFIG_MAX_ENTRIES)
    return parse_fail(p, p->start_line, SRV_ERR_LIMIT, "more than %u keys", SRV_CONFIG_MAX_ENTRIES);

  // Room for "section.key", its NUL, the value (never longer than the rest
  // of the line) and its NUL.
  size_t key_len = (p->section_len > 0 ? p->section_len + 1 : 0) + key.len;
  if (arena_reserve(cfg, key_len + 1 + cur_len(c) + 1) < 0 || entries_reserve(cfg) < 0)
    return parse_fail(p, p->start_line, -ENOMEM, "out of memory");
  size_t key_off = cfg->arena_len;
  char *full = cfg->arena + key_off;
  size_t n = 0;
  if (p->section_len > 0) {
    memcpy(full, p->section, p->section_len);
    n = p->section_len;
    full[n++] = '.';
  }
  memcpy(full + n, key.p, key.len);
  full[key_len] = '\0';

  size_t slot = find_slot(cfg, full, key_len);
  if (cfg->slots[slot] != 0) {
    const struct entry *first = &cfg->entries[cfg->slots[slot] - 1];
    return parse_fail(p, p->start_line, SRV_ERR_CONFIG_DUPLICATE,
                      "key '%s' is defined twice (lines %u and %u)", full, first->line,
                      p->start_line);
  }

  size_t value_off = key_off + key_len + 1;
  size_t value_len = 0;
  int rc = parse_value(p, c, cfg->arena + value_off, &value_len);
  if (rc < 0)
    return rc;
  cfg->arena[value_off + value_len] = '\0';
  cfg->arena_len = value_off + value_len + 1;

  struct entry *e = &cfg->entries[cfg->num_entries];
  e->key_off = key_off;
  e->value_off = value_off;
  e->value_len = value_len;
  e->line = p->start_line;
  atomic_init(&e->used, false);
  cfg->slots[slot] = (uint16_t)(cfg->num_entries + 1);
  cfg->num_entries++;
  return 0;
}

static int parse_logical(struct parser *p) {
  struct cur c;
  uint8_t b;
  cur_init(&c, p->logical, p->logical_len);
  (void)cur_skip_blanks(&c); // a line may start with a join
  if (!cur_peek_u8(&c, &b))
    return 0;
  if (b == '[')
    return parse_section(p, &c);
  return parse_assignment(p, &c);
}

static int append_logical(struct parser *p, const struct cur *bytes) {
  // Joins only ever shrink the text ("\\\n" becomes " "), so the logical line
  // fits in a buffer as long as the input; the check keeps it so.
  if (p->logical_cap - p->logical_len < cur_len(bytes))
    return parse_fail(p, p->start_line, SRV_ERR_LIMIT, "logical line too long");
  if (cur_len(bytes) > 0)
    memcpy(p->logical + p->logical_len, bytes->p, bytes->len);
  p->logical_len += bytes->len;
  return 0;
}

// check_line rejects control characters other than tab in a physical line.
static int check_line(struct parser *p, const struct cur *line, unsigned lineno) {
  for (size_t i = 0; i < line->len; i++) {
    uint8_t b = line->p[i];
    if ((b < 0x20 && b != '\t') || b == 0x7f)
      return parse_fail(p, lineno, SRV_ERR_CONFIG_SYNTAX, "control character 0x%02x", b);
  }
  return 0;
}

static int parse_text(struct parser *p, const uint8_t *text, size_t len) {
  static const uint8_t bom[3] = {0xef, 0xbb, 0xbf};
  struct cur in;
  unsigned lineno = 0;
  int continuing = 0;
  int rc;

  cur_init(&in, text, len);
  if (len >= sizeof bom && memcmp(text, bom, sizeof bom) == 0)
    (void)cur_skip(&in, sizeof bom);

  while (cur_len(&in) > 0) {
    struct cur line;
    uint8_t b;
    lineno++;
    if (cur_get_until(&in, '\n', &line))
      (void)cur_skip(&in, 1);
    else
      (void)cur_get_bytes(&in, cur_len(&in), &line);
    if (line.len > 0 && line.p[line.len - 1] == '\r')
      line.len--;
    if (line.len > SRV_CONFIG_MAX_LINE)
      return parse_fail(p, lineno, SRV_ERR_LIMIT, "line longer than %u bytes", SRV_CONFIG_MAX_LINE);
    if ((rc = check_line(p, &line, lineno)) < 0)
      return rc;

    (void)cur_skip_blanks(&line);
    int blank = !cur_peek_u8(&line, &b);
    int comment = !blank && b == '#';
    if (!continuing) {
      if (blank || comment)
        continue;
      p->logical_len = 0;
      p->last_join = 0;
      p->start_line = lineno;
    } else {
      if (blank || comment)
        return parse_fail(p, lineno, SRV_ERR_CONFIG_SYNTAX,
                          "the line before ends in '\\' but this line is %s",
                          blank ? "blank" : "a comment");
      static const uint8_t space = ' ';
      struct cur join;
      cur_init(&join, &space, 1);
      if ((rc = append_logical(p, &join)) < 0)
        return rc;
      p->last_join = p->logical_len;
    }

    cur_trim_blanks_end(&line);
    continuing = line.len > 0 && line.p[line.len - 1] == '\\';
    if (continuing) {
      line.len--;
      cur_trim_blanks_end(&line);
    }
    if ((rc = append_logical(p, &line)) < 0)
      return rc;
    if (!continuing && (rc = parse_logical(p)) < 0)
      return rc;
  }
  if (continuing)
    return parse_fail(p, lineno, SRV_ERR_CONFIG_SYNTAX,
                      "the last line ends in '\\' but no line follows");
  return 0;
}

int srv_config_parse(srv_config **out, const char *text, size_t len, const char *name_for_messages,
                     srv_config_diag *diag) {
  const char *name = name_for_messages != NULL ? name_for_messages : "(config)";
  if (out == NULL || (text == NULL && len > 0))
    return fail(diag, name, 0, SRV_ERR_INVALID_ARGUMENT, "invalid argument");
  *out = NULL;
  if (len > SRV_CONFIG_MAX_FILE)
    return fail(diag, name, 0, SRV_ERR_LIMIT, "larger than %u bytes", SRV_CONFIG_MAX_FILE);

  srv_config *cfg = calloc(1, sizeof *cfg);
  if (cfg == NULL)
    return fail(diag, name, 0, -ENOMEM, "out of memory");
  copy_name(cfg->name, name);
  struct parser p = {.cfg = cfg, .diag = diag, .logical_cap = len};
  cfg->slots = calloc(HASH_SLOTS, sizeof *cfg->slots);
  p.logical = malloc(len > 0 ? len : 1);
  // The arena always exists, so that an empty configuration is valid too.
  if (cfg->slots == NULL || p.logical == NULL || arena_reserve(cfg, len + 1) < 0) {
    free(p.logical);
    srv_config_free(cfg);
    return fail(diag, name, 0, -ENOMEM, "out of memory");
  }

  int rc = parse_text(&p, (const uint8_t *)text, len);
  free(p.logical);
  if (rc < 0) {
    srv_config_free(cfg);
    return rc;
  }
  *out = cfg;
  return 0;
}

// Loading.

int srv_config_load(srv_config **out, const char *path, srv_config_diag *diag) {
  if (out == NULL || path == NULL)
    return fail(diag, path != NULL ? path : "(config)", 0, SRV_ERR_INVALID_ARGUMENT,
                "invalid argument");
  *out = NULL;

  int fd;
  do
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int err = errno;
    return fail(diag, path, 0, -err, "cannot open: %s", corvid_errtext_generic(-err));
  }

  int rc = 0;
  char *buf = NULL;
  size_t len = 0;
  struct stat st;
  if (fstat(fd, &st) < 0) {
    int err = errno;
    rc = fail(diag, path, 0, -err, "cannot stat: %s", corvid_errtext_generic(-err));
    goto out;
  }
  if (S_ISDIR(st.st_mode)) {
    rc = fail(diag, path, 0, -EISDIR, "is a directory");
    goto out;
  }
  if (S_ISREG(st.st_mode) && st.st_size > (off_t)SRV_CONFIG_MAX_FILE) {
    rc = fail(diag, path, 0, SRV_ERR_LIMIT, "larger than %u bytes", SRV_CONFIG_MAX_FILE);
    goto out;
  }

  // Bounded reads: never more than SRV_CONFIG_MAX_FILE + 1 bytes, whatever the
  // file claims, since it may grow while we read or not be a regular file.
  size_t cap_limit = (size_t)SRV_CONFIG_MAX_FILE + 1;
  size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 4096;
  buf = malloc(cap);
  if (buf == NULL) {
    rc = fail(diag, path, 0, -ENOMEM, "out of memory");
    goto out;
  }
  for (;;) {
    if (len == cap) {
      if (cap == cap_limit)
        break;
      size_t new_cap = cap * 2 < cap_limit ? cap * 2 : cap_limit;
      char *p = realloc(buf, new_cap);
      if (p == NULL) {
        rc = fail(diag, path, 0, -ENOMEM, "out of memory");
        goto out;
      }
      buf = p;
      cap = new_cap;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      rc = fail(diag, path, 0, -err, "cannot read: %s", corvid_errtext_generic(-err));
      goto out;
    }
    if (n == 0)
      break;
    len += (size_t)n;
  }
  if (len > SRV_CONFIG_MAX_FILE) {
    rc = fail(diag, path, 0, SRV_ERR_LIMIT, "larger than %u bytes", SRV_CONFIG_MAX_FILE);
    goto out;
  }
  rc = srv_config_parse(out, buf, len, path, diag);

out:
  free(buf);
  close(fd);
  return rc;
}

void srv_config_free(srv_config *cfg) {
  if (cfg == NULL)
    return;
  free(cfg->arena);
  free(cfg->entries);
  free(cfg->slots);
  free(cfg);
}

// Getters.

// lookup finds `key` and marks it used; NULL when absent.
static struct entry *lookup(const srv_config *cfg, const char *key) {
  size_t key_len = strlen(key);
  if (key_len > 2 * SRV_CONFIG_MAX_NAME + 1)
    return NULL;
  size_t slot = find_slot(cfg, key, key_len);
  if (cfg->slots[slot] == 0)
    return NULL;
  struct entry *e = &cfg->entries[cfg->slots[slot] - 1];
  atomic_store_explicit(&e->used, true, memory_order_relaxed);
  return e;
}

// value_fail reports a bad value of entry `e`, prefixed with its key.
SRV_PRINTF(5, 6)
static int value_fail(const srv_config *cfg, const struct entry *e, srv_config_diag *diag, int code,
                      const char *fmt, ...) {
  char what[SRV_CONFIG_DIAG_MESSAGE_SIZE];
  va_list ap;
  va_start(ap, fmt);
  if (vsnprintf(what, sizeof what, fmt, ap) < 0)
    what[0] = '\0';
  va_end(ap);
  return fail(diag, cfg->name, e->line, code, "key '%s': %s", cfg->arena + e->key_off, what);
}

static int arg_fail(const srv_config *cfg, const char *key, srv_config_diag *diag,
                    const char *what) {
  return fail(diag, cfg != NULL ? cfg->name : "(config)", 0, SRV_ERR_INVALID_ARGUMENT,
              "key '%s': %s", key != NULL ? key : "(null)", what);
}

enum digits { DIGITS_NONE, DIGITS_OK, DIGITS_OVERFLOW };

// parse_digits reads one or more decimal digits. On overflow it still
// consumes all the digits, so that the caller can tell "too large" from
// "trailing garbage".
static enum digits parse_digits(struct cur *c, uint64_t *out) {
  uint64_t v = 0;
  int overflow = 0;
  size_t n = 0;
  uint8_t b;
  while (cur_peek_u8(c, &b) && b >= '0' && b <= '9') {
    uint64_t d = (uint64_t)(b - '0');
    if (v > (UINT64_MAX - d) / 10)
      overflow = 1;
    else
      v = v * 10 + d;
    (void)cur_skip(c, 1);
    n++;
  }
  if (n == 0)
    return DIGITS_NONE;
  if (overflow)
    return DIGITS_OVERFLOW;
  *out = v;
  return DIGITS_OK;
}

// equals_ascii_nocase compares `c`'s bytes with `word` ignoring ASCII case
// (independent of the locale).
static int equals_ascii_nocase(const struct cur *c, const char *word) {
  size_t n = strlen(word);
  if (cur_len(c) != n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (ascii_lower(c->p[i]) != (uint8_t)word[i])
      return 0;
  return 1;
}

static void value_cur(const srv_config *cfg, const struct entry *e, struct cur *c) {
  cur_init(c, cfg->arena + e->value_off, e->value_len);
}

int srv_config_reject(const srv_config *cfg, const char *key, srv_config_diag *diag,
                      const char *what) {
  if (cfg == NULL || key == NULL || what == NULL)
    return arg_fail(cfg, key, diag, "invalid argument");
  size_t key_len = strlen(key);
  size_t slot = key_len <= 2 * SRV_CONFIG_MAX_NAME + 1 ? find_slot(cfg, key, key_len) : 0;
  if (key_len > 2 * SRV_CONFIG_MAX_NAME + 1 || cfg->slots[slot] == 0)
    return fail(diag, cfg->name, 0, SRV_ERR_CONFIG_VALUE, "key '%s': %s", key, what);
  return value_fail(cfg, &cfg->entries[cfg->slots[slot] - 1], diag, SRV_ERR_CONFIG_VALUE, "%s",
                    what);
}

int srv_config_get_string(const srv_config *cfg, const char *key, const char *def,
                          const char **out) {
  if (cfg == NULL || key == NULL || out == NULL)
    return SRV_ERR_INVALID_ARGUMENT;
  const struct entry *e = lookup(cfg, key);
  *out = e != NULL ? cfg->arena + e->value_off : def;
  return 0;
}

int srv_config_get_int(const srv_config *cfg, const char *key, int64_t min, int64_t max,
                       int64_t def, int64_t *out, srv_config_diag *diag) {
  if (cfg == NULL || key == NULL || out == NULL)
    return arg_fail(cfg, key, diag, "invalid argument");
  if (min > max || def < min || def > max)
    return arg_fail(cfg, key, diag, "inconsistent minimum, maximum and default");
  const struct entry *e = lookup(cfg, key);
  if (e == NULL) {
    *out = def;
    return 0;
  }

  char ex[EXCERPT_SIZE];
  const char *value = cfg->arena + e->value_off;
  struct cur c;
  uint8_t b;
  int negative = 0;
  uint64_t magnitude = 0;
  value_cur(cfg, e, &c);
  if (cur_peek_u8(&c, &b) && (b == '+' || b == '-')) {
    negative = b == '-';
    (void)cur_skip(&c, 1);
  }
  enum digits d = parse_digits(&c, &magnitude);
  if (d == DIGITS_NONE || cur_len(&c) != 0)
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_VALUE, "invalid integer '%s'",
                      excerpt(value, e->value_len, ex));
  uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  if (d == DIGITS_OVERFLOW || magnitude > limit)
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_RANGE, "'%s' is too large",
                      excerpt(value, e->value_len, ex));
  int64_t v;
  if (!negative)
    v = (int64_t)magnitude;
  else if (magnitude == (uint64_t)INT64_MAX + 1)
    v = INT64_MIN;
  else
    v = -(int64_t)magnitude;
  if (v < min || v > max)
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_RANGE,
                      "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", v, min, max);
  *out = v;
  return 0;
}

int srv_config_get_bool(const srv_config *cfg, const char *key, bool def, bool *out,
                        srv_config_diag *diag) {
  static const struct {
    const char *word;
    bool value;
  } words[] = {
      {"yes", true}, {"true", true},   {"on", true},   {"1", true},
      {"no", false}, {"false", false}, {"off", false}, {"0", false},
  };
  if (cfg == NULL || key == NULL || out == NULL)
    return arg_fail(cfg, key, diag, "invalid argument");
  const struct entry *e = lookup(cfg, key);
  if (e == NULL) {
    *out = def;
    return 0;
  }
  struct cur c;
  value_cur(cfg, e, &c);
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (equals_ascii_nocase(&c, words[i].word)) {
      *out = words[i].value;
      return 0;
    }
  }
  char ex[EXCERPT_SIZE];
  return value_fail(cfg, e, diag, SRV_ERR_CONFIG_VALUE,
                    "invalid boolean '%s' (use yes/no, true/false, on/off or 1/0)",
                    excerpt(cfg->arena + e->value_off, e->value_len, ex));
}

// A quantity is digits followed by a unit from a table: sizes take an
// optional, case-insensitive suffix, durations a mandatory, exact unit
// (except a bare "0").
struct quantity_unit {
  const char *name;
  uint64_t multiplier;
};

struct quantity_kind {
  const struct quantity_unit *units;
  size_t num_units;
  bool ignore_case;
  bool bare_zero;         // "0" is valid without a unit
  const char *unit_label; // in range messages: "bytes", "ms"
  const char *invalid;    // message for a value that is not a quantity
  const char *no_unit;    // message for digits without a unit, or NULL
};

static const struct quantity_unit size_units[] = {
    {"", 1},
    {"b", 1},
    {"k", UINT64_C(1) << 10},
    {"kb", UINT64_C(1) << 10},
    {"kib", UINT64_C(1) << 10},
    {"m", UINT64_C(1) << 20},
    {"mb", UINT64_C(1) << 20},
    {"mib", UINT64_C(1) << 20},
    {"g", UINT64_C(1) << 30},
    {"gb", UINT64_C(1) << 30},
    {"gib", UINT64_C(1) << 30},
    {"t", UINT64_C(1) << 40},
    {"tb", UINT64_C(1) << 40},
    {"tib", UINT64_C(1) << 40},
};

static const struct quantity_kind size_kind = {
    size_units, sizeof size_units / sizeof size_units[0],
    true,       false,
    "bytes",    "invalid size '%s' (use digits and an optional K, M, G or T suffix)",
    NULL,
};

static const struct quantity_unit duration_units[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000}, {"d", 24 * 60 * 60 * 1000},
};

static const struct quantity_kind duration_kind = {
    duration_units,
    sizeof duration_units / sizeof duration_units[0],
    false,
    true,
    "ms",
    "invalid duration '%s' (use digits and a unit: ms, s, m, h or d)",
    "duration '%s' has no unit (use ms, s, m, h or d)",
};

static bool unit_matches(const struct cur *c, const char *unit, bool ignore_case) {
  if (ignore_case)
    return equals_ascii_nocase(c, unit);
  return cur_len(c) == strlen(unit) && memcmp(c->p, unit, c->len) == 0;
}

static int get_quantity(const srv_config *cfg, const char *key, uint64_t min, uint64_t max,
                        uint64_t def, uint64_t *out, srv_config_diag *diag,
                        const struct quantity_kind *kind) {
  if (cfg == NULL || key == NULL || out == NULL)
    return arg_fail(cfg, key, diag, "invalid argument");
  if (min > max || def < min || def > max)
    return arg_fail(cfg, key, diag, "inconsistent minimum, maximum and default");
  const struct entry *e = lookup(cfg, key);
  if (e == NULL) {
    *out = def;
    return 0;
  }

  char ex[EXCERPT_SIZE];
  const char *value = cfg->arena + e->value_off;
  struct cur c;
  uint64_t n = 0;
  value_cur(cfg, e, &c);
  enum digits d = parse_digits(&c, &n);
  (void)cur_skip_blanks(&c);
  uint64_t multiplier = 0;
  if (kind->bare_zero && d == DIGITS_OK && n == 0 && cur_len(&c) == 0)
    multiplier = 1;
  for (size_t i = 0; d != DIGITS_NONE && multiplier == 0 && i < kind->num_units; i++) {
    if (unit_matches(&c, kind->units[i].name, kind->ignore_case))
      multiplier = kind->units[i].multiplier;
  }
  if (multiplier == 0) {
    const char *fmt = kind->invalid;
    if (kind->no_unit != NULL && d != DIGITS_NONE && cur_len(&c) == 0)
      fmt = kind->no_unit;
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_VALUE, fmt, excerpt(value, e->value_len, ex));
  }
  if (d == DIGITS_OVERFLOW || n > UINT64_MAX / multiplier)
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_RANGE, "'%s' is too large",
                      excerpt(value, e->value_len, ex));
  uint64_t v = n * multiplier;
  if (v < min || v > max)
    return value_fail(cfg, e, diag, SRV_ERR_CONFIG_RANGE,
                      "'%s' (%" PRIu64 " %s) is out of range [%" PRIu64 ", %" PRIu64 "] %s",
                      excerpt(value, e->value_len, ex), v, kind->unit_label, min, max,
                      kind->unit_label);
  *out = v;
  return 0;
}

int srv_config_get_size(const srv_config *cfg, const char *key, uint64_t min, uint64_t max,
                        uint64_t def, uint64_t *out, srv_config_diag *diag) {
  return get_quantity(cfg, key, min, max, def, out, diag, &size_kind);
}

int srv_config_get_duration(const srv_config *cfg, const char *key, uint64_t min_ms,
                            uint64_t max_ms, uint64_t def_ms, uint64_t *out_ms,
                            srv_config_diag *diag) {
  return get_quantity(cfg, key, min_ms, max_ms, def_ms, out_ms, diag, &duration_kind);
}

int srv_config_get_list(const srv_config *cfg, const char *key, const char *def,
                        srv_config_list *out) {
  if (cfg == NULL || key == NULL || out == NULL)
    return SRV_ERR_INVALID_ARGUMENT;
  const struct entry *e = lookup(cfg, key);
  if (e != NULL) {
    out->pos_ = cfg->arena + e->value_off;
    out->end_ = out->pos_ + e->value_len;
  } else if (def != NULL) {
    out->pos_ = def;
    out->end_ = def + strlen(def);
  } else {
    out->pos_ = NULL;
    out->end_ = NULL;
  }
  return 0;
}

static int is_list_separator(uint8_t b) {
  return b == ',' || b == ' ' || b == '\t' || b == '\n';
}

static int is_list_item_char(uint8_t b) {
  return !is_list_separator(b);
}

int srv_config_list_next(srv_config_list *it, const char **item, size_t *item_len) {
  if (it == NULL || item == NULL || item_len == NULL)
    return SRV_ERR_INVALID_ARGUMENT;
  if (it->pos_ == NULL)
    return 0;
  struct cur c, skipped, word;
  cur_init(&c, it->pos_, (size_t)(it->end_ - it->pos_));
  cur_get_span(&c, is_list_separator, &skipped);
  cur_get_span(&c, is_list_item_char, &word);
  it->pos_ = (const char *)c.p;
  if (cur_len(&word) == 0)
    return 0;
  *item = (const char *)word.p;
  *item_len = word.len;
  return 1;
}

int srv_config_unused(const srv_config *cfg, srv_config_unused_fn fn, void *ctx) {
  if (cfg == NULL)
    return SRV_ERR_INVALID_ARGUMENT;
  int count = 0;
  for (size_t i = 0; i < cfg->num_entries; i++) {
    const struct entry *e = &cfg->entries[i];
    if (atomic_load_explicit(&e->used, memory_order_relaxed))
      continue;
    if (fn != NULL)
      fn(ctx, cfg->arena + e->key_off, cfg->name, e->line);
    count++;
  }
  return count;
}
