// attach.c: the non-text parts of a message: attachments (documents, photos,
// archives, logs, spreadsheets, calendar invitations) with heavy-tailed
// sizes and file names in the sender's language, inline images for
// multipart/related, and detached signatures for multipart/signed. Binary
// content is a real file signature followed by random bytes: it compresses
// as badly as the JPEGs and ZIPs it stands for, and nothing reads further.
#include <stdio.h>
#include <string.h>

#include "mkcorpus_internal.h"

#define TAIL_SHARE 0.03    // attachments drawn from the Pareto tail
#define TAIL_MIN 1048576.0 // where the tail starts (1 MiB)
#define TAIL_ALPHA 1.2
#define TAIL_MAX 7800000.0 // raw bytes; base64 makes ~10 MiB of it
#define MIN_ATTACHMENT 64

enum content { CONTENT_BINARY, CONTENT_TEXT, CONTENT_CSV, CONTENT_LOG, CONTENT_CALENDAR };

struct attachment_kind {
  const char *mime_type;
  const char *extension;
  double median; // raw bytes of the lognormal body of the distribution
  double sigma;
  unsigned weight;
  enum content content;
  const char *magic; // the file format's first bytes
  size_t magic_len;
};

#define MAGIC(s) s, sizeof(s) - 1

static const struct attachment_kind kinds[] = {
    {"application/pdf", "pdf", 150e3, 1.2, 30, CONTENT_BINARY,
     MAGIC("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")},
    {"image/jpeg", "jpg", 600e3, 1.0, 20, CONTENT_BINARY,
     MAGIC("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00")},
    {"image/png", "png", 120e3, 1.0, 9, CONTENT_BINARY,
     MAGIC("\x89PNG\r\n\x1A\n\x00\x00\x00\rIHDR")},
    {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", 45e3, 1.0,
     8, CONTENT_BINARY, MAGIC("PK\x03\x04\x14\x00\x06\x00")},
    {"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx", 30e3, 1.1, 6,
     CONTENT_BINARY, MAGIC("PK\x03\x04\x14\x00\x06\x00")},
    {"application/zip", "zip", 300e3, 1.5, 5, CONTENT_BINARY, MAGIC("PK\x03\x04\x14\x00\x00\x00")},
    {"application/msword", "doc", 60e3, 1.0, 3, CONTENT_BINARY,
     MAGIC("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1")},
    {"application/octet-stream", "bin", 100e3, 1.8, 3, CONTENT_BINARY,
     MAGIC("\x7F"
           "ELF\x02\x01\x01")},
    {"text/plain", "txt", 6e3, 1.2, 4, CONTENT_TEXT, MAGIC("")},
    {"text/plain", "log", 20e3, 1.5, 3, CONTENT_LOG, MAGIC("")},
    {"text/csv", "csv", 15e3, 1.4, 4, CONTENT_CSV, MAGIC("")},
    {"text/calendar", "ics", 2e3, 0.3, 5, CONTENT_CALENDAR, MAGIC("")},
};

static const struct attachment_kind *pick_kind(struct mkc_rng *r) {
  unsigned weights[sizeof kinds / sizeof kinds[0]];
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    weights[i] = kinds[i].weight;
  return &kinds[MKC_PICK(r, weights)];
}

// Raw size: lognormal per kind with a truncated Pareto tail, shrunk on a
// regeneration and clamped to what the message may still hold.
static size_t draw_size(struct mkc_ctx *ctx, const struct attachment_kind *k) {
  double size = mkc_rng_chance(ctx->rng, TAIL_SHARE)
                    ? mkc_pareto_truncated(ctx->rng, TAIL_MIN, TAIL_ALPHA, TAIL_MAX)
                    : mkc_lognormal(ctx->rng, k->median, k->sigma);
  if (size > TAIL_MAX)
    size = TAIL_MAX;
  size *= ctx->scale;
  size_t raw = size < MIN_ATTACHMENT ? MIN_ATTACHMENT : (size_t)size;
  size_t room = mkc_base64_raw_for(ctx->budget, 76);
  if (raw > room)
    raw = room < MIN_ATTACHMENT ? MIN_ATTACHMENT : room;
  size_t cost = mkc_base64_size(raw, 76);
  ctx->budget = ctx->budget > cost ? ctx->budget - cost : 0;
  return raw;
}

