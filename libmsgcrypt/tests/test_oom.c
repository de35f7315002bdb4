// test_oom.c: every allocation libmsgcrypt makes may fail, one at a time
// (corvid_test_alloc_fault.h), and each failure gives -ENOMEM with nothing
// half-set (no handle, a zero length, no key material left in the caller's
// buffer), never a crash, a leak or a changed trust store; the next call
// works and gives what a run without failures gives. Covered: OpenPGP
// certificates (RSA, v6 X25519, v4 and v6 ML-KEM-768+X25519,
// ML-KEM-1024+X448; armored, binary, several in one input), encryption in
// each format to one and several recipients, streaming, PGP/MIME, header
// protection, Autocrypt; S/MIME certificates (PEM, DER, PKCS#7 bundles),
// the trust store (anchors, directories, CRLs) and CMS encryption; the
// optional per-thread caches (ML-KEM, X25519, P-256) and the self-tests,
// which must work when those cannot be allocated. Validation, warnings and
// descriptions allocate nothing and are not walked. BoringSSL is a shared
// library, so its own allocations neither count nor fail here; the S/MIME
// certificates come from the openssl command-line tool at start.
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/base64.h>
#include <openssl/bn.h>

#include "check_util.h"
#include "corvid_check.h"
#include "corvid_test_alloc_fault.h"
#include "msgcrypt.h"
#include "pgp_internal.h"
#include "pgp_test_build.h"

// Each operation is tried with its 1st, 2nd, ... allocation failing until a
// run reaches no armed allocation. The operations here allocate a few dozen
// times at most; the bound only stops a walk that never ends.
#define MAX_STEPS 400

// Where the openssl-made S/MIME certificates are, and a time a minute
// after they were made.
static char smime_dir[256];
static int64_t smime_now;

// ---- Output sinks ----

// A write callback's buffer: fixed, so that collecting output allocates
// nothing while a failure is armed.
struct sink {
  uint8_t buf[256 << 10];
  size_t len;
  size_t calls;
};

static int sink_write(void *opaque, const uint8_t *data, size_t len) {
  struct sink *s = opaque;
  if (len > sizeof s->buf - s->len)
    return -ENOSPC;
  memcpy(s->buf + s->len, data, len);
  s->len += len;
  s->calls++;
  return 0;
}

static int has_text(const uint8_t *p, size_t len, const char *text) {
  size_t n = strlen(text);
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(p + i, text, n) == 0)
      return 1;
  return 0;
}

static int all_zero(const uint8_t *p, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != 0)
      return 0;
  return 1;
}

// ---- The walk ----

// An operation under test: `run` performs it once and returns its code;
// `failed` checks what a failed run left (its own outputs and the state it
// worked on) and that the operation, run again, works; `succeeded` checks
// the full effect of a run that reached no armed allocation.
struct op {
  const char *name;
  void *ctx;
  int (*run)(void *ctx);
  void (*failed)(void *ctx, unsigned long n);
  void (*succeeded)(void *ctx);
};

// The P-256 base point, uncompressed.
static const uint8_t generator[65] = {
    0x04, 0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5,
    0x63, 0xa4, 0x40, 0xf2, 0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4,
    0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96, 0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a,
    0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16, 0x2b, 0xce, 0x33,
    0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5};

// forget_peer_keys makes this thread's X25519 and P-256 code forget the
// last peer key, so that no table of one is built (and allocated) in the
// next run: which key came last depends on where the previous run failed.
static void forget_peer_keys(void) {
  static const uint8_t x25519_base[32] = {9};
  uint8_t priv[32] = {1}, out[32], pub[65];
  ck_assert_int_eq(mc_x25519(out, priv, x25519_base), 0);
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, pub, sizeof pub, out, sizeof out, priv,
                                            sizeof priv, generator, sizeof generator),
                   0);
}

// warm_up runs an operation twice before its walk. Encryption keeps
// per-thread caches that a failed allocation leaves unfilled without failing
// the call, as msgcrypt.h says: ML-KEM and RSA key expansions on a thread's
// first use of a key, X25519 and P-256 tables of a peer key that came twice
// in a row (optional_caches_may_fail checks those). The expansions filled
// first and the peer keys forgotten before each run leave the walk the
// operation's own allocations.
static void warm_up(int (*run)(void *ctx), void *ctx) {
  for (int i = 0; i < 2; i++) {
    int rc = run(ctx);
    ck_assert_msg(rc == 0, "%s", mc_strerror(rc));
  }
}

// walk runs `o` with its nth allocation failing for n = 1, 2, ... until a
// run reaches no armed allocation, and returns that n.
static unsigned long walk(const struct op *o) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    forget_peer_keys();
    alloc_fault_arm(n);
    int rc = o->run(o->ctx);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "%s: %s", o->name, mc_strerror(rc));
      o->succeeded(o->ctx);
      break;
    }
    require(rc == -ENOMEM, "%s: allocation %lu failed, it said %s", o->name, n, mc_strerror(rc));
    o->failed(o->ctx, n);
  }
  require(n > 1, "%s allocates nothing", o->name);
  require(n < MAX_STEPS, "%s: more than %d allocations", o->name, MAX_STEPS);
  return n;
}

// ---- OpenPGP certificates ----

static struct blob concat(const struct blob *a, const struct blob *b) {
  struct blob c = {malloc(a->len + b->len), a->len + b->len};
  ck_assert_ptr_nonnull(c.p);
  memcpy(c.p, a->p, a->len);
  memcpy(c.p + a->len, b->p, b->len);
  return c;
}

// rsa_cert builds a v4 RSA-2048 certificate whose primary key certifies,
// signs and encrypts, with one user ID: the RSA key none of the sample
// files has.
static struct blob rsa_cert(void) {
  struct signer s;
  memset(&s, 0, sizeof s);
  s.rsa = RSA_new();
  BIGNUM *e = BN_new();
  ck_assert(s.rsa != NULL && e != NULL && BN_set_word(e, 65537));
  ck_assert(RSA_generate_key_ex(s.rsa, 2048, e, NULL));
  BN_free(e);
  uint8_t n[256], ev[8];
  ck_assert_uint_eq(BN_num_bytes(RSA_get0_n(s.rsa)), sizeof n);
  BN_bn2bin(RSA_get0_n(s.rsa), n);
  size_t e_len = BN_num_bytes(RSA_get0_e(s.rsa));
  BN_bn2bin(RSA_get0_e(s.rsa), ev);
  pgp_buf k;
  pgp_buf_init_growable(&k);
  pgp_buf_put_u8(&k, 4);
  pgp_buf_put_u32(&k, T_2023);
  pgp_buf_put_u8(&k, PGP_PK_RSA);
  put_mpi(&k, n, sizeof n);
  put_mpi(&k, ev, e_len);
  ck_assert_int_eq(k.err, 0);
  s.key.p = k.p;
  s.key.len = k.len;
  s.algo = PGP_PK_RSA;
  key_fingerprint(&s.key, s.fpr, &s.fpr_len);
  pgp_buf out;
  pgp_buf_init_growable(&out);
  put_packet(&out, PGP_TAG_PUBLIC_KEY, s.key.p, s.key.len);
  static const char uid[] = "Rsa <rsa@example.com>";
  put_packet(&out, PGP_TAG_USER_ID, (const uint8_t *)uid, sizeof uid - 1);
  const struct sig_opts all_uses = {.created = T_2025, .flags = 0x0f, .features = 0x09};
  sign_packet(&out, &s, PGP_SIG_CERT_POSITIVE, NULL, uid, &all_uses);
  ck_assert_int_eq(out.err, 0);
  signer_free(&s);
  struct blob b = {out.p, out.len};
  return b;
}

