// message.c: one whole message from its plan: the MIME shape its author's
// mail program would produce, the charset and header encoding, the
// originator fields (From, To, Subject, Date, Message-ID, threading, agent),
// and the size limit, which regeneration at shrinking scales enforces.
#include <stdio.h>
#include <string.h>

#include "mkcorpus_internal.h"

#define MAX_SHRINK_ATTEMPTS 10
#define SIZE_RESERVE 65536 // bytes kept for headers and text, not attachments

// Shapes by mail program: Outlook and Gmail send HTML by default, mutt and
// Thunderbird users plain text and most of the OpenPGP signatures. Columns
// follow enum mkc_shape: plain, HTML only, alternative, mixed, related,
// forward (planned per thread, never drawn here), OpenPGP, S/MIME.
static const unsigned shape_weights[MKC_MUA_COUNT][MKC_SHAPE_COUNT] = {
    [MKC_MUA_OUTLOOK] = {10, 1, 60, 18, 8, 0, 0, 3},
    [MKC_MUA_GMAIL] = {20, 2, 58, 15, 4, 0, 1, 0},
    [MKC_MUA_THUNDERBIRD] = {60, 0, 15, 13, 2, 0, 8, 2},
    [MKC_MUA_APPLE] = {35, 1, 33, 14, 10, 0, 2, 5},
    [MKC_MUA_ROUNDCUBE] = {55, 2, 22, 15, 3, 0, 3, 0},
    [MKC_MUA_MUTT] = {70, 0, 0, 15, 0, 0, 15, 0},
    [MKC_MUA_BULK] = {0, 60, 28, 0, 12, 0, 0, 0},
};

static enum mkc_shape choose_shape(struct mkc_rng *r, const struct mkc_plan *plan) {
  if (plan->kind == MKC_KIND_FORWARD)
    return MKC_SHAPE_FORWARD;
  return (enum mkc_shape)mkc_rng_pick(r, shape_weights[plan->from.mua], MKC_SHAPE_COUNT);
}

// The charset of the text: by language, except that Gmail writes UTF-8.
static void choose_encoding(struct mkc_ctx *ctx, const struct mkc_plan *plan) {
  struct mkc_rng *r = ctx->rng;
  enum mkc_mua mua = plan->from.mua;
  ctx->charset =
      (enum mkc_charset)mkc_rng_pick(r, mkc_lang(plan->lang)->charset_weights, MKC_CS_COUNT);
  if (mua == MKC_MUA_GMAIL && mkc_rng_chance(r, 0.8))
    ctx->charset = MKC_CS_UTF_8;
  ctx->header_charset =
      ctx->charset == MKC_CS_US_ASCII || mua == MKC_MUA_GMAIL ? MKC_CS_UTF_8 : ctx->charset;
  bool latin = plan->lang <= MKC_LANG_ES;
  if (ctx->header_charset == MKC_CS_ISO_2022_JP)
    ctx->header_encoding = 'B';
  else
    ctx->header_encoding = mkc_rng_chance(r, latin ? 0.75 : 0.1) ? 'Q' : 'B';
  ctx->upper_labels = mua == MKC_MUA_GMAIL || mua == MKC_MUA_THUNDERBIRD || mua == MKC_MUA_MUTT;
}

static void note_encoded(struct mkc_ctx *ctx, enum mkc_charset used) {
  if (used != MKC_CS_COUNT)
    ctx->stats->ew_charset[used]++;
}

static bool needs_quotes(const char *s) {
  for (; *s; s++)
    if (strchr("()<>[]:;@\\,.\"", *s))
      return true;
  return false;
}

