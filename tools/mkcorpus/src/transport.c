// transport.c: the header fields a message collects on its way rather than
// from its author: Return-Path and Delivered-To, a Received chain of two to
// five hops in the styles of Exchange, Gmail, Postfix, amavis, Mailman and
// Dovecot, DKIM-Signature and Authentication-Results, and the List-* fields
// of mailing lists (RFC 2369, RFC 2919) and newsletters (RFC 8058).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

static void postfix_id(char *out, struct mkc_rng *r) {
  mkc_rng_alnum(r, out, 12);
  out[0] = '4';
}

static void received(struct mkc_buf *out, const char *value) {
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "Received");
  h.fold = "\t";
  mkc_hdr_words(&h, value);
  mkc_hdr_end(&h);
}

struct hop {
  char text[640];
};

// Where the message entered the mail system, in its author's provider's style.
static void submission_hop(struct hop *hop, struct mkc_ctx *ctx, const struct mkc_plan *plan,
                           const char *date) {
  struct mkc_rng *r = ctx->rng;
  const char *sdom = mkc_person_domain(&plan->from);
  char id[16];
  postfix_id(id, r);
  int v[14];
  switch (plan->from.mua) {
  case MKC_MUA_OUTLOOK:
    mkc_rng_ints(r, v, 14, (const int[]){0, 9,     1, 9,    1000, 9999, 1,    9,    1, 0xfff,
                                         1, 0xff,  0, 9,    1,    9,    1000, 9999, 1, 9,
                                         1, 0xfff, 1, 0xff, 7000, 7999, 10,   99});
    snprintf(hop->text, sizeof hop->text,
             "from AM%dPR%02dMB%04d.eurprd%02d.prod.outlook.example (2001:db8:20b:%x::%x) by "
             "AM%dPR%02dMB%04d.eurprd%02d.prod.outlook.example (2001:db8:20b:%x::%x) with "
             "Microsoft SMTP Server (version=TLS1_2, cipher=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) "
             "id 15.20.%d.%d; %s",
             v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13],
             date);
    break;
  case MKC_MUA_GMAIL:
    mkc_rng_ints(r, v, 5,
                 (const int[]){1, 0xffff, 1, 0xffff, 1, 0xffff, 1, 0xffff, 100000, 999999});
    snprintf(hop->text, sizeof hop->text, "by 2001:db8:%x:%x:%x:%x with SMTP id %s%dpxb; %s", v[0],
             v[1], v[2], v[3], id, v[4], date);
    break;
  default:
    mkc_rng_ints(r, v, 3, (const int[]){0, 9, 2, 254, 1, 254});
    snprintf(hop->text, sizeof hop->text,
             "from [192.168.%d.%d] (dsl-203-0-113-%d.example.net [203.0.113.%d]) by smtp.%s "
             "(Postfix) with ESMTPSA id %s; %s",
             v[0], v[1], v[2], v[2], sdom, id, date);
    break;
  }
}

static void relay_hop(struct hop *hop, struct mkc_rng *r, const char *from_host,
                      const char *by_host, const char *rcpt, bool tls, const char *date) {
  char id[16];
  postfix_id(id, r);
  int octet = mkc_rng_between(r, 1, 254);
  // Host names and addresses are bounded by construction; a hop that did not
  // fit would be a generator bug, and a cut-off header must never be written.
  int n = snprintf(
      hop->text, sizeof hop->text,
      "from %s (%s [198.51.100.%d]) %sby %s (Postfix) with %s id %s for <%s>; %s", from_host,
      from_host, octet,
      tls ? "(using TLSv1.3 with cipher TLS_AES_256_GCM_SHA384 (256/256 bits) key-exchange "
            "X25519 server-signature RSA-PSS (2048 bits) server-digest SHA256) "
          : "",
      by_host, tls ? "ESMTPS" : "ESMTP", id, rcpt, date);
  if (n < 0 || (size_t)n >= sizeof hop->text)
    abort();
}

static void format_hop_date(char *out, size_t cap, int64_t t, int tz) {
  mkc_format_date(out, cap, t, tz, true);
}

