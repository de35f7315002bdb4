// impl_avx2.c: the "avx2" entry of libmsgcrypt's implementation table
// (impl.c): the kernels of keccak_avx2.c, mldsa_avx2.c, mlkem_avx2.c and
// crc24_clmul.c (carry-less multiplication, which every AVX2 CPU has) and
// the CPU features they need, which are the flags meson.build compiles this
// directory with.
#include "corvid_cpu.h"
#include "impl_internal.h"

const struct mc_impl mc_impl_avx2 = {
    .name = "avx2",
    .required = CORVID_CPU_AVX2 | CORVID_CPU_BMI1 | CORVID_CPU_BMI2 | CORVID_CPU_LZCNT |
                CORVID_CPU_POPCNT | CORVID_CPU_PCLMUL,
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
    .x25519 = mc_x25519_scalarmult_scalar,
    .x25519_base = mc_x25519_base_scalar,
    .p256_mul = mc_p256_mul_scalar,
    .p256_base = mc_p256_base_scalar,
    .cfb_sha1_blocks = mc_cfb_sha1_blocks_scalar,
    .crc24 = mc_pgp_crc24_clmul,
};