// The sample certificates, each with its key types.
enum {
  K_V6_X25519,    // RFC 9580 A.3: v6 Ed25519, X25519 subkey
  K_V4_EDDSA,     // v4 Ed25519, ML-KEM-768+X25519 subkey
  K_V6_MLKEM768,  // v6 Ed25519, ML-KEM-768+X25519
  K_V6_MLKEM1024, // v6 ML-DSA-87+Ed448, ML-KEM-1024+X448
  K_RSA,          // v4 RSA-2048, built here
  NUM_KEYS,
};

static struct blob key_input(int which) {
  static const char *const files[] = {
      [K_V6_X25519] = "rfc9580-appendixA/a3_cert.asc",
      [K_V4_EDDSA] = "openpgp-pqc/v4-eddsa-sample-pk.asc",
      [K_V6_MLKEM768] = "openpgp-pqc/v6-eddsa-sample-pk.asc",
      [K_V6_MLKEM1024] = "openpgp-pqc/v6-mldsa-87-sample-pk.asc",
  };
  return which == K_RSA ? rsa_cert() : read_vector(files[which]);
}

// What a parsed set shows through the public API, to compare a run after
// failures with one without.
struct certs_view {
  size_t count;
  char text[4][600];
};

static void view_certs(const mc_pgp_certs *certs, struct certs_view *v) {
  memset(v, 0, sizeof *v);
  v->count = mc_pgp_certs_count(certs);
  ck_assert_uint_le(v->count, 4);
  for (size_t i = 0; i < v->count; i++) {
    const mc_pgp_cert *c = mc_pgp_certs_get(certs, i);
    char desc[256], fpr[MC_PGP_FPR_HEX_LEN];
    size_t len;
    ck_assert_int_eq(mc_pgp_cert_describe(c, desc, sizeof desc, &len), 0);
    ck_assert_int_eq(mc_pgp_cert_fingerprint_hex(c, fpr, sizeof fpr), 0);
    mc_pgp_warning w[MC_PGP_MAX_WARNINGS];
    size_t num_w = 0;
    ck_assert_int_eq(mc_pgp_cert_warnings(c, w, MC_PGP_MAX_WARNINGS, &num_w, NULL, 0), 0);
    int at = snprintf(v->text[i], sizeof v->text[i], "%s %s keys=%zu recipients=%zu uids=%zu", desc,
                      fpr, mc_pgp_cert_num_keys(c), mc_pgp_cert_num_recipients(c),
                      mc_pgp_cert_num_user_ids(c));
    for (size_t j = 0; j < num_w; j++)
      at += snprintf(v->text[i] + at, sizeof v->text[i] - (size_t)at, " %s", w[j].name);
  }
}

static void views_equal(const struct certs_view *got, const struct certs_view *want,
                        const char *what) {
  ck_assert_msg(got->count == want->count, "%s: %zu certificates, want %zu", what, got->count,
                want->count);
  for (size_t i = 0; i < want->count; i++)
    ck_assert_msg(strcmp(got->text[i], want->text[i]) == 0, "%s: %s, want %s", what, got->text[i],
                  want->text[i]);
}

struct parse_ctx {
  struct blob in;
  mc_pgp_certs *out;
  mc_pgp_diag diag;
  struct certs_view want;
};

static int parse_run(void *ctx) {
  struct parse_ctx *c = ctx;
  c->out = (mc_pgp_certs *)&c->diag; // not NULL, so that a failure must clear it
  return mc_pgp_certs_parse(&c->out, NULL, &c->diag, c->in.p, c->in.len, NOW);
}

static void parse_succeeded(void *ctx) {
  struct parse_ctx *c = ctx;
  struct certs_view got;
  view_certs(c->out, &got);
  views_equal(&got, &c->want, "parse");
  mc_pgp_certs_free(c->out);
  c->out = NULL;
}

static void parse_failed(void *ctx, unsigned long n) {
  struct parse_ctx *c = ctx;
  ck_assert_msg(c->out == NULL, "allocation %lu failed, parse set a handle", n);
  ck_assert_int_eq(parse_run(c), 0);
  parse_succeeded(c);
}

static void walk_parse(struct blob in, const char *what) {
  struct parse_ctx c = {.in = in};
  mc_pgp_certs *ref = parse_ok(in.p, in.len, NOW);
  view_certs(ref, &c.want);
  mc_pgp_certs_free(ref);
  struct op o = {what, &c, parse_run, parse_failed, parse_succeeded};
  walk(&o);
}

START_TEST(pgp_certs_parse_each_allocation) {
  struct blob armored = key_input(_i);
  walk_parse(armored, "parse armored");
  if (armored.p[0] & 0x80) { // the RSA certificate is built binary
    free(armored.p);
    return;
  }
  struct blob binary = dearmor(&armored, "PUBLIC KEY BLOCK");
  walk_parse(binary, "parse binary");
  free(binary.p);
  free(armored.p);
}
END_TEST

// Several certificates in one input: a keyring of armored blocks and one of
// binary certificates back to back.
START_TEST(pgp_keyring_parse_each_allocation) {
  struct blob a = key_input(K_V6_X25519), b = key_input(K_V6_MLKEM768);
  struct blob ring = concat(&a, &b);
  walk_parse(ring, "parse armored keyring");
  struct blob ab = dearmor(&a, "PUBLIC KEY BLOCK"), bb = dearmor(&b, "PUBLIC KEY BLOCK");
  struct blob rsa = key_input(K_RSA);
  struct blob two = concat(&ab, &bb);
  struct blob three = concat(&two, &rsa);
  walk_parse(three, "parse binary keyring");
  free(a.p);
  free(b.p);
  free(ab.p);
  free(bb.p);
  free(rsa.p);
  free(ring.p);
  free(two.p);
  free(three.p);
}
END_TEST

// ---- OpenPGP encryption ----

static mc_pgp_certs *certs_of(int which) {
  struct blob in = key_input(which);
  mc_pgp_certs *certs = parse_ok(in.p, in.len, NOW);
  free(in.p);
  return certs;
}

// The certificates the encryption cases choose from, parsed once per test.
static mc_pgp_certs *keys[NUM_KEYS];

static void keys_load(void) {
  for (int i = 0; i < NUM_KEYS; i++)
    keys[i] = certs_of(i);
}

static void keys_free(void) {
  for (int i = 0; i < NUM_KEYS; i++) {
    mc_pgp_certs_free(keys[i]);
    keys[i] = NULL;
  }
}

static const uint8_t message[] = "Hello, out-of-memory world.\n";

// check_pgp_message reads an encryption's output: `num_pkesk` PKESK
// packets, then a SEIPD packet of the version `format` gives (2 with the
// AEAD algorithm, OCB 2 or GCM 3, for SEIPDv2). A stream's SEIPD may use
// partial lengths, so only its header is read.
static void check_pgp_message(const uint8_t *p, size_t len, uint32_t flags, size_t num_pkesk,
                              uint32_t format) {
  struct blob bin = {NULL, 0};
  if (flags & MC_PGP_ARMOR) {
    struct blob a = {(uint8_t *)p, len};
    ck_assert(has_text(p, len, "-----BEGIN PGP MESSAGE-----"));
    ck_assert(has_text(p, len, "-----END PGP MESSAGE-----"));
    bin = dearmor(&a, "MESSAGE");
    p = bin.p;
    len = bin.len;
  }
  pgp_cur c;
  pgp_cur_init(&c, p, len);
  pgp_packet pkt;
  for (size_t i = 0; i < num_pkesk; i++) {
    ck_assert_int_eq(pgp_packet_next(&c, &pkt, SIZE_MAX), 1);
    ck_assert_int_eq(pkt.tag, PGP_TAG_PKESK);
  }
  size_t off = len - c.len;
  ck_assert_uint_gt(len, off + 3);
  ck_assert_int_eq(p[off], 0xc0 | PGP_TAG_SEIPD);
  // The body starts after a one-, two- or five-octet length (or a partial
  // one, a single octet).
  uint8_t l0 = p[off + 1];
  size_t body = off + 2 + (l0 >= 192 && l0 < 224 ? 1 : l0 == 255 ? 4 : 0);
  ck_assert_uint_gt(len, body + 2);
  if (format == MC_PGP_FORMAT_SEIPDV1) {
    ck_assert_int_eq(p[body], 1);
  } else {
    ck_assert_int_eq(p[body], 2);
    ck_assert_int_eq(p[body + 1], 9); // AES-256
    ck_assert_int_eq(p[body + 2], format == MC_PGP_FORMAT_SEIPDV2_GCM ? 3 : 2);
  }
  free(bin.p);
}

