// rsa_pub.c: the RSA public operation em^65537 mod n for pkenc.c's
// encryption, with the modulus's Montgomery context cached per thread.
// BoringSSL's RSA_encrypt builds that context (R^2 mod n, about a tenth of
// an RSA-3072 encryption) for every new RSA object, and libmsgcrypt makes
// one per message; it then exponentiates with a generic window method and
// converts out of the Montgomery domain. Here the exponent's shape gives the
// sequence directly: into the domain (one product with R^2), sixteen
// squarings, and one product with the plain message, which leaves the
// domain at the same time (x·R · m · R^-1 = x·m). The products are
// BoringSSL's public BN_mod_mul_montgomery over BIGNUMs that view this
// file's word arrays at the modulus's full width, which is the condition
// under which it calls its bn_mul_mont kernel directly (assembly with a
// masked final subtraction, nothing trimmed to the value's width), so the
// time does not depend on the secret message.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>

#include "aead_internal.h"
#include "rsa_pub.h"
#include "thread_cache_internal.h"

// BoringSSL's headers name the word's bits only.
#define WORD_BYTES (BN_BITS2 / 8)
#define MAX_WORDS ((MC_RSA_MAX_MODULUS_LEN + WORD_BYTES - 1) / WORD_BYTES)

typedef struct {
  size_t n_len; // 0: empty
  BN_MONT_CTX *mont;
  uint8_t n[MC_RSA_MAX_MODULUS_LEN];
} rsa_slot;

typedef struct {
  rsa_slot slot[MC_RSA_PUB_CACHE_SLOTS];
  unsigned next; // the slot replaced next
  unsigned long hits;
  BN_CTX *ctx; // for BoringSSL's context setup; never sees the message
} rsa_cache;

// cache_release frees the contexts a cache holds (at thread exit).
static void cache_release(void *p) {
  rsa_cache *c = p;
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++)
    BN_MONT_CTX_free(c->slot[i].mont);
  BN_CTX_free(c->ctx);
}

static int cache_init(void *p) {
  rsa_cache *c = p;
  c->ctx = BN_CTX_new();
  return c->ctx == NULL;
}

static const mc_thread_cache_kind cache_kind = {sizeof(rsa_cache), cache_init, cache_release};

// cache_get returns the calling thread's cache, making it when needed, or
// NULL when it cannot (the caller then works uncached).
static rsa_cache *cache_get(void) {
  return mc_thread_cache_get(MC_THREAD_CACHE_RSA_PUB, &cache_kind);
}

void mc_rsa_pub_cache_clear(void) {
  rsa_cache *c = mc_thread_cache_peek(MC_THREAD_CACHE_RSA_PUB);
  if (c == NULL)
    return;
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++) {
    BN_MONT_CTX_free(c->slot[i].mont);
    c->slot[i].mont = NULL;
    c->slot[i].n_len = 0;
  }
  c->next = 0;
}

unsigned long mc_rsa_pub_cache_hits(void) {
  const rsa_cache *c = mc_thread_cache_peek(MC_THREAD_CACHE_RSA_PUB);
  return c != NULL ? c->hits : 0;
}

int mc_rsa_pub_is_f4(const uint8_t *e, size_t e_len) {
  return e != NULL && e_len == 3 && e[0] == 1 && e[1] == 0 && e[2] == 1;
}

// mont_new builds the Montgomery context of the public modulus `n`.
static BN_MONT_CTX *mont_new(const uint8_t *n, size_t n_len, BN_CTX *ctx) {
  BIGNUM *bn = BN_bin2bn(n, n_len, NULL);
  BN_MONT_CTX *mont = bn != NULL ? BN_MONT_CTX_new_for_modulus(bn, ctx) : NULL;
  BN_free(bn);
  return mont;
}

// mont_get returns the context for `n` from the cache `c`, building and
// caching it when it is not there. With `c` NULL (no cache) the context is
// new and `*owned` is set: the caller frees it.
static BN_MONT_CTX *mont_get(rsa_cache *c, const uint8_t *n, size_t n_len, int *owned) {
  *owned = 0;
  if (c == NULL) {
    *owned = 1;
    return mont_new(n, n_len, NULL);
  }
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++) {
    rsa_slot *s = &c->slot[i];
    if (s->n_len == n_len && memcmp(s->n, n, n_len) == 0) {
      c->hits++;
      return s->mont;
    }
  }
  BN_MONT_CTX *mont = mont_new(n, n_len, c->ctx);
  if (mont == NULL)
    return NULL;
  rsa_slot *s = &c->slot[c->next];
  c->next = (c->next + 1) % MC_RSA_PUB_CACHE_SLOTS;
  BN_MONT_CTX_free(s->mont);
  s->mont = mont;
  s->n_len = n_len;
  memcpy(s->n, n, n_len);
  return mont;
}

