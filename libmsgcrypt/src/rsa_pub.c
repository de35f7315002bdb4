// rsa_pub.c: the RSA public operation em^65537 mod n for pkenc.c's
// encryption, with the modulus's Montgomery context cached per thread.
// BoringSSL's RSA_encrypt builds that context (R^2 mod n, about a tenth of
// an RSA-3072 encryption) for every new RSA object, and libmsgcrypt makes
// one per message; it then exponentiates with a generic window method and
// converts out of the Montgomery domain. Here the exponent's shape gives the
// sequence directly: into the domain (one product with R^2), sixteen
// squarings, and one product with the plain message, which leaves the
// domain at the same time (x·R · m · R^-1 = x·m).
//
// Two kinds of product do it. On CPUs with AVX-512 IFMA, rsa_r52.c's
// sequence in radix 2^52 over x86/rsa_ifma.c's vector kernel. Elsewhere
// BoringSSL's public BN_mod_mul_montgomery over BIGNUMs that view this
// file's word arrays at the modulus's full width, which is the condition
// under which it calls its bn_mul_mont kernel directly (assembly with a
// masked final subtraction, nothing trimmed to the value's width). Either
// way the time does not depend on the secret message. The choice is made
// once per process (MSGCRYPT_RSA_IMPL, or the CPU), and tests and
// benchmarks can force any of them, the plain C radix-2^52 one included.
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>

#include "aead_internal.h"
#include "corvid_cpu.h"
#include "rsa_pub.h"
#include "rsa_r52_internal.h"
#include "thread_cache_internal.h"

// BoringSSL's headers name the word's bits only.
#define WORD_BYTES (BN_BITS2 / 8)
#define MAX_WORDS ((MC_RSA_MAX_MODULUS_LEN + WORD_BYTES - 1) / WORD_BYTES)

typedef struct {
  size_t n_len;      // 0: empty
  BN_MONT_CTX *mont; // for the BoringSSL products; NULL until needed
  mc_r52_mont *r52;  // for the radix-2^52 ones; NULL until needed
  uint8_t n[MC_RSA_MAX_MODULUS_LEN];
} rsa_slot;

typedef struct {
  rsa_slot slot[MC_RSA_PUB_CACHE_SLOTS];
  unsigned next; // the slot replaced next
  unsigned long hits;
  BN_CTX *ctx; // for BoringSSL's context setup; never sees the message
} rsa_cache;

// slot_empty frees what a slot holds and marks it empty.
static void slot_empty(rsa_slot *s) {
  BN_MONT_CTX_free(s->mont);
  free(s->r52);
  s->mont = NULL;
  s->r52 = NULL;
  s->n_len = 0;
}

// cache_release frees the contexts a cache holds (at thread exit).
static void cache_release(void *p) {
  rsa_cache *c = p;
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++)
    slot_empty(&c->slot[i]);
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
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++)
    slot_empty(&c->slot[i]);
  c->next = 0;
}

unsigned long mc_rsa_pub_cache_hits(void) {
  const rsa_cache *c = mc_thread_cache_peek(MC_THREAD_CACHE_RSA_PUB);
  return c != NULL ? c->hits : 0;
}

int mc_rsa_pub_is_f4(const uint8_t *e, size_t e_len) {
  return e != NULL && e_len == 3 && e[0] == 1 && e[1] == 0 && e[2] == 1;
}

// ---- Choice of products ----

static atomic_uint_fast32_t cpu_cache;
// 0: not chosen yet; else MC_RSA_PUB_IMPL_* + 1, or UNUSABLE.
static atomic_int chosen;
enum { UNUSABLE = 100 };

int mc_rsa_pub_impl_supported(int impl) {
  switch (impl) {
  case MC_RSA_PUB_IMPL_BORINGSSL:
  case MC_RSA_PUB_IMPL_R52:
    return 1;
  case MC_RSA_PUB_IMPL_IFMA:
#if MC_HAVE_IFMA
    return (corvid_cpu_features(&cpu_cache) & CORVID_CPU_AVX512IFMA) != 0;
#else
    return 0;
#endif
  default:
    return 0;
  }
}

