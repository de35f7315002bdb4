// mime.c: the MIME structure of a message: text parts in the message's
// charset and a transfer encoding its mail program would pick, multiparts
// with boundaries in that program's style that occur nowhere in their
// content, and the shapes of the corpus (plain, HTML, alternative, mixed,
// related, forwarded, signed) assembled from them.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

void mkc_note_cte(struct mkc_ctx *ctx, enum mkc_cte cte) {
  ctx->stats->cte[cte]++;
}

// What each mail program does with 8-bit text: Outlook, Apple Mail and
// Roundcube quote it, Thunderbird and mutt send it as it is, Gmail quotes
// Latin text and base64-encodes the rest.
static enum mkc_cte preferred_8bit_cte(const struct mkc_ctx *ctx) {
  bool latin = ctx->plan->lang <= MKC_LANG_ES;
  switch (ctx->sender->mua) {
  case MKC_MUA_THUNDERBIRD:
    return MKC_CTE_8BIT;
  case MKC_MUA_MUTT:
    return mkc_rng_chance(ctx->rng, 0.6) ? MKC_CTE_8BIT : MKC_CTE_QP;
  case MKC_MUA_GMAIL:
    return latin ? MKC_CTE_QP : MKC_CTE_BASE64;
  case MKC_MUA_BULK:
    return mkc_rng_chance(ctx->rng, 0.6) ? MKC_CTE_QP : MKC_CTE_BASE64;
  default:
    return MKC_CTE_QP;
  }
}

enum mkc_cte mkc_choose_text_cte(struct mkc_ctx *ctx, const char *bytes, size_t len, bool html) {
  static const enum mkc_cte any[] = {MKC_CTE_8BIT, MKC_CTE_QP, MKC_CTE_BASE64};
  bool ascii = mkc_is_ascii(bytes, len);
  enum mkc_cte cte;
  if (ascii)
    cte = html && ctx->sender->mua == MKC_MUA_OUTLOOK ? MKC_CTE_QP
          : mkc_rng_chance(ctx->rng, 0.9)             ? MKC_CTE_7BIT
          : mkc_rng_chance(ctx->rng, 0.5)             ? MKC_CTE_QP
                                                      : MKC_CTE_BASE64;
  else if (mkc_rng_chance(ctx->rng, 0.12))
    cte = any[mkc_rng_below(ctx->rng, 3)]; // people reconfigure their programs
  else
    cte = preferred_8bit_cte(ctx);
  // Signed content must survive 7-bit transport unchanged (RFC 3156 3), and
  // no line may exceed 998 octets in 7bit or 8bit (RFC 5322 2.1.1).
  bool long_lines = mkc_longest_line(bytes, len) > 998;
  if (cte == MKC_CTE_8BIT && (ctx->seven_bit || long_lines))
    cte = MKC_CTE_QP;
  if (cte == MKC_CTE_7BIT && (!ascii || long_lines))
    cte = MKC_CTE_QP;
  return cte;
}

void mkc_part_text(struct mkc_ctx *ctx, struct mkc_buf *out, const char *subtype, const char *utf8,
                   size_t len, bool flowed) {
  struct mkc_buf bytes;
  mkc_buf_init(&bytes);
  enum mkc_charset cs = ctx->charset;
  if (!mkc_charset_convert(cs, utf8, len, &bytes)) {
    cs = MKC_CS_UTF_8;
    mkc_buf_put(&bytes, utf8, len);
    ctx->stats->charset_fallbacks++;
  }
  enum mkc_cte cte = mkc_choose_text_cte(ctx, bytes.data, bytes.len, !strcmp(subtype, "html"));
  const char *label = mkc_charset_label(cs, ctx->upper_labels);
  bool quoted = ctx->sender->mua == MKC_MUA_OUTLOOK || ctx->sender->mua == MKC_MUA_APPLE;
  mkc_buf_printf(
      out, quoted ? "Content-Type: text/%s; charset=\"%s\"" : "Content-Type: text/%s; charset=%s",
      subtype, label);
  if (flowed)
    mkc_buf_puts(out, "; format=flowed");
  mkc_buf_printf(out, "\r\nContent-Transfer-Encoding: %s\r\n\r\n", mkc_cte_name(cte));
  mkc_encode_body(out, cte, bytes.data, bytes.len);
  mkc_note_cte(ctx, cte);
  ctx->stats->charset[cs]++;
  mkc_buf_cleanup(&bytes);
}