struct pgp_case {
  const char *name;
  int recipients[4];
  size_t num_recipients;
  size_t num_keys; // PKESKs: selected encryption keys over all recipients
  uint32_t format;
  uint32_t flags;
};

static const struct pgp_case pgp_cases[] = {
    {"v6 X25519, SEIPDv2/OCB", {K_V6_X25519}, 1, 1, MC_PGP_FORMAT_SEIPDV2_OCB, 0},
    {"v6 X25519, SEIPDv2/GCM, armor", {K_V6_X25519}, 1, 1, MC_PGP_FORMAT_SEIPDV2_GCM, MC_PGP_ARMOR},
    {"v6 X25519, SEIPDv1, armor", {K_V6_X25519}, 1, 1, MC_PGP_FORMAT_SEIPDV1, MC_PGP_ARMOR},
    {"RSA, SEIPDv1", {K_RSA}, 1, 1, MC_PGP_FORMAT_SEIPDV1, 0},
    {"v4 ML-KEM-768+X25519, SEIPDv1", {K_V4_EDDSA}, 1, 1, MC_PGP_FORMAT_SEIPDV1, 0},
    {"v6 ML-KEM-768+X25519, SEIPDv2/OCB", {K_V6_MLKEM768}, 1, 1, MC_PGP_FORMAT_SEIPDV2_OCB, 0},
    {"v6 ML-KEM-1024+X448, SEIPDv2/OCB, armor",
     {K_V6_MLKEM1024},
     1,
     1,
     MC_PGP_FORMAT_SEIPDV2_OCB,
     MC_PGP_ARMOR},
    {"four recipients, SEIPDv1",
     {K_V6_X25519, K_RSA, K_V6_MLKEM768, K_V6_MLKEM1024},
     4,
     4,
     MC_PGP_FORMAT_SEIPDV1,
     0},
    {"three recipients, SEIPDv2/GCM, armor",
     {K_V6_X25519, K_V6_MLKEM768, K_V6_MLKEM1024},
     3,
     3,
     MC_PGP_FORMAT_SEIPDV2_GCM,
     MC_PGP_ARMOR},
};
#define NUM_PGP_CASES (sizeof pgp_cases / sizeof pgp_cases[0])

struct pgp_ctx {
  const struct pgp_case *k;
  const mc_pgp_cert *certs[4];
  mc_pgp_encrypt_options opts;
  uint8_t out[64 << 10];
  size_t out_len;
  struct sink sink;
  mc_pgp_encryptor *enc;
};

static void pgp_ctx_init(struct pgp_ctx *c, const struct pgp_case *k) {
  memset(c, 0, sizeof *c);
  c->k = k;
  for (size_t i = 0; i < k->num_recipients; i++)
    c->certs[i] = mc_pgp_certs_get(keys[k->recipients[i]], 0);
  mc_pgp_encrypt_options init = MC_PGP_ENCRYPT_OPTIONS_INIT;
  c->opts = init;
  c->opts.flags = k->flags;
  c->opts.format = k->format;
  c->opts.filename = "msg.txt";
}

static int pgp_encrypt_run(void *ctx) {
  struct pgp_ctx *c = ctx;
  c->out_len = 12345;
  return mc_pgp_encrypt(c->out, sizeof c->out, &c->out_len, c->certs, c->k->num_recipients,
                        &c->opts, message, sizeof message - 1);
}

static void pgp_encrypt_succeeded(void *ctx) {
  struct pgp_ctx *c = ctx;
  check_pgp_message(c->out, c->out_len, c->k->flags, c->k->num_keys, c->k->format);
}

static void pgp_encrypt_failed(void *ctx, unsigned long n) {
  struct pgp_ctx *c = ctx;
  ck_assert_msg(c->out_len == 0, "%s: allocation %lu failed, out_len %zu", c->k->name, n,
                c->out_len);
  ck_assert_int_eq(pgp_encrypt_run(c), 0);
  pgp_encrypt_succeeded(c);
}

START_TEST(pgp_encrypt_each_allocation) {
  keys_load();
  struct pgp_ctx *c = malloc(sizeof *c);
  ck_assert_ptr_nonnull(c);
  pgp_ctx_init(c, &pgp_cases[_i]);
  warm_up(pgp_encrypt_run, c);
  struct op o = {c->k->name, c, pgp_encrypt_run, pgp_encrypt_failed, pgp_encrypt_succeeded};
  walk(&o);
  free(c);
  keys_free();
}
END_TEST

// The streaming encryptor: new, two updates and final as one operation.
static int pgp_stream_run(void *ctx) {
  struct pgp_ctx *c = ctx;
  c->sink.len = 0;
  c->sink.calls = 0;
  c->enc = (mc_pgp_encryptor *)c; // not NULL, so that a failure must clear it
  int rc =
      mc_pgp_encryptor_new(&c->enc, c->certs, c->k->num_recipients, &c->opts, sink_write, &c->sink);
  if (rc != 0)
    return rc;
  rc = mc_pgp_encryptor_update(c->enc, message, 10);
  if (rc == 0)
    rc = mc_pgp_encryptor_update(c->enc, message + 10, sizeof message - 1 - 10);
  if (rc == 0)
    rc = mc_pgp_encryptor_final(c->enc);
  mc_pgp_encryptor_free(c->enc);
  c->enc = NULL;
  return rc;
}

static void pgp_stream_succeeded(void *ctx) {
  struct pgp_ctx *c = ctx;
  check_pgp_message(c->sink.buf, c->sink.len, c->k->flags, c->k->num_keys, c->k->format);
}

static void pgp_stream_failed(void *ctx, unsigned long n) {
  (void)n;
  ck_assert_int_eq(pgp_stream_run(ctx), 0);
  pgp_stream_succeeded(ctx);
}

static int pgp_stream_new_run(void *ctx) {
  struct pgp_ctx *c = ctx;
  c->sink.len = 0;
  c->sink.calls = 0;
  c->enc = (mc_pgp_encryptor *)c;
  int rc =
      mc_pgp_encryptor_new(&c->enc, c->certs, c->k->num_recipients, &c->opts, sink_write, &c->sink);
  return rc;
}

static void pgp_stream_new_failed(void *ctx, unsigned long n) {
  struct pgp_ctx *c = ctx;
  ck_assert_msg(c->enc == NULL, "allocation %lu failed, the encryptor was set", n);
  // Nothing written, as msgcrypt.h says: the PKESKs once went out before
  // the encrypted packet's state was allocated.
  ck_assert_msg(c->sink.len == 0, "allocation %lu failed after %zu bytes were written", n,
                c->sink.len);
}

static void pgp_stream_new_succeeded(void *ctx) {
  struct pgp_ctx *c = ctx;
  ck_assert_int_eq(mc_pgp_encryptor_update(c->enc, message, sizeof message - 1), 0);
  ck_assert_int_eq(mc_pgp_encryptor_final(c->enc), 0);
  mc_pgp_encryptor_free(c->enc);
  c->enc = NULL;
  pgp_stream_succeeded(c);
}