void mkc_transport_received(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan) {
  struct mkc_rng *r = ctx->rng;
  struct hop hops[7];
  size_t n = 0;
  int64_t t = plan->date + mkc_rng_between(r, 0, 20);
  int rtz = plan->owner.tz_minutes;
  char date[64], sender_host[160], mx[160];
  const char *rcpt = plan->owner.addr;
  const char *rdom = mkc_person_domain(&plan->owner);
  snprintf(mx, sizeof mx, "mx%d.%s", mkc_rng_between(r, 1, 3), rdom);

  format_hop_date(date, sizeof date, t, plan->from.tz_minutes);
  submission_hop(&hops[n++], ctx, plan, date);
  snprintf(sender_host, sizeof sender_host, "mail-out%d.%s", mkc_rng_between(r, 1, 40),
           mkc_person_domain(&plan->from));
  if (plan->list) {
    t += mkc_rng_between(r, 1, 30);
    format_hop_date(date, sizeof date, t, 0);
    relay_hop(&hops[n++], r, sender_host, plan->list->domain, plan->list->domain, true, date);
    snprintf(sender_host, sizeof sender_host, "%s", plan->list->domain);
  } else if (mkc_rng_chance(r, 0.4)) {
    t += mkc_rng_between(r, 0, 3);
    format_hop_date(date, sizeof date, t, plan->from.tz_minutes);
    char relay[160];
    snprintf(relay, sizeof relay, "relay.%s", mkc_person_domain(&plan->from));
    relay_hop(&hops[n++], r, relay, sender_host, rcpt, false, date);
  }
  t += mkc_rng_between(r, 1, 12);
  format_hop_date(date, sizeof date, t, rtz);
  relay_hop(&hops[n++], r, sender_host, mx, rcpt, mkc_rng_chance(r, 0.8), date);
  if (mkc_rng_chance(r, 0.3)) {
    char id[16];
    postfix_id(id, r);
    t += mkc_rng_between(r, 0, 4);
    format_hop_date(date, sizeof date, t, rtz);
    snprintf(hops[n++].text, sizeof hops[0].text,
             "from localhost (localhost [127.0.0.1]) by %s (amavisd-new, port 10024) with ESMTP "
             "id %s for <%s>; %s",
             mx, id, rcpt, date);
  }
  if (mkc_rng_chance(r, 0.6)) {
    char id[32];
    mkc_rng_alnum(r, id, 22);
    t += mkc_rng_between(r, 0, 2);
    format_hop_date(date, sizeof date, t, rtz);
    snprintf(hops[n++].text, sizeof hops[0].text,
             "from %s by imap.%s with LMTP id %s (envelope-from <%s>) for <%s>; %s", mx, rdom, id,
             plan->from.addr, rcpt, date);
  }
  // The newest hop is on top.
  while (n > 0)
    received(out, hops[--n].text);
}

static void base64_random(char *out, size_t cap, struct mkc_rng *r, size_t raw) {
  unsigned char bytes[256];
  struct mkc_buf b;
  mkc_buf_init(&b);
  mkc_rng_fill(r, bytes, raw);
  mkc_base64(&b, bytes, raw, 0);
  mkc_copy_str(out, cap, mkc_buf_cstr(&b));
  mkc_buf_cleanup(&b);
}

// RFC 6376 tag list, folded the way signers do: b= starts a line and wraps.
void mkc_transport_dkim(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan) {
  struct mkc_rng *r = ctx->rng;
  static const char *const selectors[] = {"selector1", "google", "s2048", "mail", "dkim"};
  char body_hash[64], signature[400], tok[128];
  base64_random(body_hash, sizeof body_hash, r, 32);
  base64_random(signature, sizeof signature, r, 256);
  struct mkc_hdr h;
  mkc_hdr_begin(&h, out, "DKIM-Signature");
  h.fold = "\t";
  mkc_hdr_tok(&h, "v=1;");
  mkc_hdr_tok(&h, "a=rsa-sha256;");
  mkc_hdr_tok(&h, "c=relaxed/relaxed;");
  snprintf(tok, sizeof tok, "d=%s;", mkc_person_domain(&plan->from));
  mkc_hdr_tok(&h, tok);
  snprintf(tok, sizeof tok, "s=%s;", selectors[mkc_rng_below(r, 5)]);
  mkc_hdr_tok(&h, tok);
  snprintf(tok, sizeof tok, "t=%lld;", (long long)plan->date);
  mkc_hdr_tok(&h, tok);
  mkc_hdr_tok(&h, plan->has_parent ? "h=from:to:cc:subject:date:message-id:in-reply-to:"
                                   : "h=from:to:cc:subject:date:message-id:");
  mkc_hdr_tok(&h, "references:mime-version:content-type;");
  snprintf(tok, sizeof tok, "bh=%s;", body_hash);
  mkc_hdr_tok(&h, tok);
  mkc_hdr_break(&h);
  size_t len = strlen(signature);
  for (size_t pos = 0; pos < len; pos += 70) {
    snprintf(tok, sizeof tok, "%s%.70s", pos == 0 ? "b=" : "", signature + pos);
    mkc_hdr_tok(&h, tok);
    mkc_hdr_break(&h);
  }
  mkc_hdr_end(&h);
}