static void make_boundary(struct mkc_ctx *ctx, char *out, size_t cap) {
  struct mkc_rng *r = ctx->rng;
  char a[40], b[40], c[40], d[40], e[40];
  unsigned serial = ctx->boundary_serial++;
  switch (ctx->sender->mua) {
  case MKC_MUA_OUTLOOK:
    mkc_rng_hex(r, a, 4, true);
    mkc_rng_hex(r, b, 8, true);
    mkc_rng_hex(r, c, 8, true);
    snprintf(out, cap, "----=_NextPart_%03u_%s_%s.%s", serial, a, b, c);
    break;
  case MKC_MUA_GMAIL:
    mkc_rng_hex(r, a, 16, false);
    snprintf(out, cap, "000000000000%s", a);
    break;
  case MKC_MUA_THUNDERBIRD:
    mkc_rng_alnum(r, a, 24);
    snprintf(out, cap, "------------%s", a);
    break;
  case MKC_MUA_APPLE:
    mkc_rng_hex(r, a, 8, true);
    mkc_rng_hex(r, b, 4, true);
    mkc_rng_hex(r, c, 4, true);
    mkc_rng_hex(r, d, 4, true);
    mkc_rng_hex(r, e, 12, true);
    snprintf(out, cap, "Apple-Mail=_%s-%s-%s-%s-%s", a, b, c, d, e);
    break;
  case MKC_MUA_ROUNDCUBE:
    mkc_rng_hex(r, a, 32, false);
    snprintf(out, cap, "=_%s", a);
    break;
  case MKC_MUA_MUTT:
    mkc_rng_alnum(r, a, 16);
    snprintf(out, cap, "%s", a);
    break;
  default: {
    int v[2];
    mkc_rng_ints(r, v, 2, (const int[]){1000, 99999999, 0, 999});
    snprintf(out, cap, "----=_Part_%u_%d.%lld", serial, v[0],
             (long long)ctx->plan->date * 1000 + v[1]);
    break;
  }
  }
}

static bool boundary_clashes(const char *boundary, const struct mkc_buf *parts, size_t n) {
  char delimiter[272];
  int len = snprintf(delimiter, sizeof delimiter, "--%s", boundary);
  for (size_t i = 0; i < n; i++)
    if (memmem(parts[i].data, parts[i].len, delimiter, (size_t)len))
      return true;
  return false;
}

void mkc_part_multipart(struct mkc_ctx *ctx, struct mkc_buf *out, const char *subtype,
                        const char *extra_params, struct mkc_buf *parts, size_t num_parts) {
  char boundary[256];
  do
    make_boundary(ctx, boundary, sizeof boundary);
  while (boundary_clashes(boundary, parts, num_parts));
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "Content-Type");
  char type[48];
  snprintf(type, sizeof type, "multipart/%s", subtype);
  mkc_hdr_tok(&h, type);
  if (extra_params)
    mkc_hdr_words(&h, extra_params);
  mkc_hdr_param(&h, "boundary", boundary, true);
  mkc_hdr_end(&h);
  mkc_buf_puts(out, "\r\n");
  if (ctx->sender->mua == MKC_MUA_OUTLOOK || ctx->sender->mua == MKC_MUA_THUNDERBIRD)
    mkc_buf_puts(out, "This is a multi-part message in MIME format.\r\n");
  for (size_t i = 0; i < num_parts; i++) {
    mkc_buf_printf(out, "--%s\r\n", boundary);
    mkc_buf_put(out, parts[i].data, parts[i].len);
  }
  mkc_buf_printf(out, "--%s--\r\n", boundary);
}

static void free_parts(struct mkc_buf *parts, size_t n) {
  for (size_t i = 0; i < n; i++)
    mkc_buf_cleanup(&parts[i]);
}