static void mailbox(struct mkc_ctx *ctx, struct mkc_hdr *h, const struct mkc_person *p, bool last) {
  char tok[300];
  if (!p->display[0]) {
    snprintf(tok, sizeof tok, "%s%s", p->addr, last ? "" : ",");
    mkc_hdr_tok(h, tok);
    return;
  }
  if (mkc_is_ascii(p->display, strlen(p->display)) && needs_quotes(p->display)) {
    struct mkc_buf q;
    mkc_buf_init(&q);
    mkc_buf_putc(&q, '"');
    for (const char *c = p->display; *c; c++) {
      if (*c == '"' || *c == '\\')
        mkc_buf_putc(&q, '\\');
      mkc_buf_putc(&q, *c);
    }
    mkc_buf_putc(&q, '"');
    mkc_hdr_token(h, q.data, q.len);
    mkc_buf_cleanup(&q);
  } else {
    note_encoded(ctx, mkc_hdr_text(h, p->display, ctx->header_charset, ctx->header_encoding,
                                   MKC_EW_PHRASE, ctx->upper_labels));
  }
  snprintf(tok, sizeof tok, "<%s>%s", p->addr, last ? "" : ",");
  mkc_hdr_tok(h, tok);
}

static void address_field(struct mkc_ctx *ctx, struct mkc_buf *out, const char *name,
                          const struct mkc_person *people, size_t n) {
  if (n == 0)
    return;
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, name);
  for (size_t i = 0; i < n; i++)
    mailbox(ctx, &h, &people[i], i + 1 == n);
  mkc_hdr_end(&h);
}

static void text_field(struct mkc_ctx *ctx, struct mkc_buf *out, const char *name,
                       const char *utf8) {
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, name);
  note_encoded(ctx, mkc_hdr_text(&h, utf8, ctx->header_charset, ctx->header_encoding, MKC_EW_TEXT,
                                 ctx->upper_labels));
  mkc_hdr_end(&h);
}

static void agent_field(struct mkc_buf *out, enum mkc_mua mua) {
  static const char *const agents[MKC_MUA_COUNT] = {
      [MKC_MUA_OUTLOOK] = "X-Mailer: Microsoft Outlook 16.0",
      [MKC_MUA_THUNDERBIRD] = "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:115.0) "
                              "Gecko/20100101\r\n Thunderbird/115.8.0",
      [MKC_MUA_APPLE] = "X-Mailer: Apple Mail (2.3774.400.31)",
      [MKC_MUA_ROUNDCUBE] = "User-Agent: Roundcube Webmail/1.6.6",
      [MKC_MUA_MUTT] = "User-Agent: Mutt/2.2.12 (2023-09-09)",
      [MKC_MUA_BULK] = "X-Mailer: MailerApp 3.2",
  };
  if (agents[mua])
    mkc_buf_printf(out, "%s\r\n", agents[mua]);
}

static void outlook_fields(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan) {
  text_field(ctx, out, "Thread-Topic", plan->topic);
  // Thread-Index: 22 bytes for a new thread plus 5 per answer (capped here
  // so that the field fits one line).
  unsigned char index[22 + 5 * 5];
  size_t len = 22 + 5 * (plan->thread_pos < 5 ? plan->thread_pos : 5);
  mkc_rng_fill(ctx->rng, index, len);
  struct mkc_buf b64;
  mkc_buf_init(&b64);
  mkc_base64(&b64, index, len, 0);
  mkc_hdr_simple(out, "Thread-Index", mkc_buf_cstr(&b64));
  mkc_buf_cleanup(&b64);
}