// File names as people make them: words of their language joined by
// underscores or spaces, a date or version, now and then a very long name.
static void make_filename(struct mkc_buf *out, struct mkc_rng *r, enum mkc_lang lang,
                          const struct attachment_kind *k) {
  const struct mkc_lang_data *L = mkc_lang(lang);
  if (!strcmp(k->extension, "jpg") && mkc_rng_chance(r, 0.7)) {
    const char *format = mkc_rng_chance(r, 0.5) ? "IMG_%04d.JPG" : "DSC%05d.jpg";
    mkc_buf_printf(out, format, mkc_rng_between(r, 1, 9999));
    return;
  }
  if (!strcmp(k->extension, "png") && lang == MKC_LANG_EN && mkc_rng_chance(r, 0.5)) {
    int v[5];
    mkc_rng_ints(r, v, 5, (const int[]){1, 12, 1, 28, 8, 18, 0, 59, 0, 59});
    mkc_buf_printf(out, "Screenshot 2024-%02d-%02d at %d.%02d.%02d.png", v[0], v[1], v[2], v[3],
                   v[4]);
    return;
  }
  if (!strcmp(k->extension, "ics")) {
    mkc_buf_puts(out, mkc_rng_chance(r, 0.7) ? "invite.ics" : "meeting.ics");
    return;
  }
  bool long_name = mkc_rng_chance(r, 0.1);
  size_t words = long_name ? (size_t)mkc_rng_between(r, 7, 14) : (size_t)mkc_rng_between(r, 1, 3);
  const char *joiner = L->spaced ? (mkc_rng_chance(r, 0.5) ? "_" : " ") : "";
  for (size_t i = 0; i < words; i++) {
    if (i)
      mkc_buf_puts(out, joiner);
    mkc_buf_puts(out, mkc_word_in_range(lang, r, 25));
  }
  if (out->len)
    mkc_capitalize_first(out->data);
  static const char *const suffixes[] = {"", "", "", "_final", "_v2", " (1)", "_2024"};
  mkc_buf_printf(out, "%s.%s", suffixes[mkc_rng_below(r, 7)], k->extension);
}

static void text_attachment(struct mkc_buf *out, struct mkc_rng *r, enum mkc_lang lang,
                            const struct attachment_kind *k, size_t size) {
  static const char *const levels[] = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
  int v[7];
  for (unsigned row = 0; out->len < size; row++) {
    switch (k->content) {
    case CONTENT_CSV:
      if (row == 0)
        mkc_buf_puts(out, "id;name;amount;date\r\n");
      mkc_buf_printf(out, "%u;", row + 1);
      mkc_text_words(out, r, lang, 2, 25);
      mkc_rng_ints(r, v, 4, (const int[]){1, 99999, 0, 99, 1, 12, 1, 28});
      mkc_buf_printf(out, ";%d.%02d;2024-%02d-%02d\r\n", v[0], v[1], v[2], v[3]);
      break;
    case CONTENT_LOG:
      mkc_rng_ints(r, v, 7, (const int[]){1, 12, 1, 28, 0, 23, 0, 59, 0, 59, 0, 5, 1, 16});
      mkc_buf_printf(out, "2024-%02d-%02d %02d:%02d:%02d %s [worker-%d] ", v[0], v[1], v[2], v[3],
                     v[4], levels[v[5]], v[6]);
      mkc_text_words(out, r, MKC_LANG_EN, (size_t)mkc_rng_between(r, 3, 10), 0);
      mkc_buf_puts(out, "\r\n");
      break;
    default: {
      struct mkc_buf para;
      mkc_buf_init(&para);
      mkc_text_words(&para, r, lang, (size_t)mkc_rng_between(r, 20, 80), 0);
      mkc_text_wrap(out, para.data, para.len, "", 72, false, mkc_lang(lang)->spaced);
      mkc_buf_puts(out, "\r\n");
      mkc_buf_cleanup(&para);
      break;
    }
    }
  }
}

