// impl.c: libmsgcrypt's table of implementations and the run-time choice
// among them (CONVENTIONS §6): the first entry whose CPU features are all
// present, or the one MSGCRYPT_IMPL names, chosen once at first use and kept
// in an atomic pointer; the scalar entry (the specification) and the
// "unsupported" singleton that an unusable MSGCRYPT_IMPL selects. CPU
// features come from common/include/corvid_cpu.h only.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_cpu.h"
#include "impl_internal.h"

const struct mc_impl mc_impl_scalar = {
    .name = "scalar",
    .required = 0,
    .keccak_f1600_x4 = mc_keccak_f1600_x4_scalar,
    .mldsa_ntt = mc_mldsa_ntt_scalar,
    .mldsa_invntt = mc_mldsa_invntt_scalar,
    .mldsa_pointwise = mc_mldsa_pointwise_scalar,
    .mldsa_pointwise_acc = mc_mldsa_pointwise_acc_scalar,
    .mldsa_pointwise_sum = mc_mldsa_pointwise_sum_scalar,
    .mlkem_ntt = mc_mlkem_ntt_scalar,
    .mlkem_invntt = mc_mlkem_invntt_scalar,
    .mlkem_basemul_acc = mc_mlkem_basemul_acc_scalar,
    .mlkem_acc_reduce = mc_mlkem_acc_reduce_scalar,
    .x25519 = mc_x25519_scalarmult_scalar,
    .x25519_base = mc_x25519_base_scalar,
    .p256_mul = mc_p256_mul_scalar,
    .p256_base = mc_p256_base_scalar,
    .cfb_sha1_blocks = mc_cfb_sha1_blocks_scalar,
    .crc24 = mc_pgp_crc24_scalar,
};

// Public entry points check for this one (mc_impl_check) before they use any
// kernel; the kernels are scalar so that an internal caller cannot crash.
static const struct mc_impl impl_unsupported = {
    .name = "unsupported",
    .required = 0,
    .keccak_f1600_x4 = mc_keccak_f1600_x4_scalar,
    .mldsa_ntt = mc_mldsa_ntt_scalar,
    .mldsa_invntt = mc_mldsa_invntt_scalar,
    .mldsa_pointwise = mc_mldsa_pointwise_scalar,
    .mldsa_pointwise_acc = mc_mldsa_pointwise_acc_scalar,
    .mldsa_pointwise_sum = mc_mldsa_pointwise_sum_scalar,
    .mlkem_ntt = mc_mlkem_ntt_scalar,
    .mlkem_invntt = mc_mlkem_invntt_scalar,
    .mlkem_basemul_acc = mc_mlkem_basemul_acc_scalar,
    .mlkem_acc_reduce = mc_mlkem_acc_reduce_scalar,
    .x25519 = mc_x25519_scalarmult_scalar,
    .x25519_base = mc_x25519_base_scalar,
    .p256_mul = mc_p256_mul_scalar,
    .p256_base = mc_p256_base_scalar,
    .cfb_sha1_blocks = mc_cfb_sha1_blocks_scalar,
    .crc24 = mc_pgp_crc24_scalar,
};

// Priority order; scalar is last and always runs.
static const struct mc_impl *const impls[] = {
#if MC_HAVE_ADXSHA
    &mc_impl_adxsha,
#endif
#if MC_HAVE_AVX2
    &mc_impl_avx2,
#endif
    &mc_impl_scalar,
};
enum { NUM_IMPLS = sizeof impls / sizeof impls[0] };

static atomic_uint_fast32_t cpu_cache;
static _Atomic(const struct mc_impl *) current;

static int supported(const struct mc_impl *im) {
  return (im->required & ~corvid_cpu_features(&cpu_cache)) == 0;
}

static const struct mc_impl *best(void) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (supported(impls[i]))
      return impls[i];
  return &mc_impl_scalar;
}

static const struct mc_impl *by_name(const char *name) {
  for (size_t i = 0; i < NUM_IMPLS; i++)
    if (strcmp(impls[i]->name, name) == 0)
      return supported(impls[i]) ? impls[i] : NULL;
  return NULL;
}

const struct mc_impl *mc_impl_current(void) {
  const struct mc_impl *im = atomic_load_explicit(&current, memory_order_acquire);
  if (im != NULL)
    return im;
  const char *env = getenv("MSGCRYPT_IMPL");
  if (env != NULL && env[0] != '\0') {
    im = by_name(env);
    if (im == NULL)
      im = &impl_unsupported;
  } else {
    im = best();
  }
  const struct mc_impl *expected = NULL;
  // Another thread may have chosen first; both made the same choice.
  if (!atomic_compare_exchange_strong(&current, &expected, im))
    im = expected;
  return im;
}

int mc_impl_check(void) {
  return mc_impl_current() == &impl_unsupported ? MC_ERR_UNSUPPORTED : 0;
}

const char *mc_impl_name(void) {
  return mc_impl_current()->name;
}

size_t mc_impl_count(void) {
  return NUM_IMPLS;
}

const char *mc_impl_get(size_t index, int *is_supported) {
  if (index >= NUM_IMPLS)
    return NULL;
  if (is_supported != NULL)
    *is_supported = supported(impls[index]);
  return impls[index]->name;
}

int mc_impl_force(const char *name) {
  const struct mc_impl *im = name == NULL ? best() : by_name(name);
  MC_FAIL_IF(im == NULL, MC_ERR_UNSUPPORTED);
  atomic_store_explicit(&current, im, memory_order_release);
  return 0;
}
