// impl_adxsha.c: the "adxsha" entry of libmsgcrypt's implementation table
// (impl.c): the "avx2" entry's kernels plus those that need the x86-64
// crypto extensions beyond AVX2 (ADX for the field arithmetic of X25519 in
// x25519_adx.c and of P-256 in p256_adx.c, SHA-NI and AES-NI for SEIPDv1's
// CFB with its SHA-1 MDC in cfb_sha1_shani.c), and the CPU features all of
// them need, which are the flags meson.build compiles this level with. It
// comes first in the table.
#include "corvid_cpu.h"
#include "impl_internal.h"

const struct mc_impl mc_impl_adxsha = {
    .name = "adxsha",
    .required = CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 | CORVID_CPU_LZCNT |
                CORVID_CPU_POPCNT | CORVID_CPU_ADX | CORVID_CPU_SHA | CORVID_CPU_AESNI |
                CORVID_CPU_SSE41 | CORVID_CPU_PCLMUL,
    .keccak_f1600_x4 = mc_keccak_f1600_x4_avx2,
    .mldsa_ntt = mc_mldsa_ntt_avx2,
    .mldsa_invntt = mc_mldsa_invntt_avx2,
    .mldsa_pointwise = mc_mldsa_pointwise_avx2,
    .mldsa_pointwise_acc = mc_mldsa_pointwise_acc_avx2,
    .mldsa_pointwise_sum = mc_mldsa_pointwise_sum_avx2,
    .mlkem_ntt = mc_mlkem_ntt_avx2,
    .mlkem_invntt = mc_mlkem_invntt_avx2,
    .mlkem_basemul_acc = mc_mlkem_basemul_acc_avx2,
    .mlkem_acc_reduce = mc_mlkem_acc_reduce_avx2,
    .x25519 = mc_x25519_scalarmult_adx,
    .x25519_base = mc_x25519_base_adx,
    .x25519_pair = mc_x25519_pair_adx,
    .p256_mul = mc_p256_mul_adx,
    .p256_base = mc_p256_base_adx,
    .cfb_sha1_blocks = mc_cfb_sha1_blocks_shani,
    .crc24 = mc_pgp_crc24_clmul,
};