// Words of new text: short answers, longer first messages, long newsletters.
static size_t body_words(struct mkc_ctx *ctx, const struct mkc_plan *plan, bool newsletter) {
  double words = newsletter         ? mkc_lognormal(ctx->rng, 500.0, 0.6)
                 : plan->has_parent ? mkc_lognormal(ctx->rng, 45.0, 0.9)
                                    : mkc_lognormal(ctx->rng, 90.0, 0.9);
  words *= ctx->scale;
  if (words < 5)
    return 5;
  return words > MKC_MAX_BODY_WORDS ? MKC_MAX_BODY_WORDS : (size_t)words;
}

struct text_body {
  struct mkc_body body;
  struct mkc_buf plain; // UTF-8, CRLF lines
  bool flowed;
};

// Composes the text once; if the message's charset cannot hold it (a name
// from another language, say), the message goes out in UTF-8 as mail
// programs do.
static void compose(struct mkc_ctx *ctx, const struct mkc_plan *plan, struct text_body *t,
                    bool newsletter) {
  const struct mkc_lang_data *L = mkc_lang(plan->lang);
  struct mkc_body_spec spec = {
      .lang = plan->lang,
      .words = body_words(ctx, plan, newsletter),
      .euro = mkc_charset_has_euro(ctx->charset),
      .typographic = mkc_charset_has_typographic(ctx->charset),
      .newsletter = newsletter,
      .scale = ctx->scale,
      .from = &plan->from,
      .to = plan->kind == MKC_KIND_LIST || plan->num_to == 0 ? NULL : &plan->to[0],
      .plan = plan,
  };
  mkc_body_compose(&t->body, ctx->rng, &spec);
  enum mkc_mua mua = ctx->sender->mua;
  t->flowed = L->spaced && ((mua == MKC_MUA_THUNDERBIRD && mkc_rng_chance(ctx->rng, 0.7)) ||
                            (mua == MKC_MUA_ROUNDCUBE && mkc_rng_chance(ctx->rng, 0.3)));
  mkc_buf_init(&t->plain);
  mkc_body_render_plain(&t->body, &t->plain, t->flowed);
  struct mkc_buf probe;
  mkc_buf_init(&probe);
  if (!mkc_charset_convert(ctx->charset, t->plain.data, t->plain.len, &probe)) {
    ctx->charset = MKC_CS_UTF_8;
    ctx->stats->charset_fallbacks++;
  }
  mkc_buf_cleanup(&probe);
}

static void text_body_cleanup(struct text_body *t) {
  mkc_body_cleanup(&t->body);
  mkc_buf_cleanup(&t->plain);
}

static void part_plain(struct mkc_ctx *ctx, struct mkc_buf *out, const struct text_body *t) {
  mkc_part_text(ctx, out, "plain", t->plain.data, t->plain.len, t->flowed);
}

static void part_html(struct mkc_ctx *ctx, struct mkc_buf *out, const struct text_body *t,
                      const char *const *cids, size_t num_cids) {
  struct mkc_buf html;
  mkc_buf_init(&html);
  mkc_body_render_html(&t->body, &html, mkc_charset_label(ctx->charset, ctx->upper_labels), cids,
                       num_cids);
  mkc_part_text(ctx, out, "html", html.data, html.len, false);
  mkc_buf_cleanup(&html);
}

static void part_alternative(struct mkc_ctx *ctx, struct mkc_buf *out, const struct text_body *t) {
  struct mkc_buf parts[2];
  mkc_buf_init(&parts[0]);
  mkc_buf_init(&parts[1]);
  part_plain(ctx, &parts[0], t);
  part_html(ctx, &parts[1], t, NULL, 0);
  mkc_part_multipart(ctx, out, "alternative", NULL, parts, 2);
  free_parts(parts, 2);
}