static void calendar(struct mkc_buf *out, struct mkc_ctx *ctx, enum mkc_lang lang) {
  struct mkc_rng *r = ctx->rng;
  struct mkc_tm tm;
  mkc_time_split(ctx->plan->date + 86400 * mkc_rng_between(r, 1, 20), &tm);
  char uid[40];
  mkc_rng_hex(r, uid, 32, false);
  struct mkc_buf summary;
  mkc_buf_init(&summary);
  mkc_text_words(&summary, r, lang, (size_t)mkc_rng_between(r, 2, 5), 25);
  int hour_quarters[2];
  mkc_rng_ints(r, hour_quarters, 2, (const int[]){7, 16, 1, 8});
  mkc_buf_printf(out,
                 "BEGIN:VCALENDAR\r\nPRODID:-//Corvid//mkcorpus//EN\r\nVERSION:2.0\r\n"
                 "METHOD:REQUEST\r\nBEGIN:VEVENT\r\nUID:%s\r\n"
                 "DTSTART:%04d%02d%02dT%02d0000Z\r\nDURATION:PT%dM\r\n",
                 uid, tm.year, tm.month, tm.day, hour_quarters[0], 15 * hour_quarters[1]);
  // RFC 5545 3.1 folds at 75 octets; a summary stays under that here.
  char short_summary[61];
  mkc_copy_str(short_summary, sizeof short_summary, mkc_buf_cstr(&summary));
  mkc_buf_printf(out, "SUMMARY:%s\r\n", short_summary);
  mkc_buf_printf(out, "ORGANIZER;CN=Organizer:mailto:%s\r\n", ctx->plan->from.addr);
  mkc_buf_printf(out, "ATTENDEE;RSVP=TRUE:mailto:%s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
                 ctx->plan->owner.addr);
  mkc_buf_cleanup(&summary);
}

// Cuts `text` back to `size` bytes at a line end, never inside a character.
static void trim_text(struct mkc_buf *text, size_t size) {
  if (text->len <= size)
    return;
  size_t cut = size;
  while (cut > 0 && text->data[cut - 1] != '\n')
    cut--;
  if (cut > 0)
    text->len = cut;
}

static void binary_payload(struct mkc_buf *out, struct mkc_rng *r, const struct attachment_kind *k,
                           size_t size) {
  mkc_buf_reserve(out, size);
  size_t magic = k->magic_len < size ? k->magic_len : size;
  mkc_buf_put(out, k->magic, magic);
  mkc_rng_fill(r, out->data + out->len, size - magic);
  out->len += size - magic;
}

static void disposition(struct mkc_ctx *ctx, struct mkc_buf *out, const char *kind,
                        const char *filename, enum mkc_charset cs, const char *lang, size_t size) {
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "Content-Disposition");
  mkc_hdr_tok(&h, kind);
  mkc_hdr_param_2231(&h, "filename", filename, cs, lang);
  if (ctx->sender->mua == MKC_MUA_OUTLOOK) {
    char date[64];
    mkc_format_date(date, sizeof date, ctx->plan->date - 3600, 0, false);
    char size_text[32];
    snprintf(size_text, sizeof size_text, "%zu", size);
    mkc_hdr_param(&h, "size", size_text, false);
    mkc_hdr_param(&h, "creation-date", date, true);
  }
  mkc_hdr_end(&h);
}

static void content_type_with_name(struct mkc_ctx *ctx, struct mkc_buf *out, const char *type,
                                   const char *extra, const char *name, enum mkc_charset cs,
                                   const char *lang) {
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "Content-Type");
  mkc_hdr_tok(&h, type);
  if (extra)
    mkc_hdr_glue(&h, extra);
  // Thunderbird and Outlook repeat the file name as the old name= parameter.
  if (ctx->sender->mua != MKC_MUA_MUTT && ctx->sender->mua != MKC_MUA_APPLE)
    mkc_hdr_param_2231(&h, "name", name, cs, lang);
  mkc_hdr_end(&h);
}

static bool is_text(const struct attachment_kind *k) {
  return k->content != CONTENT_BINARY;
}

