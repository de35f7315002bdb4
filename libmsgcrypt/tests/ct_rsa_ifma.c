// ct_rsa_ifma.c: the constant-time check of the RSA public operation's
// AVX-512 IFMA product (src/x86/rsa_ifma.c) through rsa_r52.c's sequence,
// with clang's MemorySanitizer instead of Valgrind, which executes no
// AVX-512 (ct_rsa.c checks the rest under Valgrind). The message is
// poisoned; MemorySanitizer carries the poison through the vpmadd52 lanes
// and reports any branch or memory address that depends on it; the result
// is unpoisoned at the end. ct_rsa_ifma.sh compiles this file and the
// kernel files with -fsanitize=memory (no BoringSSL call runs: the context
// is filled by hand, since the property does not depend on R^2's value),
// and once more with CT_RSA_IFMA_CONTROL, which branches on the poisoned
// result on purpose and must be reported: the proof that the poison does
// flow through the kernel's intrinsics with this compiler.
#include <sanitizer/msan_interface.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "corvid_cpu.h"
#include "rsa_r52_internal.h"

static mc_r52_mont ctx;

int main(void) {
  static atomic_uint_fast32_t cpu;
  if ((corvid_cpu_features(&cpu) & CORVID_CPU_AVX512IFMA) == 0) {
    printf("ct_rsa_ifma: no AVX-512 IFMA on this CPU, skipped\n");
    return 77;
  }
  static const size_t lens[] = {128, 256, 257, 384, 385, 512, 768, 1024, 2048};
  for (size_t s = 0; s < sizeof lens / sizeof lens[0]; s++) {
    size_t len = lens[s];
    uint8_t n[MC_RSA_MAX_MODULUS_LEN], em[MC_RSA_MAX_MODULUS_LEN], out[MC_RSA_MAX_MODULUS_LEN];
    for (size_t i = 0; i < len; i++) {
      n[i] = (uint8_t)(i * 37 + 11 + (i >> 4));
      em[i] = (uint8_t)(i * 91 + 5);
    }
    n[0] |= 0x80;
    n[len - 1] |= 1;
    em[0] = 0;
    ctx.num = mc_r52_limbs(len);
    mc_r52_from_be(ctx.n, ctx.num, n, len);
    mc_r52_from_be(ctx.rr, ctx.num, em, len); // any number below n will do
    uint64_t n0 = ctx.n[0], inv = n0;
    for (int i = 0; i < 5; i++)
      inv *= 2 - n0 * inv;
    ctx.k0 = (0 - inv) & MC_R52_MASK;
    _Alignas(64) uint64_t x[MC_R52_MAX_LIMBS], m[MC_R52_MAX_LIMBS];
    __msan_poison(em + 1, len - 1);
    mc_r52_from_be(m, ctx.num, em, len);
    mc_r52_f4(x, &ctx, m, mc_r52_amm_ifma);
#ifdef CT_RSA_IFMA_CONTROL
    if (x[1] & 1) // a branch on the secret result: must be reported
      printf("ct_rsa_ifma: control\n");
#endif
    mc_r52_to_be(out, len, x, ctx.num);
    __msan_unpoison(out, len);
    __msan_unpoison(em, len);
    printf("ct_rsa_ifma: %zu bits checked (%02x%02x...)\n", len * 8, out[0], out[1]);
  }
  printf("ct_rsa_ifma: ok\n");
  return 0;
}