// best returns the fastest products this CPU runs.
static int best(void) {
  return mc_rsa_pub_impl_supported(MC_RSA_PUB_IMPL_IFMA) ? MC_RSA_PUB_IMPL_IFMA
                                                         : MC_RSA_PUB_IMPL_BORINGSSL;
}

static const char *const impl_names[] = {
    [MC_RSA_PUB_IMPL_BORINGSSL] = "boringssl",
    [MC_RSA_PUB_IMPL_IFMA] = "ifma",
    [MC_RSA_PUB_IMPL_R52] = "r52",
};

// current returns the MC_RSA_PUB_IMPL_* in use, or UNUSABLE when
// MSGCRYPT_RSA_IMPL names one this CPU cannot run or none at all.
static int current(void) {
  int v = atomic_load_explicit(&chosen, memory_order_relaxed);
  if (v != 0)
    return v == UNUSABLE ? UNUSABLE : v - 1;
  int impl = best();
  const char *env = getenv("MSGCRYPT_RSA_IMPL");
  if (env != NULL && env[0] != '\0') {
    impl = UNUSABLE;
    for (int i = MC_RSA_PUB_IMPL_BORINGSSL; i <= MC_RSA_PUB_IMPL_R52; i++)
      if (strcmp(env, impl_names[i]) == 0 && mc_rsa_pub_impl_supported(i))
        impl = i;
  }
  v = impl == UNUSABLE ? UNUSABLE : impl + 1;
  int expected = 0; // another thread may have chosen first, the same way
  if (!atomic_compare_exchange_strong(&chosen, &expected, v))
    v = expected;
  return v == UNUSABLE ? UNUSABLE : v - 1;
}

int mc_rsa_pub_force_impl(int impl) {
  if (impl == MC_RSA_PUB_IMPL_AUTO)
    impl = best();
  MC_FAIL_IF(!mc_rsa_pub_impl_supported(impl), MC_ERR_UNSUPPORTED);
  atomic_store_explicit(&chosen, impl + 1, memory_order_relaxed);
  return 0;
}

const char *mc_rsa_pub_impl_name(void) {
  int impl = current();
  return impl == UNUSABLE ? "unsupported" : impl_names[impl];
}

// ---- Contexts ----

// slot_for returns the cache's slot for `n`, counting a hit, or empties the
// next slot in turn and gives it to `n`.
static rsa_slot *slot_for(rsa_cache *c, const uint8_t *n, size_t n_len) {
  for (size_t i = 0; i < MC_RSA_PUB_CACHE_SLOTS; i++) {
    rsa_slot *s = &c->slot[i];
    if (s->n_len == n_len && memcmp(s->n, n, n_len) == 0) {
      c->hits++;
      return s;
    }
  }
  rsa_slot *s = &c->slot[c->next];
  c->next = (c->next + 1) % MC_RSA_PUB_CACHE_SLOTS;
  slot_empty(s);
  s->n_len = n_len;
  memcpy(s->n, n, n_len);
  return s;
}

// slot_mont gives `s` BoringSSL's Montgomery context of its modulus when
// it has none; 0 or -ENOMEM.
static int slot_mont(rsa_slot *s, BN_CTX *ctx) {
  if (s->mont != NULL)
    return 0;
  BIGNUM *bn = BN_bin2bn(s->n, s->n_len, NULL);
  s->mont = bn != NULL ? BN_MONT_CTX_new_for_modulus(bn, ctx) : NULL;
  BN_free(bn);
  return s->mont != NULL ? 0 : -ENOMEM;
}

// slot_r52 gives `s` the radix-2^52 context of its modulus when it has
// none; 0 or -ENOMEM.
static int slot_r52(rsa_slot *s) {
  if (s->r52 != NULL)
    return 0;
  mc_r52_mont *m = aligned_alloc(_Alignof(mc_r52_mont), sizeof *m);
  if (m == NULL)
    return -ENOMEM;
  if (mc_r52_mont_init(m, s->n, s->n_len) != 0) {
    free(m);
    return -ENOMEM;
  }
  s->r52 = m;
  return 0;
}

// ---- The operation ----

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

