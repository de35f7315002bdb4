// bench_pgp.c: messages per second and MB/s of libmsgcrypt's OpenPGP
// encryption (mc_pgp_encrypt) to one recipient, 10 KiB and 1 MiB messages,
// and the raw AES-256 it is judged against on the same 1 MiB: AES-256-OCB
// (mc_aes_ocb_*, key set up once, one 15-byte nonce) and AES-256-CFB
// (mc_aes_cfb_encrypt over BoringSSL). Where the automatic OCB choice is the
// 512-bit VAES loops, the 256-bit ones get a row of their own too
// (`aes256-ocb-vaes256`), so that both baselines show in one run. librnp,
// the peer, runs in its own process (peer_rnp.c); run-bench.sh runs both
// and goals.py judges them.
//
// Each certificate is parsed once; every message is then one mc_pgp_encrypt
// call, binary, in the format the engine picks for the key, which is printed
// on stderr ("format NAME: SEIPDv2 AES-256-OCB", read from the output's
// encrypted data packet). Records follow corvid_bench.h: one message per
// record, `bytes` its plaintext length.
//
// Armored messages (MC_PGP_ARMOR) get rows of their own, pgp-armor-NAME
// (peer_rnp writes the same rows with librnp's armor). Two rows isolate the
// fixed and per-byte costs that armor and the PKESKs add:
//   pgp-armor-write, 1 MiB: the armor writer alone (mc_pgp_armor_*, into a
//     memory sink) with and without the CRC-24 line (`mc-crc`, `mc`),
//     against libencodify's wrapped Base64 of the same bytes (`enc-wrap64`,
//     64 columns, CRLF: the codec speed the writer is judged against);
//   hkdf-{x25519,x448,seipdv2}: one HKDF of the inputs the X25519 and X448
//     PKESKs and the SEIPDv2 message key derive from, through mc_hkdf
//     (`mc`) and BoringSSL's HKDF() (`boringssl`), 64 calls per record.
//
// usage: bench_pgp [--rounds N] NAME=CERT_FILE...
//   CERT_FILE is armored or binary; NAME names the rows (pgp-encrypt-NAME).
#include <openssl/digest.h>
#include <openssl/hkdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aead_internal.h"
#include "corvid_bench.h"
#include "encodify.h"
#include "msgcrypt.h"
#include "pgp_encrypt_internal.h"

enum { SMALL = 10 * 1024, LARGE = 1 << 20 };

struct job {
  const mc_pgp_cert *cert;
  const uint8_t *in;
  size_t len;
  uint8_t *out;
  size_t out_cap, out_len;
  unsigned n; // messages per measured call
  const mc_pgp_encrypt_options *options;
  int with_crc;
  mc_aes_ocb_ctx ocb;
  uint8_t key[32], nonce[15], iv[16];
};

// A failed call would time an error path: stop instead.
static void must(int status, const char *what) {
  if (status != 0) {
    fprintf(stderr, "bench_pgp: %s failed (%d)\n", what, status);
    exit(1);
  }
}

static void encrypt_n(void *ctx) {
  struct job *j = ctx;
  const mc_pgp_cert *certs[1] = {j->cert};
  for (unsigned i = 0; i < j->n; i++) {
    must(mc_pgp_encrypt(j->out, j->out_cap, &j->out_len, certs, 1, j->options, j->in, j->len),
         "mc_pgp_encrypt");
    corvid_bench_sink(j->out, j->out_len);
  }
}

static void ocb_seal(void *ctx) {
  struct job *j = ctx;
  size_t n = 0;
  must(mc_aes_ocb_seal(&j->ocb, j->out, j->out_cap, &n, j->nonce, sizeof j->nonce, j->in, j->len,
                       NULL, 0),
       "mc_aes_ocb_seal");
  corvid_bench_sink(j->out, n);
}

static void cfb_encrypt(void *ctx) {
  struct job *j = ctx;
  must(mc_aes_cfb_encrypt(j->out, j->key, sizeof j->key, j->iv, j->in, j->len),
       "mc_aes_cfb_encrypt");
  corvid_bench_sink(j->out, j->len);
}

// mem_sink appends to the job's output buffer, which is large enough.
static int mem_sink(void *opaque, const uint8_t *data, size_t len) {
  struct job *j = opaque;
  memcpy(j->out + j->out_len, data, len);
  j->out_len += len;
  return 0;
}

static void armor_write(void *ctx) {
  struct job *j = ctx;
  mc_pgp_armor a;
  j->out_len = 0;
  mc_pgp_armor_init(&a, j->with_crc, mem_sink, j);
  must(mc_pgp_armor_write(&a, j->in, j->len), "mc_pgp_armor_write");
  must(mc_pgp_armor_finish(&a), "mc_pgp_armor_finish");
  corvid_bench_sink(j->out, j->out_len);
}

static void enc_wrap(void *ctx) {
  struct job *j = ctx;
  size_t n = 0;
  must(enc_base64_encode(0, 64, (char *)j->out, j->out_cap, &n, j->in, j->len), "base64");
  corvid_bench_sink(j->out, n);
}