static void originator_fields(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                              bool has_attachments) {
  enum mkc_mua mua = plan->from.mua;
  address_field(ctx, out, "From", &plan->from, 1);
  if (plan->list && mkc_rng_chance(ctx->rng, 0.2))
    address_field(ctx, out, "Reply-To", &plan->to[0], 1);
  address_field(ctx, out, "To", plan->to, plan->num_to);
  address_field(ctx, out, "Cc", plan->cc, plan->num_cc);
  text_field(ctx, out, "Subject", plan->subject);
  if (mua == MKC_MUA_OUTLOOK)
    outlook_fields(ctx, out, plan);
  char date[64];
  mkc_format_date(date, sizeof date, plan->date, plan->from.tz_minutes,
                  mua == MKC_MUA_MUTT || mua == MKC_MUA_ROUNDCUBE);
  mkc_buf_printf(out, "Date: %s\r\n", date);
  mkc_buf_printf(out, "Message-ID: %s\r\n", plan->message_id);
  if (plan->in_reply_to[0])
    mkc_buf_printf(out, "In-Reply-To: %s\r\n", plan->in_reply_to);
  if (plan->references[0])
    mkc_hdr_simple(out, "References", plan->references);
  if (mua == MKC_MUA_OUTLOOK || mua == MKC_MUA_THUNDERBIRD)
    mkc_buf_printf(out, "Content-Language: %s\r\n", mkc_lang(plan->lang)->code);
  if (mua == MKC_MUA_OUTLOOK && has_attachments)
    mkc_buf_puts(out, "X-MS-Has-Attach: yes\r\n");
  agent_field(out, mua);
  if (mkc_rng_chance(ctx->rng, 0.02))
    mkc_buf_puts(out, "X-Priority: 1 (Highest)\r\nImportance: High\r\n");
  mkc_buf_puts(out, "MIME-Version: 1.0\r\n");
}

void mkc_message_write(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                       enum mkc_shape shape) {
  choose_encoding(ctx, plan);
  // The body comes first so the header can say whether there are attachments.
  struct mkc_buf entity;
  mkc_buf_init(&entity);
  unsigned attachments_before = ctx->stats->attachments;
  mkc_part_body_of_shape(ctx, &entity, shape, plan);
  if (ctx->depth == 0 || mkc_rng_chance(ctx->rng, 0.5))
    mkc_transport_headers(ctx, out, plan);
  originator_fields(ctx, out, plan, ctx->stats->attachments > attachments_before);
  mkc_buf_put(out, entity.data, entity.len);
  mkc_buf_cleanup(&entity);
}

// One attempt at the message. `forced` replaces the drawn shape when it is
// not MKC_SHAPE_COUNT: the last resort for a limit that even a tiny version
// of the drawn shape (a forward of a forward, say) would exceed.
static void generate_once(struct mkc_buf *out, uint64_t seed, const struct mkc_plan *plan,
                          size_t max_size, double scale, enum mkc_shape forced,
                          struct mkc_msg_stats *stats) {
  struct mkc_rng rng;
  mkc_rng_seed(&rng, seed, MKC_STREAM_MESSAGE, plan->index);
  memset(stats, 0, sizeof *stats);
  struct mkc_ctx ctx = {
      .rng = &rng,
      .seed = seed,
      .plan = plan,
      .sender = &plan->from,
      .budget = max_size > 4 * SIZE_RESERVE ? max_size - SIZE_RESERVE : max_size / 2,
      .scale = scale,
      .stats = stats,
  };
  // The shape is the first draw, so a smaller regeneration keeps it.
  stats->shape = choose_shape(&rng, plan);
  if (forced != MKC_SHAPE_COUNT)
    stats->shape = forced;
  out->len = 0;
  mkc_message_write(&ctx, out, plan, stats->shape);
}

void mkc_message_generate(struct mkc_buf *out, uint64_t seed, const struct mkc_plan *plan,
                          size_t max_size, struct mkc_msg_stats *stats) {
  double scale = 1.0;
  unsigned attempt = 0;
  for (;; attempt++) {
    bool last = attempt == MAX_SHRINK_ATTEMPTS;
    generate_once(out, seed, plan, max_size, last ? 0.0 : scale,
                  last ? MKC_SHAPE_PLAIN : MKC_SHAPE_COUNT, stats);
    if (out->len <= max_size || last)
      break;
    scale *= 0.5;
  }
  if (out->len > max_size)
    mkc_die("message %llu is %zu bytes even as short plain text; --max-size %zu is too small",
            (unsigned long long)plan->index, out->len, max_size);
  stats->size = out->len;
  stats->size_retries = attempt;
  stats->lang = plan->lang;
  stats->is_reply = plan->has_parent;
  stats->thread_id = plan->thread_id;
}