// be_to_words reads the `len`-byte big-endian `in` into `num` little-endian
// words (num * WORD_BYTES >= len), the top ones zero.
static void be_to_words(BN_ULONG *w, size_t num, const uint8_t *in, size_t len) {
  memset(w, 0, num * sizeof *w);
  for (size_t i = 0; i < len; i++)
    w[i / WORD_BYTES] |= (BN_ULONG)in[len - 1 - i] << (8 * (i % WORD_BYTES));
}

// words_to_be writes the low `len` bytes of the words `w` big-endian.
static void words_to_be(uint8_t *out, size_t len, const BN_ULONG *w) {
  for (size_t i = 0; i < len; i++)
    out[len - 1 - i] = (uint8_t)(w[i / WORD_BYTES] >> (8 * (i % WORD_BYTES)));
}

// below returns 1 when a < b (`num` words each) and 0 otherwise, looking at
// every word whatever their values: the borrow out of a - b, computed with
// masks (Hacker's Delight 2-16) so that no compiler turns it into a branch.
static BN_ULONG below(const BN_ULONG *a, const BN_ULONG *b, size_t num) {
  BN_ULONG borrow = 0;
  for (size_t i = 0; i < num; i++) {
    BN_ULONG d = a[i] - b[i] - borrow;
    borrow = ((~a[i] & b[i]) | ((~a[i] | b[i]) & d)) >> (BN_BITS2 - 1);
  }
  return borrow;
}

// view makes a BIGNUM over `num` words at `d`, at full width: BoringSSL
// never reallocates static data and runs bn_mul_mont when both factors have
// the modulus's width.
static void view(BIGNUM *b, BN_ULONG *d, size_t num) {
  memset(b, 0, sizeof *b);
  b->d = d;
  b->width = (int)num;
  b->dmax = (int)num;
  b->neg = 0;
  b->flags = BN_FLG_STATIC_DATA;
}

int mc_rsa_public_f4(uint8_t *out, const uint8_t *n, size_t n_len, const uint8_t *em) {
  MC_FAIL_IF(out == NULL || n == NULL || em == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(n_len * 8 < MC_RSA_MIN_MODULUS_BITS || n_len > MC_RSA_MAX_MODULUS_LEN || n[0] == 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((n[n_len - 1] & 1) == 0, MC_ERR_BAD_KEY);
  size_t num = (n_len + WORD_BYTES - 1) / WORD_BYTES;
  BN_ULONG nw[MAX_WORDS], m[MAX_WORDS], x[MAX_WORDS];
  be_to_words(nw, num, n, n_len);
  be_to_words(m, num, em, n_len);
  int rc = 0;
  // em < n for certain when its first byte is below n's, as with both
  // encodings, which start with 0; otherwise the words are compared in
  // constant time. The verdict shows, nothing else about em.
  if (em[0] >= n[0] && mc_value_barrier_u32((uint32_t)below(m, nw, num)) != 1) {
    rc = MC_ERR_INVALID_ARGUMENT;
    goto done;
  }
  rsa_cache *c = cache_get();
  int owned = 0;
  BN_MONT_CTX *mont = mont_get(c, n, n_len, &owned);
  // The products take the fast path, which never uses a BN_CTX; one is
  // passed all the same, so that a BoringSSL that differs fails cleanly.
  BN_CTX *ctx = c != NULL ? c->ctx : BN_CTX_new();
  if (mont == NULL || ctx == NULL) {
    if (owned)
      BN_MONT_CTX_free(mont);
    if (c == NULL)
      BN_CTX_free(ctx);
    rc = mc_bssl_fail(-ENOMEM);
    goto done;
  }
  // The modulus's width in BoringSSL's eyes must be ours, or the products
  // below would leave the constant-time path.
  if (BN_num_bytes(&mont->N) != n_len || (size_t)mont->N.width != num) {
    rc = MC_ERR_BAD_KEY;
  } else {
    BIGNUM bm, bx;
    view(&bm, m, num);
    view(&bx, x, num);
    int ok = BN_to_montgomery(&bx, &bm, mont, ctx); // x = m·R
    for (int i = 0; ok && i < 16; i++)
      ok = BN_mod_mul_montgomery(&bx, &bx, &bx, mont, ctx); // x = m^(2^(i+1))·R
    // m^65536·R · m · R^-1: the result, already out of the domain.
    ok = ok && BN_mod_mul_montgomery(&bx, &bx, &bm, mont, ctx);
    if (!ok || bx.d != x || (size_t)bx.width != num)
      rc = mc_bssl_fail(MC_ERR_BAD_KEY);
    else
      words_to_be(out, n_len, x);
  }
  if (owned)
    BN_MONT_CTX_free(mont);
  if (c == NULL)
    BN_CTX_free(ctx);
done:
  mc_wipe(m, sizeof m);
  mc_wipe(x, sizeof x);
  return rc;
}