START_TEST(pgp_encryptor_each_allocation) {
  keys_load();
  struct pgp_ctx *c = malloc(sizeof *c);
  ck_assert_ptr_nonnull(c);
  pgp_ctx_init(c, &pgp_cases[_i]);
  warm_up(pgp_stream_run, c);
  // The constructor alone, whose failures must leave no handle and no
  // output, then the whole stream.
  char new_name[128], whole_name[128];
  snprintf(new_name, sizeof new_name, "%s: encryptor_new", c->k->name);
  snprintf(whole_name, sizeof whole_name, "%s: new, update, final", c->k->name);
  struct op o = {new_name, c, pgp_stream_new_run, pgp_stream_new_failed, pgp_stream_new_succeeded};
  walk(&o);
  struct op whole = {whole_name, c, pgp_stream_run, pgp_stream_failed, pgp_stream_succeeded};
  walk(&whole);
  free(c);
  keys_free();
}
END_TEST

// ---- PGP/MIME and header protection ----

static const char mail[] = "From: Alice <alice@example.org>\r\n"
                           "To: Bob <bob@example.org>\r\n"
                           "Subject: Lunch\r\n"
                           "Date: Mon, 05 Jan 2026 12:00:00 +0100\r\n"
                           "Message-ID: <1@example.org>\r\n"
                           "Content-Type: text/plain; charset=utf-8\r\n"
                           "\r\n"
                           "At noon?\r\n";

struct mime_ctx {
  const mc_pgp_cert *certs[2];
  size_t num_certs;
  const mc_x509_cert *x509[2];
  mc_pgp_encrypt_options opts;
  mc_smime_encrypt_options sopts;
  struct sink sink;
  int smime;
};

static int mime_run(void *ctx) {
  struct mime_ctx *c = ctx;
  c->sink.len = 0;
  if (c->smime)
    return mc_smime_mime_encrypt(c->x509, c->num_certs, &c->sopts, (const uint8_t *)mail,
                                 sizeof mail - 1, sink_write, &c->sink);
  return mc_pgp_mime_encrypt(c->certs, c->num_certs, &c->opts, (const uint8_t *)mail,
                             sizeof mail - 1, sink_write, &c->sink);
}

static void mime_succeeded(void *ctx) {
  struct mime_ctx *c = ctx;
  const uint8_t *p = c->sink.buf;
  size_t len = c->sink.len;
  ck_assert(has_text(p, len, "To: Bob <bob@example.org>\r\n"));
  ck_assert(!has_text(p, len, "At noon?"));
  if (c->smime) {
    ck_assert(has_text(p, len, "application/pkcs7-mime"));
  } else {
    ck_assert(has_text(p, len, "multipart/encrypted"));
    ck_assert(has_text(p, len, "-----BEGIN PGP MESSAGE-----"));
    ck_assert(has_text(p, len, "-----END PGP MESSAGE-----"));
  }
  int gateway = c->smime ? c->sopts.protect_headers == MC_HP_GATEWAY
                         : (c->opts.flags & MC_PGP_PROTECT_HEADERS_GATEWAY) != 0;
  ck_assert_int_eq(has_text(p, len, "Subject: [...]\r\n"), gateway);
  ck_assert_int_eq(has_text(p, len, "Subject: Lunch\r\n"), !gateway);
}

static void mime_failed(void *ctx, unsigned long n) {
  struct mime_ctx *c = ctx;
  (void)n;
  ck_assert_int_eq(mime_run(c), 0);
  mime_succeeded(c);
}

START_TEST(pgp_mime_encrypt_each_allocation) {
  static const uint32_t flags[] = {0, MC_PGP_PROTECT_HEADERS_AT_REST,
                                   MC_PGP_PROTECT_HEADERS_GATEWAY};
  keys_load();
  struct mime_ctx *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  c->certs[0] = mc_pgp_certs_get(keys[K_V6_X25519], 0);
  c->certs[1] = mc_pgp_certs_get(keys[K_V6_MLKEM768], 0);
  c->num_certs = 2;
  mc_pgp_encrypt_options init = MC_PGP_ENCRYPT_OPTIONS_INIT;
  c->opts = init;
  c->opts.flags = flags[_i];
  warm_up(mime_run, c);
  struct op o = {"pgp mime encrypt", c, mime_run, mime_failed, mime_succeeded};
  walk(&o);
  free(c);
  keys_free();
}
END_TEST

struct hp_ctx {
  uint32_t mode;
  uint8_t outer[16 << 10], inner[16 << 10];
  size_t outer_len, inner_len;
  uint8_t want_outer[16 << 10], want_inner[16 << 10];
  size_t want_outer_len, want_inner_len;
};

static int hp_run(void *ctx) {
  struct hp_ctx *c = ctx;
  c->outer_len = c->inner_len = 777;
  return mc_hp_protect(c->outer, sizeof c->outer, &c->outer_len, c->inner, sizeof c->inner,
                       &c->inner_len, c->mode, (const uint8_t *)mail, sizeof mail - 1);
}

static void hp_succeeded(void *ctx) {
  struct hp_ctx *c = ctx;
  ck_assert_uint_eq(c->outer_len, c->want_outer_len);
  ck_assert_uint_eq(c->inner_len, c->want_inner_len);
  ck_assert(memcmp(c->outer, c->want_outer, c->outer_len) == 0);
  ck_assert(memcmp(c->inner, c->want_inner, c->inner_len) == 0);
}

static void hp_failed(void *ctx, unsigned long n) {
  struct hp_ctx *c = ctx;
  ck_assert_msg(c->outer_len == 0 && c->inner_len == 0, "allocation %lu: lengths %zu and %zu", n,
                c->outer_len, c->inner_len);
  ck_assert_int_eq(hp_run(c), 0);
  hp_succeeded(c);
}

START_TEST(hp_protect_each_allocation) {
  static const uint32_t modes[] = {MC_HP_AT_REST, MC_HP_GATEWAY, MC_HP_BASELINE};
  struct hp_ctx *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  c->mode = modes[_i];
  ck_assert_int_eq(hp_run(c), 0);
  memcpy(c->want_outer, c->outer, c->outer_len);
  memcpy(c->want_inner, c->inner, c->inner_len);
  c->want_outer_len = c->outer_len;
  c->want_inner_len = c->inner_len;
  struct op o = {"hp protect", c, hp_run, hp_failed, hp_succeeded};
  walk(&o);
  free(c);
}
END_TEST

// ---- Autocrypt ----

struct autocrypt_ctx {
  char header[16 << 10];
  size_t header_len;
  mc_autocrypt_header parsed;
  uint8_t key[32 << 10];
  mc_pgp_certs *certs;
  struct certs_view want;
};

static int autocrypt_parse_run(void *ctx) {
  struct autocrypt_ctx *c = ctx;
  memset(&c->parsed, 0x5a, sizeof c->parsed);
  return mc_autocrypt_parse(&c->parsed, c->key, sizeof c->key, NULL, c->header, c->header_len);
}

static void autocrypt_parse_succeeded(void *ctx) {
  struct autocrypt_ctx *c = ctx;
  ck_assert_str_eq(c->parsed.addr, "rsa@example.com");
  ck_assert_int_eq(c->parsed.prefer_encrypt, MC_AUTOCRYPT_PREFER_MUTUAL);
  ck_assert_uint_gt(c->parsed.keydata_len, 256);
}

static void autocrypt_parse_failed(void *ctx, unsigned long n) {
  struct autocrypt_ctx *c = ctx;
  ck_assert_msg(all_zero((const uint8_t *)&c->parsed, sizeof c->parsed),
                "allocation %lu failed, the header was not zeroed", n);
  ck_assert_int_eq(autocrypt_parse_run(c), 0);
  autocrypt_parse_succeeded(c);
}

static int autocrypt_check_run(void *ctx) {
  struct autocrypt_ctx *c = ctx;
  c->certs = (mc_pgp_certs *)c;
  return mc_autocrypt_key_check(&c->certs, &c->parsed, c->key, c->parsed.keydata_len, NOW);
}

