// pgp_encrypt.c: the streaming OpenPGP message encryptor. It picks the
// format for the recipients' keys, draws the session key, writes one PKESK
// per key, and then pipes the plaintext through three stages that each hold
// a fixed amount of memory: a Literal Data packet with partial lengths, the
// SEIPD encryption, and the SEIPD packet with partial lengths, optionally
// followed by ASCII armor, ending at the caller's write callback.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgp_encrypt_internal.h"
#include "pgp_internal.h"

struct mc_pgp_encryptor {
  mc_pgp_write_fn write;
  void *opaque;
  int armor;
  int status; // sticky: 0, 1 once finished, or the first error
  mc_pgp_armor armor_st;
  mc_pgp_partial seipd_pkt;
  mc_pgp_seipd *seipd;
  mc_pgp_partial literal;
};

static int to_user(void *opaque, const uint8_t *data, size_t len) {
  mc_pgp_encryptor *e = opaque;
  if (len == 0)
    return 0;
  int ret = e->write(e->opaque, data, len);
  return ret < 0 ? ret : 0;
}

static int to_output(void *opaque, const uint8_t *data, size_t len) {
  mc_pgp_encryptor *e = opaque;
  if (e->armor)
    return mc_pgp_armor_write(&e->armor_st, data, len);
  return to_user(e, data, len);
}

static int to_seipd_pkt(void *opaque, const uint8_t *data, size_t len) {
  return mc_pgp_partial_write(opaque, data, len);
}

static int apply_override(mc_pgp_format *fmt, uint32_t format) {
  switch (format) {
  case MC_PGP_FORMAT_AUTO:
    return 0;
  case MC_PGP_FORMAT_SEIPDV1:
    fmt->seipd_version = 1;
    fmt->aead = 0;
    fmt->chunk_octet = 0;
    return 0;
  case MC_PGP_FORMAT_SEIPDV2_OCB:
  case MC_PGP_FORMAT_SEIPDV2_GCM:
    fmt->seipd_version = 2;
    fmt->aead = format == MC_PGP_FORMAT_SEIPDV2_OCB ? MC_PGP_AEAD_OCB : MC_PGP_AEAD_GCM;
    fmt->chunk_octet = MC_PGP_DEFAULT_CHUNK_OCTET;
    return 0;
  default:
    return MC_ERR_INVALID_ARGUMENT;
  }
}