void mkc_part_attachment(struct mkc_ctx *ctx, struct mkc_buf *out, enum mkc_lang lang) {
  const struct attachment_kind *k = pick_kind(ctx->rng);
  size_t size = draw_size(ctx, k);
  struct mkc_buf filename, payload;
  mkc_buf_init(&filename);
  mkc_buf_init(&payload);
  make_filename(&filename, ctx->rng, lang, k);
  // RFC 2231 names are UTF-8 nearly always; some old programs use Latin-1.
  enum mkc_charset name_cs = mkc_rng_chance(ctx->rng, 0.1) ? MKC_CS_ISO_8859_1 : MKC_CS_UTF_8;
  const char *name_lang = mkc_rng_chance(ctx->rng, 0.2) ? mkc_lang(lang)->code : NULL;
  if (!mkc_is_ascii(filename.data, filename.len))
    ctx->stats->filenames_2231++;

  enum mkc_cte cte = MKC_CTE_BASE64;
  if (k->content == CONTENT_CALENDAR) {
    calendar(&payload, ctx, lang);
  } else if (is_text(k)) {
    text_attachment(&payload, ctx->rng, lang, k, size);
    trim_text(&payload, size);
  } else {
    binary_payload(&payload, ctx->rng, k, size);
  }
  if (is_text(k))
    cte = mkc_choose_text_cte(ctx, payload.data, payload.len, false);

  char type[160];
  snprintf(type, sizeof type, "%s", k->mime_type);
  const char *extra = !is_text(k)                      ? NULL
                      : k->content == CONTENT_CALENDAR ? "; charset=\"utf-8\"; method=REQUEST"
                                                       : "; charset=\"utf-8\"";
  content_type_with_name(ctx, out, type, extra, mkc_buf_cstr(&filename), name_cs, name_lang);
  mkc_buf_printf(out, "Content-Transfer-Encoding: %s\r\n", mkc_cte_name(cte));
  disposition(ctx, out, "attachment", mkc_buf_cstr(&filename), name_cs, name_lang, payload.len);
  if (ctx->sender->mua == MKC_MUA_GMAIL) {
    char id[16];
    mkc_rng_alnum(ctx->rng, id, 10);
    mkc_buf_printf(out, "Content-ID: <f_%s>\r\nX-Attachment-Id: f_%s\r\n", id, id);
  }
  mkc_buf_puts(out, "\r\n");
  mkc_encode_body(out, cte, payload.data, payload.len);
  // The line break before a boundary belongs to the boundary (RFC 2046
  // 5.1.1): an attachment not in base64 whose bytes end in CRLF needs one
  // more, or it loses its own, as MUAs writing calendar invitations know.
  if (cte != MKC_CTE_BASE64 && payload.len >= 2 &&
      memcmp(payload.data + payload.len - 2, "\r\n", 2) == 0)
    mkc_buf_puts(out, "\r\n");
  mkc_note_cte(ctx, cte);
  struct mkc_msg_stats *st = ctx->stats;
  st->attachments++;
  if (st->num_attachment_sizes < sizeof st->attachment_bytes / sizeof st->attachment_bytes[0])
    st->attachment_bytes[st->num_attachment_sizes++] = payload.len;
  mkc_buf_cleanup(&filename);
  mkc_buf_cleanup(&payload);
}

static void content_id(char *out, size_t cap, struct mkc_ctx *ctx, unsigned n, const char *ext) {
  char a[40], b[40];
  const char *domain = mkc_person_domain(ctx->sender);
  switch (ctx->sender->mua) {
  case MKC_MUA_OUTLOOK:
    mkc_rng_hex(ctx->rng, a, 8, true);
    mkc_rng_hex(ctx->rng, b, 8, true);
    snprintf(out, cap, "image%03u.%s@%s.%s", n, ext, a, b);
    break;
  case MKC_MUA_GMAIL:
    mkc_rng_alnum(ctx->rng, a, 10);
    snprintf(out, cap, "ii_%s", a);
    break;
  case MKC_MUA_THUNDERBIRD:
    mkc_rng_hex(ctx->rng, a, 8, false);
    mkc_rng_hex(ctx->rng, b, 8, false);
    snprintf(out, cap, "part%u.%s.%s@%s", n, a, b, domain);
    break;
  default:
    mkc_rng_hex(ctx->rng, a, 24, false);
    snprintf(out, cap, "%s@%s", a, domain);
    break;
  }
}