// Two layouts exist in the wild: alternative{plain, related{html, images}}
// (Apple Mail, Thunderbird) and related{alternative{plain, html}, images}
// (Outlook).
static void part_related(struct mkc_ctx *ctx, struct mkc_buf *out, const struct text_body *t) {
  static const unsigned counts[] = {55, 25, 10, 6, 4};
  size_t num_images = 1 + MKC_PICK(ctx->rng, counts);
  char cids[MKC_MAX_INLINE_IMAGES][128];
  const char *cid_ptrs[MKC_MAX_INLINE_IMAGES];
  struct mkc_buf parts[MKC_MAX_INLINE_IMAGES + 1];
  for (size_t i = 0; i <= num_images; i++)
    mkc_buf_init(&parts[i]);
  for (size_t i = 0; i < num_images; i++) {
    mkc_part_inline_image(ctx, &parts[i + 1], cids[i], sizeof cids[i]);
    cid_ptrs[i] = cids[i];
  }
  bool outlook_layout = ctx->sender->mua == MKC_MUA_OUTLOOK || mkc_rng_chance(ctx->rng, 0.2);
  if (outlook_layout) {
    struct mkc_buf alt[2];
    mkc_buf_init(&alt[0]);
    mkc_buf_init(&alt[1]);
    part_plain(ctx, &alt[0], t);
    part_html(ctx, &alt[1], t, cid_ptrs, num_images);
    mkc_part_multipart(ctx, &parts[0], "alternative", NULL, alt, 2);
    free_parts(alt, 2);
    mkc_part_multipart(ctx, out, "related", "; type=\"multipart/alternative\"", parts,
                       num_images + 1);
  } else {
    part_html(ctx, &parts[0], t, cid_ptrs, num_images);
    struct mkc_buf alt[2];
    mkc_buf_init(&alt[0]);
    mkc_buf_init(&alt[1]);
    part_plain(ctx, &alt[0], t);
    mkc_part_multipart(ctx, &alt[1], "related", "; type=\"text/html\"", parts, num_images + 1);
    mkc_part_multipart(ctx, out, "alternative", NULL, alt, 2);
    free_parts(alt, 2);
  }
  free_parts(parts, num_images + 1);
}

static void part_mixed(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                       const struct text_body *t) {
  static const unsigned counts[] = {62, 20, 9, 4, 2, 1, 1, 1};
  size_t num_attachments = 1 + MKC_PICK(ctx->rng, counts);
  struct mkc_buf parts[MKC_MAX_ATTACHMENTS + 1];
  for (size_t i = 0; i <= num_attachments; i++)
    mkc_buf_init(&parts[i]);
  if (mkc_rng_chance(ctx->rng, 0.55))
    part_plain(ctx, &parts[0], t);
  else
    part_alternative(ctx, &parts[0], t);
  for (size_t i = 0; i < num_attachments; i++)
    mkc_part_attachment(ctx, &parts[i + 1], plan->lang);
  mkc_part_multipart(ctx, out, "mixed", NULL, parts, num_attachments + 1);
  free_parts(parts, num_attachments + 1);
}

static enum mkc_shape forwarded_shape(struct mkc_ctx *ctx) {
  static const unsigned weights[] = {[MKC_SHAPE_PLAIN] = 45,
                                     [MKC_SHAPE_ALTERNATIVE] = 30,
                                     [MKC_SHAPE_MIXED] = 15,
                                     [MKC_SHAPE_RELATED] = 5,
                                     [MKC_SHAPE_FORWARD] = 5};
  enum mkc_shape shape = (enum mkc_shape)MKC_PICK(ctx->rng, weights);
  if (shape == MKC_SHAPE_FORWARD && ctx->depth + 1 >= MKC_MAX_FORWARD_DEPTH)
    shape = MKC_SHAPE_PLAIN;
  return shape;
}