// f4_boringssl writes m^65537 mod n to `out` with BoringSSL's products;
// `m` holds the message in `num` words, `x` is scratch of as many.
static int f4_boringssl(uint8_t *out, size_t n_len, BN_ULONG *m, BN_ULONG *x, size_t num,
                        const BN_MONT_CTX *mont, BN_CTX *ctx) {
  // The modulus's width in BoringSSL's eyes must be ours, or the products
  // below would leave the constant-time path.
  if (BN_num_bytes(&mont->N) != n_len || (size_t)mont->N.width != num)
    return MC_ERR_BAD_KEY;
  BIGNUM bm, bx;
  view(&bm, m, num);
  view(&bx, x, num);
  int ok = BN_to_montgomery(&bx, &bm, mont, ctx); // x = m·R
  for (int i = 0; ok && i < 16; i++)
    ok = BN_mod_mul_montgomery(&bx, &bx, &bx, mont, ctx); // x = m^(2^(i+1))·R
  // m^65536·R · m · R^-1: the result, already out of the domain.
  ok = ok && BN_mod_mul_montgomery(&bx, &bx, &bm, mont, ctx);
  if (!ok || bx.d != x || (size_t)bx.width != num)
    return mc_bssl_fail(MC_ERR_BAD_KEY);
  words_to_be(out, n_len, x);
  return 0;
}

// f4_r52 writes em^65537 mod n to `out` in radix 2^52 with `amm`.
static void f4_r52(uint8_t *out, const uint8_t *em, const mc_r52_mont *ctx, mc_r52_amm_fn *amm,
                   size_t n_len) {
  _Alignas(64) uint64_t m[MC_R52_MAX_LIMBS], x[MC_R52_MAX_LIMBS];
  mc_r52_from_be(m, ctx->num, em, n_len);
  mc_r52_f4(x, ctx, m, amm);
  mc_r52_to_be(out, n_len, x, ctx->num);
  mc_wipe(m, ctx->num * sizeof *m);
  mc_wipe(x, ctx->num * sizeof *x);
}

int mc_rsa_public_f4(uint8_t *out, const uint8_t *n, size_t n_len, const uint8_t *em) {
  MC_FAIL_IF(out == NULL || n == NULL || em == NULL, MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF(n_len * 8 < MC_RSA_MIN_MODULUS_BITS || n_len > MC_RSA_MAX_MODULUS_LEN || n[0] == 0,
             MC_ERR_INVALID_ARGUMENT);
  MC_FAIL_IF((n[n_len - 1] & 1) == 0, MC_ERR_BAD_KEY);
  int impl = current();
  MC_FAIL_IF(impl == UNUSABLE, MC_ERR_UNSUPPORTED);
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
  rsa_slot own = {0}, *s = &own; // without a cache: this call's own contexts
  if (c != NULL) {
    s = slot_for(c, n, n_len);
  } else {
    own.n_len = n_len;
    memcpy(own.n, n, n_len);
  }
  if (impl == MC_RSA_PUB_IMPL_BORINGSSL) {
    // The products take the fast path, which never uses a BN_CTX; one is
    // passed all the same, so that a BoringSSL that differs fails cleanly.
    BN_CTX *ctx = c != NULL ? c->ctx : BN_CTX_new();
    if (ctx == NULL || slot_mont(s, ctx) != 0)
      rc = mc_bssl_fail(-ENOMEM);
    else
      rc = f4_boringssl(out, n_len, m, x, num, s->mont, ctx);
    if (c == NULL)
      BN_CTX_free(ctx);
  } else if (slot_r52(s) != 0) {
    rc = -ENOMEM;
  } else {
#if MC_HAVE_IFMA
    mc_r52_amm_fn *amm = impl == MC_RSA_PUB_IMPL_IFMA ? mc_r52_amm_ifma : mc_r52_amm_scalar;
#else
    mc_r52_amm_fn *amm = mc_r52_amm_scalar;
#endif
    f4_r52(out, em, s->r52, amm, n_len);
  }
  if (c == NULL)
    slot_empty(&own);
done:
  mc_wipe(m, sizeof m);
  mc_wipe(x, sizeof x);
  return rc;
}