static int start(mc_pgp_encryptor *e, const pgp_recipient *rcpts, size_t num_rcpts,
                 const mc_pgp_encrypt_params *p) {
  mc_pgp_rand_fn rnd = p->rnd != NULL ? p->rnd : mc_pgp_rand_default;
  size_t name_len = p->filename != NULL ? strlen(p->filename) : 0;
  MC_FAIL_IF(name_len > 255, MC_ERR_INVALID_ARGUMENT);
  mc_pgp_format fmt;
  MC_TRY(mc_pgp_format_select(&fmt, rcpts, num_rcpts));
  MC_TRY(apply_override(&fmt, (uint32_t)p->format_override));
  // RFC 9580 §6.2 advises against the CRC-24 line, but GnuPG 2.2, the
  // typical reader of SEIPDv1, misreads some armor without it.
  e->armor_st.with_crc = fmt.seipd_version == 1;
  size_t sk_len = mc_pgp_sym_key_len(fmt.sym);
  uint8_t sk[MC_PGP_MAX_SESSION_KEY_LEN];
  uint8_t *pkesk = malloc(MC_PGP_PKESK_MAX_LEN);
  MC_FAIL_IF(pkesk == NULL, -ENOMEM);
  int ret = rnd(p->rnd_opaque, sk, sk_len);
  // Every PKESK is built before anything is written, so that a key the
  // engine cannot use fails the call without output.
  uint8_t **packets = calloc(num_rcpts, sizeof *packets);
  size_t *lens = calloc(num_rcpts, sizeof *lens);
  if (packets == NULL || lens == NULL)
    ret = -ENOMEM;
  for (size_t i = 0; ret == 0 && i < num_rcpts; i++) {
    ret =
        mc_pgp_pkesk_write(pkesk, MC_PGP_PKESK_MAX_LEN, &lens[i], &rcpts[i],
                           fmt.seipd_version == 2 ? 6 : 3, fmt.sym, sk, sk_len, rnd, p->rnd_opaque);
    if (ret == 0) {
      packets[i] = malloc(lens[i]);
      if (packets[i] == NULL)
        ret = -ENOMEM;
      else
        memcpy(packets[i], pkesk, lens[i]);
    }
  }
  // The encrypted data packet's engine too, before anything is written:
  // making it is the last thing that can fail for want of memory. Its head
  // waits in seipd_pkt's buffer (less than a piece) until the PKESKs are
  // out.
  mc_pgp_partial_init(&e->seipd_pkt, MC_PGP_TAG_SEIPD, to_output, e);
  if (ret == 0)
    ret = mc_pgp_seipd_new(&e->seipd, &fmt, sk, sk_len, rnd, p->rnd_opaque, to_seipd_pkt,
                           &e->seipd_pkt);
  mc_wipe(sk, sizeof sk);
  for (size_t i = 0; ret == 0 && i < num_rcpts; i++)
    ret = to_output(e, packets[i], lens[i]);
  for (size_t i = 0; packets != NULL && i < num_rcpts; i++)
    free(packets[i]);
  free(packets);
  free(lens);
  free(pkesk);
  MC_TRY(ret);
  // Literal Data packet (RFC 9580 §5.9): binary, the file name, no date.
  mc_pgp_partial_init(&e->literal, MC_PGP_TAG_LITERAL, mc_pgp_seipd_write, e->seipd);
  uint8_t head[2] = {'b', (uint8_t)name_len};
  static const uint8_t no_date[4] = {0};
  MC_TRY(mc_pgp_partial_write(&e->literal, head, 2));
  MC_TRY(mc_pgp_partial_write(&e->literal, (const uint8_t *)p->filename, name_len));
  return mc_pgp_partial_write(&e->literal, no_date, 4);
}

int mc_pgp_encryptor_new_rcpts(mc_pgp_encryptor **out, const pgp_recipient *rcpts, size_t num_rcpts,
                               const mc_pgp_encrypt_params *params, mc_pgp_write_fn write,
                               void *opaque) {
  MC_FAIL_IF(out == NULL || rcpts == NULL || num_rcpts == 0 || params == NULL || write == NULL,
             MC_ERR_INVALID_ARGUMENT);
  *out = NULL;
  mc_pgp_encryptor *e = calloc(1, sizeof *e);
  MC_FAIL_IF(e == NULL, -ENOMEM);
  e->write = write;
  e->opaque = opaque;
  e->armor = params->armor;
  // The CRC-24 choice waits for the format (start()).
  mc_pgp_armor_init(&e->armor_st, 0, to_user, e);
  int ret = start(e, rcpts, num_rcpts, params);
  if (ret < 0) {
    mc_pgp_encryptor_free(e);
    return ret;
  }
  *out = e;
  return 0;
}