static void autocrypt_check_succeeded(void *ctx) {
  struct autocrypt_ctx *c = ctx;
  struct certs_view got;
  view_certs(c->certs, &got);
  views_equal(&got, &c->want, "autocrypt key");
  mc_pgp_certs_free(c->certs);
  c->certs = NULL;
}

static void autocrypt_check_failed(void *ctx, unsigned long n) {
  struct autocrypt_ctx *c = ctx;
  ck_assert_msg(c->certs == NULL, "allocation %lu failed, the key check set a handle", n);
  ck_assert_int_eq(autocrypt_check_run(c), 0);
  autocrypt_check_succeeded(c);
}

START_TEST(autocrypt_each_allocation) {
  struct blob rsa = key_input(K_RSA);
  struct autocrypt_ctx *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  int at = snprintf(c->header, sizeof c->header,
                    "addr=rsa@example.com; prefer-encrypt=mutual; "
                    "keydata=");
  size_t b64_len;
  ck_assert(EVP_EncodedLength(&b64_len, rsa.len));
  ck_assert_uint_lt((size_t)at + b64_len, sizeof c->header);
  c->header_len = (size_t)at + EVP_EncodeBlock((uint8_t *)c->header + at, rsa.p, rsa.len);
  mc_pgp_certs *ref = parse_ok(rsa.p, rsa.len, NOW);
  view_certs(ref, &c->want);
  mc_pgp_certs_free(ref);
  // The parser allocates only for keydata it cannot decode in place, if at
  // all; walk it only when it does.
  alloc_fault_arm(0);
  int rc = autocrypt_parse_run(c);
  unsigned long count = alloc_fault_count();
  ck_assert_int_eq(rc, 0);
  if (count > 0) {
    struct op p = {"autocrypt parse", c, autocrypt_parse_run, autocrypt_parse_failed,
                   autocrypt_parse_succeeded};
    walk(&p);
  }
  struct op k = {"autocrypt key check", c, autocrypt_check_run, autocrypt_check_failed,
                 autocrypt_check_succeeded};
  walk(&k);
  free(c);
  free(rsa.p);
}
END_TEST

// ---- S/MIME certificates ----

static struct blob read_smime(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", smime_dir, name);
  return read_blob(path);
}

static mc_x509_certs *x509_ok(const struct blob *in) {
  mc_x509_certs *c = NULL;
  mc_x509_diag diag;
  int rc = mc_x509_certs_parse(&c, NULL, &diag, in->p, in->len);
  ck_assert_msg(rc == 0, "x509 parse: %s: %s", mc_strerror(rc), diag.message);
  return c;
}

static mc_x509_certs *x509_file(const char *name) {
  struct blob b = read_smime(name);
  mc_x509_certs *c = x509_ok(&b);
  free(b.p);
  return c;
}

static void view_x509(const mc_x509_certs *certs, struct certs_view *v) {
  memset(v, 0, sizeof *v);
  v->count = mc_x509_certs_count(certs);
  ck_assert_uint_le(v->count, 4);
  for (size_t i = 0; i < v->count; i++) {
    const mc_x509_cert *c = mc_x509_certs_get(certs, i);
    char desc[128], fpr[MC_X509_FPR_HEX_LEN], subject[256];
    ck_assert_int_eq(mc_x509_cert_describe(c, desc, sizeof desc, NULL), 0);
    ck_assert_int_eq(mc_x509_cert_fingerprint_hex(c, fpr, sizeof fpr), 0);
    ck_assert_int_eq(mc_x509_cert_subject(c, subject, sizeof subject, NULL), 0);
    snprintf(v->text[i], sizeof v->text[i], "%s %s %s addresses=%zu", desc, fpr, subject,
             mc_x509_cert_num_addresses(c));
  }
}

struct x509_parse_ctx {
  struct blob in;
  mc_x509_certs *out;
  struct certs_view want;
};

static int x509_parse_run(void *ctx) {
  struct x509_parse_ctx *c = ctx;
  c->out = (mc_x509_certs *)c;
  return mc_x509_certs_parse(&c->out, NULL, NULL, c->in.p, c->in.len);
}

static void x509_parse_succeeded(void *ctx) {
  struct x509_parse_ctx *c = ctx;
  struct certs_view got;
  view_x509(c->out, &got);
  views_equal(&got, &c->want, "x509 parse");
  mc_x509_certs_free(c->out);
  c->out = NULL;
}

static void x509_parse_failed(void *ctx, unsigned long n) {
  struct x509_parse_ctx *c = ctx;
  ck_assert_msg(c->out == NULL, "allocation %lu failed, parse set a handle", n);
  ck_assert_int_eq(x509_parse_run(c), 0);
  x509_parse_succeeded(c);
}

// Certificates in each form the parser reads.
static const char *const x509_inputs[] = {
    "rsa.pem",    // PEM, RSA-2048
    "x25519.der", // DER, X25519
    "chain.pem",  // two PEM blocks: a P-256 leaf and its CA
    "bundle.p7b", // PKCS#7 in PEM
    "bundle.p7c", // PKCS#7 in DER
    "mlkem.pem",  // RFC 9935 ML-KEM-768
};

START_TEST(x509_parse_each_allocation) {
  struct x509_parse_ctx c = {.in = read_smime(x509_inputs[_i])};
  mc_x509_certs *ref = x509_ok(&c.in);
  view_x509(ref, &c.want);
  mc_x509_certs_free(ref);
  struct op o = {x509_inputs[_i], &c, x509_parse_run, x509_parse_failed, x509_parse_succeeded};
  walk(&o);
  free(c.in.p);
}
END_TEST

// ---- The trust store and path validation ----

static void anchors_dir(char *out, size_t cap) {
  snprintf(out, cap, "%s/anchors", smime_dir);
}

struct trust_ctx {
  mc_x509_trust *trust;
  struct blob in;
  char dir[300];
  size_t added;
};

static int trust_new_run(void *ctx) {
  struct trust_ctx *c = ctx;
  c->trust = (mc_x509_trust *)c;
  return mc_x509_trust_new(&c->trust, NULL);
}

static void trust_new_succeeded(void *ctx) {
  struct trust_ctx *c = ctx;
  ck_assert_ptr_nonnull(c->trust);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(c->trust), 0);
  mc_x509_trust_free(c->trust);
  c->trust = NULL;
}

static void trust_new_failed(void *ctx, unsigned long n) {
  struct trust_ctx *c = ctx;
  ck_assert_msg(c->trust == NULL, "allocation %lu failed, trust_new set a handle", n);
}

static int add_anchors_run(void *ctx) {
  struct trust_ctx *c = ctx;
  return mc_x509_trust_add_anchors(c->trust, NULL, c->in.p, c->in.len);
}

static void add_anchors_failed(void *ctx, unsigned long n) {
  struct trust_ctx *c = ctx;
  ck_assert_msg(mc_x509_trust_num_anchors(c->trust) == 0, "allocation %lu: %zu anchors added", n,
                mc_x509_trust_num_anchors(c->trust));
}

static void add_anchors_succeeded(void *ctx) {
  struct trust_ctx *c = ctx;
  ck_assert_uint_eq(mc_x509_trust_num_anchors(c->trust), 2);
}

static int add_dir_run(void *ctx) {
  struct trust_ctx *c = ctx;
  c->added = 99;
  return mc_x509_trust_add_dir(c->trust, NULL, &c->added, c->dir);
}

static void add_dir_succeeded(void *ctx) {
  struct trust_ctx *c = ctx;
  // root.pem and its hash link are one anchor.
  ck_assert_uint_eq(c->added, 1);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(c->trust), 1);
}

static void add_dir_failed(void *ctx, unsigned long n) {
  struct trust_ctx *c = ctx;
  // A file read before the failing one may stay added; a second pass adds
  // what is missing and nothing twice.
  size_t before = mc_x509_trust_num_anchors(c->trust);
  ck_assert_msg(before <= 1, "allocation %lu: %zu anchors", n, before);
  ck_assert_int_eq(mc_x509_trust_add_dir(c->trust, NULL, &c->added, c->dir), 0);
  ck_assert_uint_eq(c->added, 1 - before);
  ck_assert_uint_eq(mc_x509_trust_num_anchors(c->trust), 1);
}