void mkc_part_inline_image(struct mkc_ctx *ctx, struct mkc_buf *out, char *cid, size_t cid_cap) {
  static const struct attachment_kind images[] = {
      {"image/png", "png", 6e3, 1.0, 50, CONTENT_BINARY,
       MAGIC("\x89PNG\r\n\x1A\n\x00\x00\x00\rIHDR")},
      {"image/jpeg", "jpg", 6e3, 1.0, 35, CONTENT_BINARY,
       MAGIC("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00")},
      {"image/gif", "gif", 6e3, 1.0, 15, CONTENT_BINARY, MAGIC("GIF89a")},
  };
  const unsigned weights[] = {50, 35, 15};
  const struct attachment_kind *k = &images[MKC_PICK(ctx->rng, weights)];
  unsigned n = ++ctx->stats->inline_images;
  size_t size = draw_size(ctx, k);
  char name[32];
  snprintf(name, sizeof name, "image%03u.%s", n, k->extension);
  content_id(cid, cid_cap, ctx, n, k->extension);
  struct mkc_buf payload;
  mkc_buf_init(&payload);
  binary_payload(&payload, ctx->rng, k, size);
  content_type_with_name(ctx, out, k->mime_type, NULL, name, MKC_CS_UTF_8, NULL);
  mkc_buf_puts(out, "Content-Transfer-Encoding: base64\r\n");
  disposition(ctx, out, "inline", name, MKC_CS_UTF_8, NULL, payload.len);
  mkc_buf_printf(out, "Content-ID: <%s>\r\n\r\n", cid);
  mkc_base64(out, payload.data, payload.len, 76);
  mkc_note_cte(ctx, MKC_CTE_BASE64);
  mkc_buf_cleanup(&payload);
}

// A detached signature that looks right and verifies nothing: an OpenPGP
// armored block (with a correct CRC-24 line) or a DER-shaped PKCS #7 blob.
void mkc_part_signature(struct mkc_ctx *ctx, struct mkc_buf *out, bool smime) {
  struct mkc_rng *r = ctx->rng;
  unsigned char packet[1024];
  if (smime) {
    size_t size = (size_t)mkc_rng_between(r, 2000, 6000);
    struct mkc_buf der;
    mkc_buf_init(&der);
    const char head[4] = {0x30, (char)0x82, (char)((size - 4) >> 8), (char)((size - 4) & 0xFF)};
    mkc_buf_put(&der, head, 4);
    mkc_buf_reserve(&der, size);
    mkc_rng_fill(r, der.data + der.len, size - 4);
    der.len = size;
    mkc_buf_puts(out, "Content-Type: application/pkcs7-signature; name=\"smime.p7s\"\r\n"
                      "Content-Transfer-Encoding: base64\r\n"
                      "Content-Disposition: attachment; filename=\"smime.p7s\"\r\n"
                      "Content-Description: S/MIME Cryptographic Signature\r\n\r\n");
    mkc_base64(out, der.data, der.len, 76);
    mkc_note_cte(ctx, MKC_CTE_BASE64);
    mkc_buf_cleanup(&der);
    return;
  }
  // Ed25519 signatures are ~119 bytes, RSA-3072 ones ~438.
  size_t size = mkc_rng_chance(r, 0.6) ? 119 : 438;
  mkc_rng_fill(r, packet, size);
  packet[0] = 0xC2; // new-format signature packet tag
  uint32_t crc = mkc_crc24(packet, size);
  unsigned char crc_bytes[3] = {(unsigned char)(crc >> 16), (unsigned char)(crc >> 8),
                                (unsigned char)crc};
  bool thunderbird = ctx->sender->mua == MKC_MUA_THUNDERBIRD;
  const char *file = thunderbird ? "OpenPGP_signature.asc" : "signature.asc";
  mkc_buf_printf(out, "Content-Type: application/pgp-signature; name=\"%s\"\r\n", file);
  mkc_buf_puts(out, "Content-Description: OpenPGP digital signature\r\n");
  mkc_buf_printf(out, "Content-Disposition: attachment; filename=\"%s\"\r\n\r\n", file);
  mkc_buf_puts(out, "-----BEGIN PGP SIGNATURE-----\r\n\r\n");
  mkc_base64(out, packet, size, 64);
  mkc_buf_putc(out, '=');
  mkc_base64(out, crc_bytes, 3, 76);
  mkc_buf_puts(out, "-----END PGP SIGNATURE-----\r\n");
  mkc_note_cte(ctx, MKC_CTE_7BIT);
}