// The inputs of one HKDF: ikm (ephemeral || recipient || shared point for
// the PKESKs, the session key for SEIPDv2), salt, info and output length.
struct hkdf_job {
  mc_hash_alg alg;
  uint8_t ikm[3 * 56], salt[32], out[64];
  size_t ikm_len, salt_len, info_len, out_len;
  const char *info;
};
enum { HKDF_CALLS = 64 };

static void hkdf_mc(void *ctx) {
  struct hkdf_job *h = ctx;
  for (int i = 0; i < HKDF_CALLS; i++) {
    must(mc_hkdf(h->alg, h->out, h->out_len, h->ikm, h->ikm_len, h->salt_len ? h->salt : NULL,
                 h->salt_len, (const uint8_t *)h->info, h->info_len),
         "mc_hkdf");
    h->ikm[0] = h->out[0];
  }
}

static void hkdf_bssl(void *ctx) {
  struct hkdf_job *h = ctx;
  const EVP_MD *md = h->alg == MC_HASH_SHA512 ? EVP_sha512() : EVP_sha256();
  for (int i = 0; i < HKDF_CALLS; i++) {
    if (!HKDF(h->out, h->out_len, md, h->ikm, h->ikm_len, h->salt, h->salt_len,
              (const uint8_t *)h->info, h->info_len))
      must(-1, "HKDF");
    h->ikm[0] = h->out[0];
  }
}

static void bench_hkdf(unsigned rounds) {
  static const struct {
    const char *bench;
    mc_hash_alg alg;
    size_t ikm_len, salt_len, out_len;
    const char *info;
    size_t info_len;
  } rows[] = {
      {"hkdf-x25519", MC_HASH_SHA256, 3 * 32, 0, 16, "OpenPGP X25519", 14},
      {"hkdf-x448", MC_HASH_SHA512, 3 * 56, 0, 32, "OpenPGP X448", 12},
      {"hkdf-seipdv2", MC_HASH_SHA256, 32, 32, 32 + 7, "\xd2\x02\x09\x02\x10", 5},
  };
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    struct hkdf_job h = {.alg = rows[k].alg,
                         .ikm_len = rows[k].ikm_len,
                         .salt_len = rows[k].salt_len,
                         .out_len = rows[k].out_len,
                         .info = rows[k].info,
                         .info_len = rows[k].info_len};
    memset(h.ikm, 0x5a, sizeof h.ikm);
    memset(h.salt, 0xa5, sizeof h.salt);
    struct corvid_bench_result r;
    // Alternate the two, so that both see the same machine.
    for (unsigned t = 0; t < 2; t++) {
      must(corvid_bench_measure(&r, 10 * rounds, hkdf_mc, &h), "measure");
      if (t == 1) {
        r.min_ns /= HKDF_CALLS;
        r.median_ns /= HKDF_CALLS;
        corvid_bench_emit(stdout, rows[k].bench, "mc", 0, 1, &r);
      }
      must(corvid_bench_measure(&r, 10 * rounds, hkdf_bssl, &h), "measure");
      if (t == 1) {
        r.min_ns /= HKDF_CALLS;
        r.median_ns /= HKDF_CALLS;
        corvid_bench_emit(stdout, rows[k].bench, "boringssl", 0, 1, &r);
      }
    }
  }
}

// describe_format names the format of the message `m`: the first packet
// after the PKESKs is the encrypted data packet, whose body opens with its
// version, then (v2) the cipher and AEAD ids. Our writer uses new-format
// headers only.
static void describe_format(char *out, size_t cap, const uint8_t *m, size_t len) {
  size_t o = 0;
  snprintf(out, cap, "unknown");
  while (o + 2 < len && (m[o] & 0xc0) == 0xc0) {
    unsigned tag = m[o] & 0x3f, b = m[o + 1];
    size_t hdr = 2, body = b;
    if (b >= 192 && b < 224) {
      body = ((size_t)(b - 192) << 8) + m[o + 2] + 192;
      hdr = 3;
    } else if (b == 255 && o + 6 <= len) {
      body = (size_t)m[o + 2] << 24 | (size_t)m[o + 3] << 16 | (size_t)m[o + 4] << 8 | m[o + 5];
      hdr = 6;
    } else if (b >= 224 && b < 255) {
      body = 0; // a partial length: only the body's start matters here
    }
    if (tag == 18 && o + hdr + 3 <= len) {
      const uint8_t *p = m + o + hdr;
      static const char *const sym[] = {[7] = "AES-128", [8] = "AES-192", [9] = "AES-256"};
      if (p[0] == 1)
        snprintf(out, cap, "SEIPDv1 (CFB, cipher in the PKESK)");
      else
        snprintf(out, cap, "SEIPDv2 %s-%s", p[1] <= 9 && sym[p[1]] ? sym[p[1]] : "?",
                 p[2] == 2   ? "OCB"
                 : p[2] == 3 ? "GCM"
                             : "?");
      return;
    }
    o += hdr + body;
  }
}