START_TEST(x509_trust_each_allocation) {
  struct trust_ctx c = {0};
  struct op o = {"trust new", &c, trust_new_run, trust_new_failed, trust_new_succeeded};
  walk(&o);

  // Two anchors in one input, added to an empty store.
  struct blob root = read_smime("anchors/root.pem"), ca = read_smime("ca.pem");
  c.in = concat(&root, &ca);
  free(root.p);
  free(ca.p);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    ck_assert_int_eq(mc_x509_trust_new(&c.trust, NULL), 0);
    alloc_fault_arm(n);
    int rc = add_anchors_run(&c);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "add anchors: %s", mc_strerror(rc));
      add_anchors_succeeded(&c);
      mc_x509_trust_free(c.trust);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, add anchors said %s", n, mc_strerror(rc));
    add_anchors_failed(&c, n);
    ck_assert_int_eq(add_anchors_run(&c), 0);
    add_anchors_succeeded(&c);
    mc_x509_trust_free(c.trust);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  free(c.in.p);

  // The directory, each time into a new store.
  anchors_dir(c.dir, sizeof c.dir);
  for (n = 1; n < MAX_STEPS; n++) {
    ck_assert_int_eq(mc_x509_trust_new(&c.trust, NULL), 0);
    alloc_fault_arm(n);
    int rc = add_dir_run(&c);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      require(rc == 0, "add dir: %s", mc_strerror(rc));
      add_dir_succeeded(&c);
      mc_x509_trust_free(c.trust);
      break;
    }
    require(rc == -ENOMEM, "allocation %lu failed, add dir said %s", n, mc_strerror(rc));
    add_dir_failed(&c, n);
    mc_x509_trust_free(c.trust);
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// trust_filled: the anchors directory, and the CA's CRL when asked.
static mc_x509_trust *trust_filled(int with_crl) {
  mc_x509_trust *t = NULL;
  char dir[300];
  anchors_dir(dir, sizeof dir);
  ck_assert_int_eq(mc_x509_trust_new(&t, NULL), 0);
  ck_assert_int_eq(mc_x509_trust_add_dir(t, NULL, NULL, dir), 0);
  if (with_crl) {
    struct blob crl = read_smime("ca.crl");
    ck_assert_int_eq(mc_x509_trust_add_crl(t, NULL, crl.p, crl.len), 0);
    free(crl.p);
  }
  return t;
}

struct verify_ctx {
  mc_x509_trust *trust;
  mc_x509_certs *leaf, *intermediates;
  mc_x509_result result;
  struct blob crl;
};

static void result_is(const mc_x509_result *got, const mc_x509_result *want) {
  ck_assert_int_eq(got->verdict, want->verdict);
  ck_assert_uint_eq(got->problems, want->problems);
  ck_assert_uint_eq(got->chain_len, want->chain_len);
  ck_assert_int_eq(got->crl_checked, want->crl_checked);
  ck_assert_int_eq(got->weak_signature, want->weak_signature);
  ck_assert(got->anchor == want->anchor);
}

static int verify_run(void *ctx) {
  struct verify_ctx *c = ctx;
  return mc_x509_cert_verify(c->trust, &c->result, mc_x509_certs_get(c->leaf, 0), c->intermediates,
                             smime_now);
}

// A CRL whose adding fails leaves the store as it was: the revoked leaf is
// not found revoked until the CRL is added again.
START_TEST(x509_crl_each_allocation) {
  struct verify_ctx c = {0};
  c.leaf = x509_file("revoked.pem");
  c.intermediates = x509_file("ca.pem");
  c.crl = read_smime("ca.crl");
  mc_x509_trust *plain = trust_filled(0);
  c.trust = plain;
  ck_assert_int_eq(verify_run(&c), 0);
  mc_x509_result without = c.result;
  ck_assert_int_eq(without.verdict, MC_X509_OK);
  mc_x509_trust_free(plain);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    c.trust = trust_filled(0);
    alloc_fault_arm(n);
    int rc = mc_x509_trust_add_crl(c.trust, NULL, c.crl.p, c.crl.len);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (fired) {
      require(rc == -ENOMEM, "allocation %lu failed, add crl said %s", n, mc_strerror(rc));
      ck_assert_int_eq(verify_run(&c), 0);
      without.anchor = c.result.anchor; // the anchor of this store
      result_is(&c.result, &without);
      ck_assert_int_eq(mc_x509_trust_add_crl(c.trust, NULL, c.crl.p, c.crl.len), 0);
    } else {
      require(rc == 0, "add crl: %s", mc_strerror(rc));
    }
    ck_assert_int_eq(verify_run(&c), 0);
    ck_assert_int_eq(c.result.verdict, MC_X509_REVOKED);
    mc_x509_trust_free(c.trust);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
  free(c.crl.p);
  mc_x509_certs_free(c.leaf);
  mc_x509_certs_free(c.intermediates);
}
END_TEST

// ---- CMS encryption ----

struct smime_case {
  const char *name;
  const char *certs[4];
  size_t num_certs;
  uint32_t content, rsa;
};

static const struct smime_case smime_cases[] = {
    {"RSA, CBC", {"rsa.pem"}, 1, MC_SMIME_CONTENT_AES256_CBC, MC_SMIME_RSA_PKCS1},
    {"RSA-OAEP, GCM", {"rsa.pem"}, 1, MC_SMIME_CONTENT_AES256_GCM, MC_SMIME_RSA_OAEP_SHA256},
    {"P-256", {"p256.pem"}, 1, MC_SMIME_CONTENT_AUTO, 0},
    {"X25519", {"x25519.pem"}, 1, MC_SMIME_CONTENT_AUTO, 0},
    {"ML-KEM-768", {"mlkem.pem"}, 1, MC_SMIME_CONTENT_AUTO, 0},
    {"four recipients",
     {"rsa.pem", "p256.pem", "x25519.pem", "mlkem.pem"},
     4,
     MC_SMIME_CONTENT_AUTO,
     0},
};
#define NUM_SMIME_CASES (sizeof smime_cases / sizeof smime_cases[0])

struct smime_ctx {
  const struct smime_case *k;
  mc_x509_certs *sets[4];
  const mc_x509_cert *certs[4];
  mc_smime_encrypt_options opts;
  uint8_t out[32 << 10];
  size_t out_len, want_len;
};

static int smime_run(void *ctx) {
  struct smime_ctx *c = ctx;
  memset(c->out, 0, sizeof c->out);
  c->out_len = 4242;
  return mc_smime_encrypt(c->out, sizeof c->out, &c->out_len, c->certs, c->k->num_certs, &c->opts,
                          message, sizeof message - 1);
}

static void smime_succeeded(void *ctx) {
  struct smime_ctx *c = ctx;
  // The lengths of the content and every RecipientInfo are fixed by the
  // keys, so a sound message is as long as the first one; it is one DER
  // SEQUENCE.
  ck_assert_uint_eq(c->out_len, c->want_len);
  ck_assert_int_eq(c->out[0], 0x30);
  ck_assert(!has_text(c->out, c->out_len, (const char *)message));
}

static void smime_failed(void *ctx, unsigned long n) {
  struct smime_ctx *c = ctx;
  ck_assert_msg(c->out_len == 0, "allocation %lu failed, out_len %zu", n, c->out_len);
  ck_assert_msg(all_zero(c->out, sizeof c->out), "allocation %lu failed, output left in out", n);
  ck_assert_int_eq(smime_run(c), 0);
  smime_succeeded(c);
}

