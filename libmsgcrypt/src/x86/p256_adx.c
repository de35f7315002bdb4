// p256_adx.c: the P-256 kernels of the "adxsha" table entry, for x86-64
// with BMI2 and ADX. The point arithmetic is p256_curve.h's, compiled here
// with this level's flags; what differs is the Montgomery product, written
// in inline assembly so that mulx feeds two independent carry chains (adcx
// for the low halves, adox for the high halves), which compilers do not
// produce from C or from the _addcarryx_u64 intrinsic, and so that the
// reduction can use the shape of p: with m the lowest limb, adding m·p and
// dropping a limb is adding m·2^32 and m·(2^64 - 2^32 + 1)·2^128, one mulx
// and two shifts instead of four products. Results equal p256.c's bit for
// bit: both return the fully reduced Montgomery product. Like the X25519
// kernel, the variable-base multiplication keeps a per-thread table for a
// peer point that comes twice in a row.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p256_internal.h"
#include "thread_cache_internal.h"

static inline void fe_mul(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b);
static inline void fe_sqr(mc_p256_fe *r, const mc_p256_fe *a);
#define P256_OWN_ADD_SUB 1
static inline void fe_add(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b);
static inline void fe_sub(mc_p256_fe *r, const mc_p256_fe *a, const mc_p256_fe *b);

#include "p256_curve.h"

// fe_add: r = a + b mod p for a, b below p: the sum, then the sum minus p
// unless that borrows (the sum's carry counted), chosen with cmov. The point
// formulas do about two additions or subtractions per product, so these
// matter nearly as much as fe_mul.
static inline __attribute__((always_inline)) void fe_add(mc_p256_fe *r, const mc_p256_fe *a,
                                                         const mc_p256_fe *b) {
  __asm__ volatile("movq 0(%[a]), %%r8\n\t"
                   "movq 8(%[a]), %%r9\n\t"
                   "movq 16(%[a]), %%r10\n\t"
                   "movq 24(%[a]), %%r11\n\t"
                   "xorl %%eax, %%eax\n\t"
                   "addq 0(%[b]), %%r8\n\t"
                   "adcq 8(%[b]), %%r9\n\t"
                   "adcq 16(%[b]), %%r10\n\t"
                   "adcq 24(%[b]), %%r11\n\t"
                   "adcq $0, %%rax\n\t"
                   "movq %%r8, 0(%[r])\n\t"
                   "movq %%r9, 8(%[r])\n\t"
                   "movq %%r10, 16(%[r])\n\t"
                   "movq %%r11, 24(%[r])\n\t"
                   "movl $0xffffffff, %%ecx\n\t"
                   "movabsq $0xffffffff00000001, %%rdx\n\t"
                   "subq $-1, %%r8\n\t"
                   "sbbq %%rcx, %%r9\n\t"
                   "sbbq $0, %%r10\n\t"
                   "sbbq %%rdx, %%r11\n\t"
                   "sbbq $0, %%rax\n\t"
                   "cmovcq 0(%[r]), %%r8\n\t"
                   "cmovcq 8(%[r]), %%r9\n\t"
                   "cmovcq 16(%[r]), %%r10\n\t"
                   "cmovcq 24(%[r]), %%r11\n\t"
                   "movq %%r8, 0(%[r])\n\t"
                   "movq %%r9, 8(%[r])\n\t"
                   "movq %%r10, 16(%[r])\n\t"
                   "movq %%r11, 24(%[r])\n\t"
                   :
                   : [r] "r"(r->v), [a] "r"(a->v), [b] "r"(b->v)
                   : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "cc", "memory");
}

// fe_sub: r = a - b mod p: the difference, plus p masked by the borrow. The
// masked limbs of p are mask, mask >> 32, 0 and -(mask >> 32).
static inline __attribute__((always_inline)) void fe_sub(mc_p256_fe *r, const mc_p256_fe *a,
                                                         const mc_p256_fe *b) {
  __asm__ volatile("movq 0(%[a]), %%r8\n\t"
                   "movq 8(%[a]), %%r9\n\t"
                   "movq 16(%[a]), %%r10\n\t"
                   "movq 24(%[a]), %%r11\n\t"
                   "subq 0(%[b]), %%r8\n\t"
                   "sbbq 8(%[b]), %%r9\n\t"
                   "sbbq 16(%[b]), %%r10\n\t"
                   "sbbq 24(%[b]), %%r11\n\t"
                   "sbbq %%rax, %%rax\n\t"
                   "movq %%rax, %%rcx\n\t"
                   "shrq $32, %%rcx\n\t"
                   "movq %%rcx, %%rdx\n\t"
                   "negq %%rdx\n\t"
                   "addq %%rax, %%r8\n\t"
                   "adcq %%rcx, %%r9\n\t"
                   "adcq $0, %%r10\n\t"
                   "adcq %%rdx, %%r11\n\t"
                   "movq %%r8, 0(%[r])\n\t"
                   "movq %%r9, 8(%[r])\n\t"
                   "movq %%r10, 16(%[r])\n\t"
                   "movq %%r11, 24(%[r])\n\t"
                   :
                   : [r] "r"(r->v), [a] "r"(a->v), [b] "r"(b->v)
                   : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "cc", "memory");
}