// The original goes whole into a message/rfc822 part, written by its own
// author's mail program, one level deeper (bounded by MKC_MAX_FORWARD_DEPTH).
static void part_forwarded(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan) {
  struct mkc_plan *inner = mkc_xmalloc(sizeof *inner);
  mkc_plan_standalone(inner, ctx->rng, ctx->seed, plan);
  struct mkc_ctx child = *ctx;
  child.depth = ctx->depth + 1;
  child.sender = &inner->from;
  child.plan = inner;
  struct mkc_buf message;
  mkc_buf_init(&message);
  mkc_message_write(&child, &message, inner, forwarded_shape(ctx));
  ctx->budget = child.budget;
  ctx->boundary_serial = child.boundary_serial;
  bool eight_bit = !mkc_is_ascii(message.data, message.len);
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "Content-Type");
  mkc_hdr_tok(&h, "message/rfc822");
  if (ctx->sender->mua == MKC_MUA_THUNDERBIRD) {
    char name[MKC_SUBJECT_MAX + 8];
    snprintf(name, sizeof name, "%.*s.eml", MKC_SUBJECT_MAX - 1, inner->subject);
    mkc_hdr_param_2231(&h, "name", name, MKC_CS_UTF_8, NULL);
  }
  mkc_hdr_end(&h);
  if (eight_bit || mkc_rng_chance(ctx->rng, 0.5))
    mkc_buf_printf(out, "Content-Transfer-Encoding: %s\r\n", eight_bit ? "8bit" : "7bit");
  mkc_buf_puts(out, ctx->sender->mua == MKC_MUA_OUTLOOK ? "Content-Disposition: attachment\r\n"
                                                        : "Content-Disposition: inline\r\n");
  mkc_buf_puts(out, "\r\n");
  mkc_buf_put(out, message.data, message.len);
  mkc_note_cte(ctx, eight_bit ? MKC_CTE_8BIT : MKC_CTE_7BIT);
  mkc_buf_cleanup(&message);
  free(inner);
}

static void part_forward(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                         const struct text_body *t) {
  struct mkc_buf parts[2];
  mkc_buf_init(&parts[0]);
  mkc_buf_init(&parts[1]);
  part_plain(ctx, &parts[0], t);
  part_forwarded(ctx, &parts[1], plan);
  mkc_part_multipart(ctx, out, "mixed", NULL, parts, 2);
  free_parts(parts, 2);
}

static void part_signed(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                        const struct text_body *t, bool smime) {
  static const unsigned weights[] = {50, 25, 25};
  struct mkc_buf parts[2];
  mkc_buf_init(&parts[0]);
  mkc_buf_init(&parts[1]);
  bool seven_bit = ctx->seven_bit;
  ctx->seven_bit = true;
  switch (MKC_PICK(ctx->rng, weights)) {
  case 0:
    part_plain(ctx, &parts[0], t);
    break;
  case 1:
    part_alternative(ctx, &parts[0], t);
    break;
  default:
    part_mixed(ctx, &parts[0], plan, t);
    break;
  }
  ctx->seven_bit = seven_bit;
  mkc_part_signature(ctx, &parts[1], smime);
  mkc_part_multipart(ctx, out, "signed",
                     smime ? "; protocol=\"application/pkcs7-signature\"; micalg=sha-256"
                           : "; micalg=pgp-sha256; protocol=\"application/pgp-signature\"",
                     parts, 2);
  free_parts(parts, 2);
}

void mkc_part_body_of_shape(struct mkc_ctx *ctx, struct mkc_buf *out, enum mkc_shape shape,
                            const struct mkc_plan *plan) {
  struct text_body t;
  compose(ctx, plan, &t, plan->kind == MKC_KIND_NEWSLETTER);
  switch (shape) {
  case MKC_SHAPE_PLAIN:
    part_plain(ctx, out, &t);
    break;
  case MKC_SHAPE_HTML:
    part_html(ctx, out, &t, NULL, 0);
    break;
  case MKC_SHAPE_ALTERNATIVE:
    part_alternative(ctx, out, &t);
    break;
  case MKC_SHAPE_MIXED:
    part_mixed(ctx, out, plan, &t);
    break;
  case MKC_SHAPE_RELATED:
    part_related(ctx, out, &t);
    break;
  case MKC_SHAPE_FORWARD:
    part_forward(ctx, out, plan, &t);
    break;
  case MKC_SHAPE_SIGNED_PGP:
  case MKC_SHAPE_SIGNED_SMIME:
    part_signed(ctx, out, plan, &t, shape == MKC_SHAPE_SIGNED_SMIME);
    break;
  default:
    break;
  }
  text_body_cleanup(&t);
}