static void smime_ctx_init(struct smime_ctx *c, const struct smime_case *k) {
  memset(c, 0, sizeof *c);
  c->k = k;
  for (size_t i = 0; i < k->num_certs; i++) {
    c->sets[i] = x509_file(k->certs[i]);
    c->certs[i] = mc_x509_certs_get(c->sets[i], 0);
  }
  mc_smime_encrypt_options init = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  c->opts = init;
  c->opts.content = k->content;
  c->opts.rsa = k->rsa;
}

static void smime_ctx_free(struct smime_ctx *c) {
  for (size_t i = 0; i < c->k->num_certs; i++)
    mc_x509_certs_free(c->sets[i]);
  free(c);
}

START_TEST(smime_encrypt_each_allocation) {
  struct smime_ctx *c = malloc(sizeof *c);
  ck_assert_ptr_nonnull(c);
  smime_ctx_init(c, &smime_cases[_i]);
  warm_up(smime_run, c);
  c->want_len = c->out_len;
  struct op o = {c->k->name, c, smime_run, smime_failed, smime_succeeded};
  walk(&o);
  smime_ctx_free(c);
}
END_TEST

START_TEST(smime_mime_encrypt_each_allocation) {
  static const uint32_t modes[] = {MC_HP_NONE, MC_HP_AT_REST, MC_HP_GATEWAY};
  struct mime_ctx *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  mc_x509_certs *a = x509_file("x25519.pem"), *b = x509_file("mlkem.pem");
  c->x509[0] = mc_x509_certs_get(a, 0);
  c->x509[1] = mc_x509_certs_get(b, 0);
  c->num_certs = 2;
  c->smime = 1;
  mc_smime_encrypt_options init = MC_SMIME_ENCRYPT_OPTIONS_INIT;
  c->sopts = init;
  c->sopts.protect_headers = modes[_i];
  warm_up(mime_run, c);
  struct op o = {"smime mime encrypt", c, mime_run, mime_failed, mime_succeeded};
  walk(&o);
  mc_x509_certs_free(a);
  mc_x509_certs_free(b);
  free(c);
}
END_TEST

// ---- The ML-KEM encapsulation cache ----

// A thread's first encapsulation allocates its key cache; when that fails
// the call works uncached (msgcrypt.h), so every run here succeeds and its
// shared secret decapsulates.
START_TEST(mlkem_cache_allocation_is_optional) {
  static uint8_t seed[MC_MLKEM_SEED_LEN] = {1, 2, 3};
  static uint8_t pk[MC_MLKEM768_PUBLIC_KEY_LEN], sk[MC_MLKEM768_PRIVATE_KEY_LEN];
  ck_assert_int_eq(
      mc_mlkem_keygen_from_seed(MC_MLKEM_768, pk, sizeof pk, sk, sizeof sk, seed, sizeof seed), 0);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    uint8_t ct[MC_MLKEM768_CIPHERTEXT_LEN], ss[MC_MLKEM_SHARED_SECRET_LEN];
    uint8_t back[MC_MLKEM_SHARED_SECRET_LEN];
    alloc_fault_arm(n);
    int rc = mc_mlkem_encaps(MC_MLKEM_768, ct, sizeof ct, ss, pk, sizeof pk);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 0, "allocation %lu: encaps said %s", n, mc_strerror(rc));
    ck_assert_int_eq(mc_mlkem_decaps(MC_MLKEM_768, back, sk, sizeof sk, ct, sizeof ct), 0);
    ck_assert(memcmp(ss, back, sizeof ss) == 0);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// The X25519 and P-256 tables of a peer key that comes twice in a row are
// built when the second call allocates their scratch space; when that
// fails the call works without a table (msgcrypt.h), so every run here
// succeeds with the right shared secret. Each run uses a fresh peer key,
// twice, so that each builds a table.
START_TEST(optional_caches_may_fail) {
  uint8_t priv[32];
  mc_test_bytes(priv, sizeof priv, "oom x25519 private", 0);
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    uint8_t peer_priv[32], peer[32], want[32], got[2][32];
    mc_test_bytes(peer_priv, sizeof peer_priv, "oom x25519 peer", (uint32_t)n);
    X25519_public_from_private(peer, peer_priv);
    ck_assert_int_eq(X25519(want, priv, peer), 1);
    alloc_fault_arm(n);
    int rc0 = mc_x25519(got[0], priv, peer);
    int rc1 = mc_x25519(got[1], priv, peer);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc0 == 0 && rc1 == 0, "allocation %lu: x25519 said %s", n, mc_strerror(rc1));
    require(memcmp(got[0], want, 32) == 0 && memcmp(got[1], want, 32) == 0,
            "allocation %lu: wrong X25519 shared secret", n);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);

  // The peers of P-256 are b G for a fresh b each run; a G and b G come
  // out as the public keys of ECDHs with G as the peer.
  uint8_t a[32], a_pub[65], unused[32];
  mc_test_bytes(a, sizeof a, "oom p256 a", 0);
  a[0] = 0x11; // below the group order
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, a_pub, sizeof a_pub, unused, 32, a, 32,
                                            generator, sizeof generator),
                   0);
  for (n = 1; n < MAX_STEPS; n++) {
    uint8_t b[32], b_pub[65], want[32], got[2][32], ignored[65];
    mc_test_bytes(b, sizeof b, "oom p256 b", (uint32_t)n);
    b[0] = 0x22;
    ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, b_pub, sizeof b_pub, unused, 32, b, 32,
                                              generator, sizeof generator),
                     0);
    alloc_fault_arm(n);
    int rc0 = mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, got[0], 32, a, 32,
                                       b_pub, sizeof b_pub);
    int rc1 = mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, got[1], 32, a, 32,
                                       b_pub, sizeof b_pub);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc0 == 0 && rc1 == 0, "allocation %lu: ecdh said %s", n, mc_strerror(rc1));
    // b * (a G), through the ladder: the peer a G did not come twice in a row.
    ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, want, 32, b, 32,
                                              a_pub, sizeof a_pub),
                     0);
    require(memcmp(got[0], want, 32) == 0 && memcmp(got[1], want, 32) == 0,
            "allocation %lu: wrong P-256 shared secret", n);
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);

  // A table that could not be allocated is tried again at the key's next
  // use: it was once given up on for as long as the key kept coming. No
  // assertion between arming and counting (Check allocates for those).
  uint8_t x_peer_priv[32], x_peer[32], x_out[3][32];
  mc_test_bytes(x_peer_priv, sizeof x_peer_priv, "oom x25519 tried again", 0);
  X25519_public_from_private(x_peer, x_peer_priv);
  int xrc0 = mc_x25519(x_out[0], priv, x_peer); // seen once
  alloc_fault_arm(1);
  int xrc1 = mc_x25519(x_out[1], priv, x_peer); // the table's memory fails
  bool x_fired = alloc_fault_fired();
  alloc_fault_arm(0);
  int xrc2 = mc_x25519(x_out[2], priv, x_peer); // built now
  unsigned long x_again = alloc_fault_count();
  alloc_fault_disarm();
  ck_assert(xrc0 == 0 && xrc1 == 0 && xrc2 == 0);
  ck_assert_mem_eq(x_out[1], x_out[0], 32);
  ck_assert_mem_eq(x_out[2], x_out[0], 32);
  if (x_fired) // an implementation with peer tables (x86-64 with ADX)
    ck_assert_msg(x_again > 0, "X25519: the table was not tried again");

  uint8_t c[32], c_pub[65], p_out[3][32], ignored[65];
  mc_test_bytes(c, sizeof c, "oom p256 tried again", 0);
  c[0] = 0x33;
  ck_assert_int_eq(mc_ecdh_ephemeral_derand(MC_EC_P256, c_pub, sizeof c_pub, unused, 32, c, 32,
                                            generator, sizeof generator),
                   0);
  int prc[3];
  prc[0] = mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, p_out[0], 32, a, 32, c_pub,
                                    sizeof c_pub);
  alloc_fault_arm(1);
  prc[1] = mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, p_out[1], 32, a, 32, c_pub,
                                    sizeof c_pub);
  bool p_fired = alloc_fault_fired();
  alloc_fault_arm(0);
  prc[2] = mc_ecdh_ephemeral_derand(MC_EC_P256, ignored, sizeof ignored, p_out[2], 32, a, 32, c_pub,
                                    sizeof c_pub);
  unsigned long p_again = alloc_fault_count();
  alloc_fault_disarm();
  ck_assert(prc[0] == 0 && prc[1] == 0 && prc[2] == 0);
  ck_assert_mem_eq(p_out[1], p_out[0], 32);
  ck_assert_mem_eq(p_out[2], p_out[0], 32);
  if (p_fired)
    ck_assert_msg(p_again > 0, "P-256: the table was not tried again");
}
END_TEST