// One round of multiply-accumulate for b[i] (i >= 1): A0..A4 += a·b[i],
// with the carries of both chains landing in A5 (zeroed here).
#define P256_MAC_ROW(boff, A0, A1, A2, A3, A4, A5)                                                 \
  "movq " boff "(%[b]), %%rdx\n\t"                                                                 \
  "xorl %%" A5 "d, %%" A5 "d\n\t"                                                                  \
  "mulxq 0(%[a]), %%rax, %%rcx\n\t"                                                                \
  "adcxq %%rax, %%" A0 "\n\t"                                                                      \
  "adoxq %%rcx, %%" A1 "\n\t"                                                                      \
  "mulxq 8(%[a]), %%rax, %%rcx\n\t"                                                                \
  "adcxq %%rax, %%" A1 "\n\t"                                                                      \
  "adoxq %%rcx, %%" A2 "\n\t"                                                                      \
  "mulxq 16(%[a]), %%rax, %%rcx\n\t"                                                               \
  "adcxq %%rax, %%" A2 "\n\t"                                                                      \
  "adoxq %%rcx, %%" A3 "\n\t"                                                                      \
  "mulxq 24(%[a]), %%rax, %%rcx\n\t"                                                               \
  "adcxq %%rax, %%" A3 "\n\t"                                                                      \
  "adoxq %%rcx, %%" A4 "\n\t"                                                                      \
  "movl $0, %%eax\n\t"                                                                             \
  "adoxq %%rax, %%" A5 "\n\t"                                                                      \
  "adcxq %%rax, %%" A4 "\n\t"                                                                      \
  "adcxq %%rax, %%" A5 "\n\t"

// One Montgomery reduction round with m = A0: A1..A5 += m·2^32 +
// m·(2^64 - 2^32 + 1)·2^128 (limb positions relative to A1); A0 is then free.
#define P256_REDUCE(A0, A1, A2, A3, A4, A5)                                                        \
  "movabsq $0xffffffff00000001, %%rdx\n\t"                                                         \
  "mulxq %%" A0 ", %%rax, %%rcx\n\t"                                                               \
  "movq %%" A0 ", %%rdx\n\t"                                                                       \
  "shlq $32, %%rdx\n\t"                                                                            \
  "shrq $32, %%" A0 "\n\t"                                                                         \
  "addq %%rdx, %%" A1 "\n\t"                                                                       \
  "adcq %%" A0 ", %%" A2 "\n\t"                                                                    \
  "adcq %%rax, %%" A3 "\n\t"                                                                       \
  "adcq %%rcx, %%" A4 "\n\t"                                                                       \
  "adcq $0, %%" A5 "\n\t"