static uint8_t *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16;
  uint8_t *p = malloc(cap);
  *len = p ? fread(p, 1, cap, f) : 0;
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  unsigned rounds = 5;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--rounds") == 0) {
    rounds = (unsigned)atoi(argv[i + 1]);
    i += 2;
  }
  if (rounds < 1 || rounds > 20) {
    fprintf(stderr, "usage: bench_pgp [--rounds N] NAME=CERT_FILE...\n");
    return 2;
  }
  struct job j = {0};
  uint8_t *msg = malloc(LARGE);
  // Room for an armored message and for the codec's CRLF-wrapped Base64.
  j.out_cap = mc_pgp_encrypt_max_len(1, LARGE, MC_PGP_ARMOR);
  if (j.out_cap < enc_base64_encode_len(0, 64, LARGE))
    j.out_cap = enc_base64_encode_len(0, 64, LARGE);
  j.out = malloc(j.out_cap);
  if (!msg || !j.out)
    return 1;
  for (size_t k = 0; k < LARGE; k++)
    msg[k] = (uint8_t)(k * 131 + 7);
  struct corvid_bench_result r;
  // The raw AES baselines, over the same 1 MiB.
  memset(j.key, 0x42, sizeof j.key);
  must(mc_aes_ocb_init(&j.ocb, j.key, sizeof j.key, 16), "mc_aes_ocb_init");
  j.in = msg;
  j.len = LARGE;
  must(corvid_bench_measure(&r, 10 * rounds, ocb_seal, &j), "measure");
  corvid_bench_emit(stdout, "pgp-raw-aes256", "aes256-ocb", LARGE, 1, &r);
  mc_aes_ocb_cleanup(&j.ocb);
  if (mc_ocb_vaes512_available()) {
    must(mc_aes_ocb_init_impl(&j.ocb, j.key, sizeof j.key, 16, MC_OCB_IMPL_VAES), "init VAES");
    must(corvid_bench_measure(&r, 10 * rounds, ocb_seal, &j), "measure");
    corvid_bench_emit(stdout, "pgp-raw-aes256", "aes256-ocb-vaes256", LARGE, 1, &r);
    mc_aes_ocb_cleanup(&j.ocb);
  }
  must(corvid_bench_measure(&r, 10 * rounds, cfb_encrypt, &j), "measure");
  corvid_bench_emit(stdout, "pgp-raw-aes256", "aes256-cfb", LARGE, 1, &r);
  // The armor writer against the codec, over the same 1 MiB.
  for (int crc = 1; crc >= 0; crc--) {
    j.with_crc = crc;
    must(corvid_bench_measure(&r, 10 * rounds, armor_write, &j), "measure");
    corvid_bench_emit(stdout, "pgp-armor-write", crc ? "mc-crc" : "mc", LARGE, 1, &r);
  }
  must(corvid_bench_measure(&r, 10 * rounds, enc_wrap, &j), "measure");
  corvid_bench_emit(stdout, "pgp-armor-write", "enc-wrap64", LARGE, 1, &r);
  bench_hkdf(rounds);
  static const mc_pgp_encrypt_options armor_opts = {MC_PGP_ENCRYPT_OPTIONS_VERSION, MC_PGP_ARMOR,
                                                    MC_PGP_FORMAT_AUTO, NULL};
  for (; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      return 2;
    *eq = '\0';
    size_t len = 0;
    uint8_t *data = read_file(eq + 1, &len);
    mc_pgp_certs *certs = NULL;
    if (!data || mc_pgp_certs_parse(&certs, NULL, NULL, data, len, (int64_t)time(NULL)) != 0 ||
        mc_pgp_cert_num_recipients(mc_pgp_certs_get(certs, 0)) == 0) {
      fprintf(stderr, "bench_pgp: %s: no usable certificate in %s\n", argv[i], eq + 1);
      free(data);
      mc_pgp_certs_free(certs);
      continue;
    }
    j.cert = mc_pgp_certs_get(certs, 0);
    static const size_t sizes[] = {SMALL, LARGE, SMALL, LARGE};
    for (size_t s = 0; s < 4; s++) {
      j.options = s < 2 ? NULL : &armor_opts;
      j.len = sizes[s];
      j.n = sizes[s] == SMALL ? 4 : 1;
      must(corvid_bench_measure(&r, 10 * rounds, encrypt_n, &j), "measure");
      r.min_ns /= j.n;
      r.median_ns /= j.n;
      char bench[64], fmt[64];
      snprintf(bench, sizeof bench, "pgp-%s-%s", s < 2 ? "encrypt" : "armor", argv[i]);
      corvid_bench_emit(stdout, bench, "mc", sizes[s], 1, &r);
      if (s == 0) {
        describe_format(fmt, sizeof fmt, j.out, j.out_len);
        fprintf(stderr, "format %s: %s\n", argv[i], fmt);
      }
    }
    mc_pgp_certs_free(certs);
    free(data);
  }
  free(j.out);
  free(msg);
  return 0;
}
