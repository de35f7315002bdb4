// bench_inputs.c: the deterministic inputs of bench_encodify and the plain
// reference codecs that encode them. A fixed-seed generator makes random
// binary, realistic mail text and mailbox names; the reference encoders turn
// them into the MIME-wrapped and unwrapped Base64, quoted-printable, Base32,
// hex and modified UTF-7 that the decoding benchmarks read and that every
// implementation's output is checked against. They are written for clarity,
// not speed, and depend on nothing but libc, so that a bug in the codecs under
// test cannot hide in the expected answers.
#include <string.h>

#include "bench_internal.h"

// splitmix64: tiny, fast and well mixed; identical on every platform.
struct rng {
  uint64_t state;
};

static uint64_t rng_next(struct rng *r) {
  uint64_t z = (r->state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

// rng_below returns a value in [0, n).
static size_t rng_below(struct rng *r, size_t n) {
  return (size_t)(rng_next(r) % n);
}

void bench_gen_random(uint8_t *buf, size_t len, uint64_t seed) {
  struct rng r = {seed};
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t v = rng_next(&r);
    memcpy(buf + i, &v, 8);
  }
  if (i < len) {
    uint64_t v = rng_next(&r);
    memcpy(buf + i, &v, len - i);
  }
}

// A writer that stops silently at the end of its buffer.
struct sink {
  uint8_t *p;
  size_t len, cap;
};

static void put(struct sink *s, const void *bytes, size_t n) {
  if (n > s->cap - s->len)
    n = s->cap - s->len;
  memcpy(s->p + s->len, bytes, n);
  s->len += n;
}

static void put_str(struct sink *s, const char *str) {
  put(s, str, strlen(str));
}

static int sink_full(const struct sink *s) {
  return s->len == s->cap;
}

static const char *const words_plain[] = {
    "the",     "and",      "message", "meeting",  "please", "attached", "report",   "we",
    "will",    "send",     "you",     "for",      "with",   "this",     "that",     "project",
    "team",    "tomorrow", "mail",    "server",   "review", "budget",   "draft",    "invoice",
    "thanks",  "regards",  "of",      "to",       "in",     "is",       "it",       "on",
    "le",      "la",       "les",     "pour",     "avec",   "nous",     "vous",     "est",
    "une",     "dans",     "der",     "die",      "das",    "und",      "mit",      "nicht",
    "wir",     "ist",      "el",      "los",      "para",   "con",      "que",      "una",
    "por",     "schedule", "Monday",  "contract", "2024",   "Q3",       "customer", "update",
    "payment", "delivery", "order",   "account",
};

// Every accented word is representable in Latin-1 (U+00A0..U+00FF only).
static const char *const words_accented[] = {
    "café",   "déjà",    "élève",    "à",     "été",         "où",     "français",
    "année",  "réunion", "prévu",    "über",  "für",         "schön",  "Grüße",
    "Müller", "Straße",  "können",   "señor", "mañana",      "niño",   "también",
    "está",   "reunión", "garçon",   "naïve", "información", "Zürich", "crème",
    "déçu",   "Bürger",  "Ökonomie", "año",   "¿Qué",        "¡Hola",  "fiancée",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// put_word writes a UTF-8 word, or its Latin-1 form when `latin1`.
static void put_word(struct sink *s, const char *w, int latin1) {
  if (!latin1) {
    put_str(s, w);
    return;
  }
  for (const uint8_t *p = (const uint8_t *)w; *p != 0; p++) {
    uint8_t c = *p;
    if ((c == 0xc2 || c == 0xc3) && p[1] != 0) {
      c = (uint8_t)(((c & 0x03) << 6) | (p[1] & 0x3f));
      p++;
    }
    put(s, &c, 1);
  }
}

void bench_gen_text(uint8_t *buf, size_t len, uint64_t seed) {
  struct rng r = {seed};
  struct sink s = {buf, 0, len};
  while (!sink_full(&s)) {
    int latin1 = rng_below(&r, 4) == 0;
    int long_lines = rng_below(&r, 10) < 3; // a paragraph on one line
    size_t words = 20 + rng_below(&r, 80);
    size_t col = 0;
    for (size_t w = 0; w < words && !sink_full(&s); w++) {
      const char *word;
      char token[16];
      if (rng_below(&r, 300) == 0) {
        // Code-ish tokens put '=' into the text now and then.
        token[0] = (char)('a' + rng_below(&r, 26));
        token[1] = '=';
        token[2] = (char)('0' + rng_below(&r, 10));
        token[3] = 0;
        word = token;
      } else if (rng_below(&r, 10) == 0) {
        word = words_accented[rng_below(&r, COUNT(words_accented))];
      } else {
        word = words_plain[rng_below(&r, COUNT(words_plain))];
      }
      size_t wlen = strlen(word);
      if (col > 0 && !long_lines && col + 1 + wlen > 72) {
        if (rng_below(&r, 20) == 0)
          put_str(&s, " "); // trailing white space, which QP must encode
        put_str(&s, "\r\n");
        col = 0;
      }
      if (col > 0) {
        put_str(&s, rng_below(&r, 400) == 0 ? "\t" : " ");
        col++;
      }
      put_word(&s, word, latin1);
      col += wlen;
      size_t p = rng_below(&r, 30);
      if (p < 2) {
        put_str(&s, p == 0 ? "," : ".");
        col++;
      }
    }
    put_str(&s, ".\r\n\r\n");
  }
}

static const char *const mailbox_names[] = {
    "INBOX",
    "Entwürfe",
    "Gesendete Objekte",
    "Éléments envoyés",
    "Corbeille",
    "Отправленные",
    "Входящие",
    "Черновики",
    "送信済みアイテム",
    "下書き",
    "受信トレイ",
    "已发送邮件",
    "草稿箱",
    "Προσχέδια",
    "Απεσταλμένα",
    "נשלחו",
    "المرسلة",
    "Projects & Plans",
    "R&D",
    "Rechnungen 2024",
    "📁 Archive",
    "Spam",
    "Papelera",
    "Enviados",
    "Borradores",
    "Lixo",
    "Kunden/Müller",
    "Jätteposti",
    "Wysłane",
    "Đã gửi",
};

void bench_gen_mailboxes(uint8_t *buf, size_t len, uint64_t seed) {
  struct rng r = {seed};
  struct sink s = {buf, 0, len};
  for (;;) {
    const char *name = mailbox_names[rng_below(&r, COUNT(mailbox_names))];
    size_t n = strlen(name);
    if (s.len + n + 1 > len)
      break;
    if (s.len > 0)
      put_str(&s, "/");
    put_str(&s, name);
  }
  while (!sink_full(&s))
    put_str(&s, "x"); // ASCII only, so no UTF-8 sequence is cut
}

size_t bench_ref_max_len(size_t in_len) {
  return 4 * in_len + 16;
}

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t bench_ref_b64_encode(uint8_t *out, const uint8_t *in, size_t in_len, int url, int pad,
                            size_t wrap) {
  const char *abc = url ? b64_url : b64_std;
  size_t o = 0, col = 0;
  for (size_t i = 0; i < in_len; i += 3) {
    size_t n = in_len - i < 3 ? in_len - i : 3;
    uint32_t v = (uint32_t)in[i] << 16;
    if (n > 1)
      v |= (uint32_t)in[i + 1] << 8;
    if (n > 2)
      v |= in[i + 2];
    char quad[4] = {abc[v >> 18], abc[(v >> 12) & 63], abc[(v >> 6) & 63], abc[v & 63]};
    size_t emit = n + 1;
    if (pad) {
      for (size_t k = emit; k < 4; k++)
        quad[k] = '=';
      emit = 4;
    }
    for (size_t k = 0; k < emit; k++) {
      if (wrap > 0 && col == wrap) {
        out[o++] = '\r';
        out[o++] = '\n';
        col = 0;
      }
      out[o++] = (uint8_t)quad[k];
      col++;
    }
  }
  if (wrap > 0 && col > 0) {
    out[o++] = '\r';
    out[o++] = '\n';
  }
  return o;
}

static const char hex_upper[] = "0123456789ABCDEF";
static const char hex_lower[] = "0123456789abcdef";

size_t bench_ref_qp_encode(uint8_t *out, const uint8_t *in, size_t in_len, int binary) {
  size_t o = 0, col = 0;
  for (size_t i = 0; i < in_len; i++) {
    uint8_t c = in[i];
    if (!binary && c == '\r' && i + 1 < in_len && in[i + 1] == '\n') {
      out[o++] = '\r';
      out[o++] = '\n';
      col = 0;
      i++;
      continue;
    }
    // White space is literal unless it ends a line (or the whole input).
    int at_eol =
        i + 1 == in_len || (!binary && in[i + 1] == '\r' && i + 2 < in_len && in[i + 2] == '\n');
    int literal = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !at_eol);
    size_t width = literal ? 1 : 3;
    // The last token of a line may reach column 76; any other leaves room for
    // the '=' of a soft line break.
    if (col + width > (at_eol ? 76u : 75u)) {
      out[o++] = '=';
      out[o++] = '\r';
      out[o++] = '\n';
      col = 0;
    }
    if (literal) {
      out[o++] = c;
    } else {
      out[o++] = '=';
      out[o++] = (uint8_t)hex_upper[c >> 4];
      out[o++] = (uint8_t)hex_upper[c & 15];
    }
    col += width;
  }
  return o;
}

static int hex_value(uint8_t c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

size_t bench_ref_qp_decode(uint8_t *out, const uint8_t *in, size_t in_len, size_t max_line) {
  size_t o = 0, line_start = 0;
  for (size_t i = 0; i < in_len && max_line > 0; i++) {
    if (in[i] == '\n') {
      size_t line_len = i - line_start - (i > line_start && in[i - 1] == '\r');
      if (line_len > max_line)
        return (size_t)-1;
      line_start = i + 1;
    }
  }
  if (max_line > 0 && in_len - line_start > max_line)
    return (size_t)-1;
  for (size_t i = 0; i < in_len; i++) {
    if (in[i] != '=') {
      out[o++] = in[i];
    } else if (i + 1 < in_len && in[i + 1] == '\n') {
      i += 1;
    } else if (i + 2 < in_len && in[i + 1] == '\r' && in[i + 2] == '\n') {
      i += 2;
    } else if (i + 2 < in_len && hex_value(in[i + 1]) >= 0 && hex_value(in[i + 2]) >= 0) {
      out[o++] = (uint8_t)(hex_value(in[i + 1]) << 4 | hex_value(in[i + 2]));
      i += 2;
    } else {
      return (size_t)-1;
    }
  }
  return o;
}

size_t bench_ref_q_encode(uint8_t *out, const uint8_t *in, size_t in_len) {
  size_t o = 0;
  for (size_t i = 0; i < in_len; i++) {
    uint8_t c = in[i];
    if (c == ' ') {
      out[o++] = '_';
    } else if (c > ' ' && c <= '~' && c != '=' && c != '?' && c != '_') {
      out[o++] = c;
    } else {
      out[o++] = '=';
      out[o++] = (uint8_t)hex_upper[c >> 4];
      out[o++] = (uint8_t)hex_upper[c & 15];
    }
  }
  return o;
}

size_t bench_ref_b32_encode(uint8_t *out, const uint8_t *in, size_t in_len) {
  static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  static const size_t chars_for[6] = {0, 2, 4, 5, 7, 8};
  size_t o = 0;
  for (size_t i = 0; i < in_len; i += 5) {
    size_t n = in_len - i < 5 ? in_len - i : 5;
    uint64_t v = 0;
    for (size_t k = 0; k < 5; k++)
      v = v << 8 | (k < n ? in[i + k] : 0);
    for (size_t k = 0; k < 8; k++)
      out[o++] = k < chars_for[n] ? (uint8_t)abc[(v >> (35 - 5 * k)) & 31] : '=';
  }
  return o;
}

size_t bench_ref_hex_encode(uint8_t *out, const uint8_t *in, size_t in_len, int upper) {
  const char *digits = upper ? hex_upper : hex_lower;
  for (size_t i = 0; i < in_len; i++) {
    out[2 * i] = (uint8_t)digits[in[i] >> 4];
    out[2 * i + 1] = (uint8_t)digits[in[i] & 15];
  }
  return 2 * in_len;
}

// Modified Base64 of RFC 3501 5.1.3: ',' in place of '/', no padding.
static const char b64_imap[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+,";

size_t bench_ref_utf7_encode(uint8_t *out, const uint8_t *in, size_t in_len) {
  size_t o = 0;
  uint32_t bits = 0;
  int num_bits = 0, shifted = 0;
  for (size_t i = 0; i < in_len;) {
    uint8_t c = in[i];
    if (c >= 0x20 && c <= 0x7e) {
      if (shifted) {
        if (num_bits > 0)
          out[o++] = (uint8_t)b64_imap[(bits << (6 - num_bits)) & 63];
        out[o++] = '-';
        shifted = 0;
        bits = 0;
        num_bits = 0;
      }
      out[o++] = c;
      if (c == '&')
        out[o++] = '-';
      i++;
      continue;
    }
    // The input is valid UTF-8 (bench_gen_mailboxes makes it so).
    uint32_t cp;
    size_t n;
    if (c < 0x80) {
      cp = c, n = 1;
    } else if (c < 0xe0) {
      cp = c & 0x1f, n = 2;
    } else if (c < 0xf0) {
      cp = c & 0x0f, n = 3;
    } else {
      cp = c & 0x07, n = 4;
    }
    for (size_t k = 1; k < n; k++)
      cp = cp << 6 | (in[i + k] & 0x3f);
    i += n;
    if (!shifted) {
      out[o++] = '&';
      shifted = 1;
    }
    uint16_t units[2];
    int num_units = 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      units[0] = (uint16_t)(0xd800 | (cp >> 10));
      units[1] = (uint16_t)(0xdc00 | (cp & 0x3ff));
      num_units = 2;
    } else {
      units[0] = (uint16_t)cp;
    }
    for (int u = 0; u < num_units; u++) {
      bits = bits << 16 | units[u];
      num_bits += 16;
      while (num_bits >= 6) {
        num_bits -= 6;
        out[o++] = (uint8_t)b64_imap[(bits >> num_bits) & 63];
      }
      bits &= (1u << num_bits) - 1;
    }
  }
  if (shifted) {
    if (num_bits > 0)
      out[o++] = (uint8_t)b64_imap[(bits << (6 - num_bits)) & 63];
    out[o++] = '-';
  }
  return o;
}