// fe_mul: r = a·b·2^-256 mod p for a, b below p. After each round the
// accumulator is below 2p, so five limbs hold it; the registers rotate
// rather than the values moving.
static inline __attribute__((always_inline)) void fe_mul(mc_p256_fe *r, const mc_p256_fe *a,
                                                         const mc_p256_fe *b) {
  __asm__ volatile(
      // Row 0: r8..r12 = a·b[0].
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %%r8, %%r9\n\t"
      "mulxq 8(%[a]), %%rax, %%r10\n\t"
      "addq %%rax, %%r9\n\t"
      "mulxq 16(%[a]), %%rax, %%r11\n\t"
      "adcq %%rax, %%r10\n\t"
      "mulxq 24(%[a]), %%rax, %%r12\n\t"
      "adcq %%rax, %%r11\n\t"
      "adcq $0, %%r12\n\t"
      "xorl %%r13d, %%r13d\n\t"
      // clang-format off
      P256_REDUCE("r8", "r9", "r10", "r11", "r12", "r13")
      P256_MAC_ROW("8", "r9", "r10", "r11", "r12", "r13", "r8")
      P256_REDUCE("r9", "r10", "r11", "r12", "r13", "r8")
      P256_MAC_ROW("16", "r10", "r11", "r12", "r13", "r8", "r9")
      P256_REDUCE("r10", "r11", "r12", "r13", "r8", "r9")
      P256_MAC_ROW("24", "r11", "r12", "r13", "r8", "r9", "r10")
      P256_REDUCE("r11", "r12", "r13", "r8", "r9", "r10")
      // clang-format on
      // Value r12 r13 r8 r9 + 2^256·r10, below 2p: keep it minus p unless
      // the subtraction borrows, chosen with cmov.
      "movq %%r12, 0(%[r])\n\t"
      "movq %%r13, 8(%[r])\n\t"
      "movq %%r8, 16(%[r])\n\t"
      "movq %%r9, 24(%[r])\n\t"
      "movl $0xffffffff, %%edx\n\t"
      "subq $-1, %%r12\n\t"
      "sbbq %%rdx, %%r13\n\t"
      "sbbq $0, %%r8\n\t"
      "movabsq $0xffffffff00000001, %%rdx\n\t"
      "sbbq %%rdx, %%r9\n\t"
      "sbbq $0, %%r10\n\t"
      "cmovcq 0(%[r]), %%r12\n\t"
      "cmovcq 8(%[r]), %%r13\n\t"
      "cmovcq 16(%[r]), %%r8\n\t"
      "cmovcq 24(%[r]), %%r9\n\t"
      "movq %%r12, 0(%[r])\n\t"
      "movq %%r13, 8(%[r])\n\t"
      "movq %%r8, 16(%[r])\n\t"
      "movq %%r9, 24(%[r])\n\t"
      :
      : [r] "r"(r->v), [a] "r"(a->v), [b] "r"(b->v)
      : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "cc", "memory");
}

static inline __attribute__((always_inline)) void fe_sqr(mc_p256_fe *r, const mc_p256_fe *a) {
  fe_mul(r, a, a);
}

// The last peer point of this thread, and once the same point came twice
// in a row, a table of its multiples (53,248 bytes on the heap, freed when
// the thread exits), used like the base point's: 52 additions instead of
// 255 doublings and 52 additions. A server encrypting one mail after another
// to the same recipient is the case this serves. Time stays independent of
// the scalar; it shows whether the public point repeated.
static _Thread_local struct {
  uint8_t last[MC_P256_XY_LEN];
  int state; // 0: nothing yet; 1: `last` seen once; 2: the table is last's
} peer_cache;

typedef mc_p256_affine peer_table[MC_P256_WINDOWS][MC_P256_WINDOW_ENTRIES];
static const mc_thread_cache_kind peer_table_kind = {sizeof(peer_table), NULL, NULL};

// peer_table_get returns the table for `point_xy` when the cache has it or
// can build it now, else NULL.
static const mc_p256_affine (*peer_table_get(const uint8_t point_xy[MC_P256_XY_LEN]))[16] {
  if (peer_cache.state == 0 || memcmp(peer_cache.last, point_xy, MC_P256_XY_LEN) != 0) {
    memcpy(peer_cache.last, point_xy, MC_P256_XY_LEN);
    peer_cache.state = 1;
    return NULL;
  }
  if (peer_cache.state == 1) {
    // Without the memory the key stays "seen once": its next use tries
    // again rather than giving up the table for as long as it repeats.
    mc_p256_affine(*table)[16] = mc_thread_cache_get(MC_THREAD_CACHE_P256_PEER, &peer_table_kind);
    p256_point *scratch = malloc(MC_P256_WINDOWS * MC_P256_WINDOW_ENTRIES * sizeof *scratch);
    if (table != NULL && scratch != NULL) {
      p256_table_build(table, scratch, point_xy);
      peer_cache.state = 2;
    }
    free(scratch);
  }
  // No pointer to the table is kept: while the thread exits, the cache's
  // destructor may free it before a later destructor comes back here.
  return peer_cache.state == 2 ? mc_thread_cache_peek(MC_THREAD_CACHE_P256_PEER) : NULL;
}

void mc_p256_mul_adx(uint8_t out_x[32], const uint8_t scalar[32],
                     const uint8_t point_xy[MC_P256_XY_LEN]) {
  const mc_p256_affine(*table)[16] = peer_table_get(point_xy);
  if (table != NULL)
    p256_comb_generic(out_x, NULL, table, scalar);
  else
    p256_mul_generic(out_x, scalar, point_xy);
}

void mc_p256_mul_window_adx(uint8_t out_x[32], const uint8_t scalar[32],
                            const uint8_t point_xy[MC_P256_XY_LEN]) {
  p256_mul_generic(out_x, scalar, point_xy);
}

void mc_p256_base_adx(uint8_t out_xy[MC_P256_XY_LEN], const uint8_t scalar[32]) {
  p256_base_generic(out_xy, scalar);
}