int mc_pgp_encryptor_update(mc_pgp_encryptor *e, const uint8_t *in, size_t in_len) {
  MC_FAIL_IF(e == NULL || (in == NULL && in_len > 0), MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(e->status == 1, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(e->status);
  int ret = mc_pgp_partial_write(&e->literal, in, in_len);
  if (ret < 0)
    e->status = ret;
  return ret;
}

int mc_pgp_encryptor_final(mc_pgp_encryptor *e) {
  MC_FAIL_IF(e == NULL || e->status == 1, MC_ERR_INVALID_ARGUMENT);
  MC_TRY(e->status);
  int ret = mc_pgp_partial_finish(&e->literal);
  if (ret == 0)
    ret = mc_pgp_seipd_finish(e->seipd);
  if (ret == 0)
    ret = mc_pgp_partial_finish(&e->seipd_pkt);
  if (ret == 0 && e->armor)
    ret = mc_pgp_armor_finish(&e->armor_st);
  e->status = ret < 0 ? ret : 1;
  return ret;
}

void mc_pgp_encryptor_free(mc_pgp_encryptor *e) {
  if (e == NULL)
    return;
  mc_pgp_seipd_free(e->seipd);
  // The buffers held plaintext on its way in.
  mc_wipe(e, sizeof *e);
  free(e);
}

size_t mc_pgp_encrypt_max_len(size_t num_keys, size_t in_len, uint32_t flags) {
  // Fixed parts, PKESKs, one partial length octet per 8 KiB at two packet
  // levels, a 16-octet tag per chunk of at least 256 KiB plus the final
  // tag; CFB's prefix and MDC are below the fixed part.
  size_t pieces = in_len / MC_PGP_PARTIAL_LEN + 2;
  size_t chunks = in_len / ((size_t)1 << (MC_PGP_DEFAULT_CHUNK_OCTET + 6)) + 2;
  size_t bin = in_len + 512 + num_keys * MC_PGP_PKESK_MAX_LEN + 2 * pieces + 16 * chunks;
  if (bin < in_len)
    return SIZE_MAX;
  if ((flags & MC_PGP_ARMOR) == 0)
    return bin;
  size_t lines = bin / 48 + 1;
  return lines * 65 + 128;
}

struct fixed_out {
  uint8_t *p;
  size_t cap, len;
};

static int write_fixed(void *opaque, const uint8_t *data, size_t len) {
  struct fixed_out *o = opaque;
  if (len > o->cap - o->len)
    return MC_ERR_BUFFER_TOO_SMALL;
  memcpy(o->p + o->len, data, len);
  o->len += len;
  return 0;
}

// The largest message encrypt_direct takes: its packets carry definite
// lengths, which the five-octet form limits to 2^32 - 1.
#define DIRECT_MAX_LEN ((size_t)0xffffffffu - 4096)

// encrypt_direct is mc_pgp_encrypt_rcpts for binary output: the whole
// message is known, so the Literal Data and SEIPD packets get definite
// lengths and the SEIPD body is encrypted from `in` straight into `out`
// (pgp_seipd.c's one-shot path) instead of through the streaming stages'
// buffers. Format, random draws and their order are those of the streaming
// path; only the packet framing differs, as RFC 9580 §4.2 allows. With
// `p->armor` the binary message is then armored in place in `out`.
static int encrypt_direct(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *rcpts,
                          size_t num_rcpts, const mc_pgp_encrypt_params *p, const uint8_t *in,
                          size_t in_len) {
  MC_FAIL_IF(rcpts == NULL || num_rcpts == 0 || (in == NULL && in_len > 0),
             MC_ERR_INVALID_ARGUMENT);
  mc_pgp_rand_fn rnd = p->rnd != NULL ? p->rnd : mc_pgp_rand_default;
  mc_pgp_format fmt;
  MC_TRY(mc_pgp_format_select(&fmt, rcpts, num_rcpts));
  MC_TRY(apply_override(&fmt, (uint32_t)p->format_override));
  size_t name_len = p->filename != NULL ? strlen(p->filename) : 0;
  MC_FAIL_IF(name_len > 255, MC_ERR_INVALID_ARGUMENT);
  // Literal Data packet (RFC 9580 §5.9): binary, the file name, no date.
  uint8_t head[6 + 2 + 255 + 4];
  size_t h = mc_pgp_header_write(head, MC_PGP_TAG_LITERAL, 2 + name_len + 4 + in_len);
  head[h++] = 'b';
  head[h++] = (uint8_t)name_len;
  if (name_len > 0)
    memcpy(head + h, p->filename, name_len);
  h += name_len;
  memset(head + h, 0, 4);
  h += 4;
  size_t body_len = mc_pgp_seipd_oneshot_len(&fmt, h + in_len);

  size_t sk_len = mc_pgp_sym_key_len(fmt.sym), pos = 0;
  uint8_t sk[MC_PGP_MAX_SESSION_KEY_LEN];
  int ret = rnd(p->rnd_opaque, sk, sk_len);
  for (size_t i = 0; ret == 0 && i < num_rcpts; i++) {
    size_t n = 0;
    ret =
        mc_pgp_pkesk_write(out + pos, out_cap - pos, &n, &rcpts[i], fmt.seipd_version == 2 ? 6 : 3,
                           fmt.sym, sk, sk_len, rnd, p->rnd_opaque);
    pos += n;
  }
  uint8_t seipd_hdr[6];
  size_t hdr_len = mc_pgp_header_write(seipd_hdr, MC_PGP_TAG_SEIPD, body_len);
  if (ret == 0 && (out_cap - pos < hdr_len || out_cap - pos - hdr_len < body_len))
    ret = MC_ERR_BUFFER_TOO_SMALL;
  // Armored output: the binary message goes to the end of `out` (the
  // PKESKs move there), and the armor is then written from the start of
  // `out` over it. Armor is longer than its input (65 characters per 48
  // bytes plus the lines around), so when the whole armored message fits
  // in `out_cap`, the armor written for the first j bytes ends at or before
  // byte j of the binary: the writer never overtakes what it has yet to
  // read, and it encodes each block into its own buffer before the sink
  // copies it out.
  size_t base = 0, bin_len = pos + hdr_len + body_len;
  int with_crc = fmt.seipd_version == 1; // as the streaming path decides
  if (ret == 0 && p->armor) {
    if (mc_pgp_armor_len(bin_len, with_crc) > out_cap) {
      ret = MC_ERR_BUFFER_TOO_SMALL;
    } else {
      base = out_cap - bin_len;
      memmove(out + base, out, pos);
    }
  }
  if (ret == 0) {
    memcpy(out + base + pos, seipd_hdr, hdr_len);
    pos += hdr_len;
    ret = mc_pgp_seipd_oneshot(out + base + pos, &fmt, sk, sk_len, rnd, p->rnd_opaque, head, h, in,
                               in_len);
  }
  mc_wipe(sk, sizeof sk);
  mc_wipe(head, sizeof head);
  MC_TRY(ret);
  if (!p->armor) {
    *out_len = bin_len;
    return 0;
  }
  struct fixed_out o = {out, out_cap, 0};
  mc_pgp_armor a;
  mc_pgp_armor_init(&a, with_crc, write_fixed, &o);
  MC_TRY(mc_pgp_armor_write(&a, out + base, bin_len));
  MC_TRY(mc_pgp_armor_finish(&a));
  *out_len = o.len;
  return 0;
}

int mc_pgp_encrypt_rcpts(uint8_t *out, size_t out_cap, size_t *out_len, const pgp_recipient *rcpts,
                         size_t num_rcpts, const mc_pgp_encrypt_params *params, const uint8_t *in,
                         size_t in_len) {
  MC_FAIL_IF(out == NULL || out_len == NULL, MC_ERR_INVALID_ARGUMENT);
  if (params != NULL && in_len <= DIRECT_MAX_LEN) {
    *out_len = 0;
    int ret = encrypt_direct(out, out_cap, out_len, rcpts, num_rcpts, params, in, in_len);
    if (ret < 0)
      *out_len = 0;
    return ret;
  }
  struct fixed_out o = {out, out_cap, 0};
  mc_pgp_encryptor *e = NULL;
  int ret = mc_pgp_encryptor_new_rcpts(&e, rcpts, num_rcpts, params, write_fixed, &o);
  if (ret == 0)
    ret = mc_pgp_encryptor_update(e, in, in_len);
  if (ret == 0)
    ret = mc_pgp_encryptor_final(e);
  mc_pgp_encryptor_free(e);
  *out_len = ret == 0 ? o.len : 0;
  return ret;
}

int mc_pgp_rcpts_from_certs(pgp_recipient **out, size_t *num_out, const mc_pgp_cert *const *certs,
                            size_t num_certs) {
  MC_FAIL_IF(out == NULL || num_out == NULL || certs == NULL || num_certs == 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(num_certs > MC_PGP_MAX_RECIPIENT_KEYS, MC_ERR_INVALID_ARGUMENT);
  size_t total = 0;
  for (size_t i = 0; i < num_certs; i++) {
    const pgp_recipient *r = NULL;
    MC_FAIL_IF(certs[i] == NULL, MC_ERR_INVALID_ARGUMENT);
    size_t n = pgp_cert_recipients(certs[i], &r);
    // A certificate without a usable encryption key cannot be honoured:
    // encrypting to the others only would silently drop a recipient.
    MC_FAIL_IF(n == 0, MC_ERR_BAD_KEY);
    total += n;
  }
  MC_FAIL_IF(total > MC_PGP_MAX_RECIPIENT_KEYS, MC_ERR_INVALID_ARGUMENT);
  pgp_recipient *all = calloc(total, sizeof *all);
  MC_FAIL_IF(all == NULL, -ENOMEM);
  size_t k = 0;
  for (size_t i = 0; i < num_certs; i++) {
    const pgp_recipient *r = NULL;
    size_t n = pgp_cert_recipients(certs[i], &r);
    memcpy(all + k, r, n * sizeof *r);
    k += n;
  }
  *out = all;
  *num_out = total;
  return 0;
}

int mc_pgp_params_from_options(mc_pgp_encrypt_params *p, const mc_pgp_encrypt_options *options) {
  memset(p, 0, sizeof *p);
  if (options == NULL)
    return 0;
  MC_FAIL_IF(options->version != MC_PGP_ENCRYPT_OPTIONS_VERSION, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((options->flags & ~MC_PGP_ARMOR) != 0, MC_ERR_INVALID_ARGUMENT);
  p->armor = (options->flags & MC_PGP_ARMOR) != 0;
  p->format_override = (int)options->format;
  p->filename = options->filename;
  return 0;
}

int mc_pgp_encryptor_new(mc_pgp_encryptor **out, const mc_pgp_cert *const *certs, size_t num_certs,
                         const mc_pgp_encrypt_options *options, mc_pgp_write_fn write,
                         void *opaque) {
  MC_FAIL_IF(out == NULL, MC_ERR_INVALID_ARGUMENT);
  *out = NULL;
  mc_pgp_encrypt_params p;
  MC_TRY(mc_pgp_params_from_options(&p, options));
  pgp_recipient *rcpts = NULL;
  size_t num = 0;
  MC_TRY(mc_pgp_rcpts_from_certs(&rcpts, &num, certs, num_certs));
  int ret = mc_pgp_encryptor_new_rcpts(out, rcpts, num, &p, write, opaque);
  free(rcpts);
  return ret;
}

int mc_pgp_encrypt(uint8_t *out, size_t out_cap, size_t *out_len, const mc_pgp_cert *const *certs,
                   size_t num_certs, const mc_pgp_encrypt_options *options, const uint8_t *in,
                   size_t in_len) {
  MC_FAIL_IF(out_len == NULL, MC_ERR_INVALID_ARGUMENT);
  *out_len = 0;
  mc_pgp_encrypt_params p;
  MC_TRY(mc_pgp_params_from_options(&p, options));
  pgp_recipient *rcpts = NULL;
  size_t num = 0;
  MC_TRY(mc_pgp_rcpts_from_certs(&rcpts, &num, certs, num_certs));
  int ret = mc_pgp_encrypt_rcpts(out, out_cap, out_len, rcpts, num, &p, in, in_len);
  free(rcpts);
  return ret;
}