// The self-tests allocate only through the optional caches of the
// algorithms they call (the first ML-KEM encapsulation and RSA operation of
// a thread, peer tables); each such failure must leave them passing.
START_TEST(selftest_each_allocation) {
  unsigned long n;
  for (n = 1; n < MAX_STEPS; n++) {
    size_t failed_index = 0;
    alloc_fault_arm(n);
    int rc = mc_selftest_all(&failed_index);
    bool fired = alloc_fault_fired();
    alloc_fault_disarm();
    require(rc == 0, "allocation %lu: self-test %s said %s", n, mc_selftest_name(failed_index),
            mc_strerror(rc));
    if (!fired)
      break;
  }
  ck_assert_uint_gt(n, 1);
  ck_assert_uint_lt(n, MAX_STEPS);
}
END_TEST

// ---- The generated S/MIME certificates ----

// make_smime_certs has openssl make, in `dir`: an Ed25519 root (the one
// anchor, with its hash link), a P-256 CA below it (ca.pem), leaves of the
// CA with RSA-2048, P-256 and X25519 keys (rsa.pem, p256.pem, x25519.pem
// and .der), a revoked P-256 leaf and the CA's CRL, a chain and PKCS#7
// bundles; and copies the RFC 9935 ML-KEM-768 certificate (mlkem.pem).
static int make_smime_certs(const char *dir, const char *log) {
  const char *vectors = getenv("CORVID_VECTORS");
  if (vectors == NULL)
    return -1;
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "set -e; mkdir -p '%s/anchors'; cd '%s'; O=openssl\n"
           "cp '%s/rfc9935-kyber-certificates/ML-KEM-768.crt' mlkem.pem\n"
           "$O genpkey -algorithm ed25519 -out root.key\n"
           "$O req -x509 -new -key root.key -subj /CN=OOM-Root -days 30 -set_serial 1 "
           "-out anchors/root.pem -addext basicConstraints=critical,CA:true "
           "-addext keyUsage=critical,keyCertSign,cRLSign\n"
           "ln -s root.pem anchors/$($O x509 -in anchors/root.pem -noout -subject_hash).0\n"
           "$O genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key\n"
           "$O req -new -key ca.key -subj /CN=OOM-CA -out ca.csr\n"
           "printf 'basicConstraints=critical,CA:true\\nkeyUsage=critical,keyCertSign,cRLSign\\n' "
           "> ca.ext\n"
           "$O x509 -req -in ca.csr -CA anchors/root.pem -CAkey root.key -set_serial 2 -days 30 "
           "-extfile ca.ext -out ca.pem 2>/dev/null\n"
           "leaf() { # NAME KEYOPTS USAGE SERIAL\n"
           "  $O genpkey $2 -out $1.key; $O pkey -in $1.key -pubout -out $1.pub\n"
           "  $O req -new -key ca.key -subj /CN=$1 -out $1.csr\n"
           "  printf \"keyUsage=critical,$3\\nextendedKeyUsage=emailProtection\\n"
           "subjectAltName=email:$1@example.org\\n\" > $1.ext\n"
           "  $O x509 -req -in $1.csr -force_pubkey $1.pub -CA ca.pem -CAkey ca.key -set_serial $4 "
           "-days 30 -extfile $1.ext -out $1.pem 2>/dev/null\n"
           "  $O x509 -in $1.pem -outform DER -out $1.der\n"
           "}\n"
           "leaf rsa '-algorithm RSA -pkeyopt rsa_keygen_bits:2048' keyEncipherment 16\n"
           "leaf p256 '-algorithm EC -pkeyopt ec_paramgen_curve:P-256' keyAgreement 17\n"
           "leaf x25519 '-algorithm X25519' keyAgreement 18\n"
           "leaf revoked '-algorithm EC -pkeyopt ec_paramgen_curve:P-256' keyAgreement 19\n"
           "printf '[ca]\\ndefault_ca=d\\n[d]\\ndatabase=ca.idx\\ncrlnumber=ca.crlnum\\n"
           "certificate=ca.pem\\nprivate_key=ca.key\\ndefault_md=sha256\\ndefault_crl_days=30\\n' "
           "> ca.cnf\n"
           ": > ca.idx; echo 01 > ca.crlnum\n"
           "$O ca -config ca.cnf -revoke revoked.pem 2>/dev/null\n"
           "$O ca -config ca.cnf -gencrl -out ca.crl 2>/dev/null\n"
           "cat p256.pem ca.pem > chain.pem\n"
           "$O crl2pkcs7 -nocrl -certfile ca.pem -certfile rsa.pem -out bundle.p7b\n"
           "$O crl2pkcs7 -nocrl -certfile ca.pem -certfile rsa.pem -outform DER -out bundle.p7c\n",
           dir, dir, vectors);
  char full[8400];
  snprintf(full, sizeof full, "(%s) >'%s' 2>&1", cmd, log);
  return system(full);
}

static Suite *oom_suite(void) {
  Suite *s = suite_create("msgcrypt-oom");
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, pgp_certs_parse_each_allocation, 0, NUM_KEYS);
  tcase_add_test(tc, pgp_keyring_parse_each_allocation);
  tcase_add_loop_test(tc, pgp_encrypt_each_allocation, 0, (int)NUM_PGP_CASES);
  tcase_add_loop_test(tc, pgp_encryptor_each_allocation, 0, (int)NUM_PGP_CASES);
  tcase_add_loop_test(tc, pgp_mime_encrypt_each_allocation, 0, 3);
  tcase_add_loop_test(tc, hp_protect_each_allocation, 0, 3);
  tcase_add_test(tc, autocrypt_each_allocation);
  tcase_add_loop_test(tc, x509_parse_each_allocation, 0,
                      (int)(sizeof x509_inputs / sizeof x509_inputs[0]));
  tcase_add_test(tc, x509_trust_each_allocation);
  tcase_add_test(tc, x509_crl_each_allocation);
  tcase_add_loop_test(tc, smime_encrypt_each_allocation, 0, (int)NUM_SMIME_CASES);
  tcase_add_loop_test(tc, smime_mime_encrypt_each_allocation, 0, 3);
  tcase_add_test(tc, mlkem_cache_allocation_is_optional);
  tcase_add_test(tc, optional_caches_may_fail);
  tcase_add_test(tc, selftest_each_allocation);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  char tmpl[] = "/tmp/msgcrypt-oom-XXXXXX";
  if (mkdtemp(tmpl) == NULL) {
    printf("Bail out! no temporary directory\n");
    return 1;
  }
  snprintf(smime_dir, sizeof smime_dir, "%s/c", tmpl);
  char log[300];
  snprintf(log, sizeof log, "%s/gen.log", tmpl);
  if (make_smime_certs(smime_dir, log) != 0) {
    printf("Bail out! openssl could not make the certificates; see %s\n", log);
    return 1;
  }
  smime_now = (int64_t)time(NULL) + 60;
  SRunner *sr = srunner_create(oom_suite());
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
  if (system(cmd) != 0)
    failed++;
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