static void authentication_results(struct mkc_ctx *ctx, struct mkc_buf *out,
                                   const struct mkc_plan *plan) {
  char value[640], sig[16];
  base64_random(sig, sizeof sig, ctx->rng, 6);
  const char *sdom = mkc_person_domain(&plan->from);
  snprintf(value, sizeof value,
           "mx.%s; dkim=pass (2048-bit key) header.d=%s header.i=@%s header.b=%s; spf=pass "
           "(mx.%s: domain of %s designates 198.51.100.%d as permitted sender) "
           "smtp.mailfrom=%s; dmarc=pass (p=none dis=none) header.from=%s",
           mkc_person_domain(&plan->owner), sdom, sdom, sig, mkc_person_domain(&plan->owner),
           plan->from.addr, mkc_rng_between(ctx->rng, 1, 254), plan->from.addr, sdom);
  mkc_hdr_simple(out, "Authentication-Results", value);
}

static void list_headers(struct mkc_buf *out, const struct mkc_mailing_list *list) {
  char value[512];
  snprintf(value, sizeof value, "%s <%s.%s>", list->description, list->name, list->domain);
  mkc_hdr_simple(out, "List-Id", value);
  snprintf(value, sizeof value,
           "<https://%s/mailman/options/%s>, <mailto:%s-request@%s?subject=unsubscribe>",
           list->domain, list->name, list->name, list->domain);
  mkc_hdr_simple(out, "List-Unsubscribe", value);
  snprintf(value, sizeof value, "<https://%s/pipermail/%s/>", list->domain, list->name);
  mkc_hdr_simple(out, "List-Archive", value);
  snprintf(value, sizeof value, "<mailto:%s@%s>", list->name, list->domain);
  mkc_hdr_simple(out, "List-Post", value);
  snprintf(value, sizeof value, "<mailto:%s-request@%s?subject=help>", list->name, list->domain);
  mkc_hdr_simple(out, "List-Help", value);
  snprintf(value, sizeof value,
           "<https://%s/mailman/listinfo/%s>, <mailto:%s-request@%s?subject=subscribe>",
           list->domain, list->name, list->name, list->domain);
  mkc_hdr_simple(out, "List-Subscribe", value);
  mkc_hdr_simple(out, "Precedence", "list");
  snprintf(value, sizeof value, "%s-bounces@%s", list->name, list->domain);
  mkc_hdr_simple(out, "Errors-To", value);
  mkc_hdr_simple(out, "Sender", value);
}

static void newsletter_headers(struct mkc_ctx *ctx, struct mkc_buf *out,
                               const struct mkc_plan *plan) {
  char value[512];
  const char *domain = mkc_person_domain(&plan->from);
  int user = mkc_rng_between(ctx->rng, 100000, 9999999);
  snprintf(value, sizeof value,
           "<https://%s/unsubscribe?u=%d>, <mailto:unsubscribe@%s?subject=unsubscribe-%d>", domain,
           user, domain, user);
  mkc_hdr_simple(out, "List-Unsubscribe", value);
  mkc_hdr_simple(out, "List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
  mkc_hdr_simple(out, "Precedence", "bulk");
  int v[2];
  mkc_rng_ints(ctx->rng, v, 2, (const int[]){1, 999, 1000, 99999});
  snprintf(value, sizeof value, "%d:%d:campaign:mailerapp", v[0], v[1]);
  mkc_hdr_simple(out, "Feedback-ID", value);
}

void mkc_transport_headers(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan) {
  struct mkc_rng *r = ctx->rng;
  if (plan->list)
    mkc_buf_printf(out, "Return-Path: <%s-bounces+%.*s=%s@%s>\r\n", plan->list->name,
                   (int)strcspn(plan->owner.addr, "@"), plan->owner.addr,
                   mkc_person_domain(&plan->owner), plan->list->domain);
  else
    mkc_buf_printf(out, "Return-Path: <%s>\r\n", plan->from.addr);
  if (mkc_rng_chance(r, 0.4))
    mkc_buf_printf(out, "Delivered-To: %s\r\n", plan->owner.addr);
  mkc_transport_received(ctx, out, plan);
  if (mkc_rng_chance(r, 0.45))
    authentication_results(ctx, out, plan);
  if (mkc_rng_chance(r, plan->from.mua == MKC_MUA_MUTT ? 0.2 : 0.6))
    mkc_transport_dkim(ctx, out, plan);
  if (plan->list)
    list_headers(out, plan->list);
  if (plan->kind == MKC_KIND_NEWSLETTER)
    newsletter_headers(ctx, out, plan);
}
