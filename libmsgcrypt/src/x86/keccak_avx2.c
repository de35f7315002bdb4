// keccak_avx2.c: Keccak-f[1600] on four independent states at once with AVX2
// (the "avx2" entry of impl.c): each 256-bit vector holds the same lane of
// the four states, so every step of FIPS 202 §3.2 becomes one vector
// operation per lane, exactly as the scalar mc_keccak_f1600 writes it out.
// AVX2 has no 64-bit rotation; rotations are two shifts and an OR, except by
// 8 and 56 bits, which are byte shuffles. No data-dependent branch or index.
#include <immintrin.h>

#include "impl_internal.h"

static const uint64_t round_constants[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

#define ROL(x, n) _mm256_or_si256(_mm256_slli_epi64((x), (n)), _mm256_srli_epi64((x), 64 - (n)))
// χ's ~b & c is one ANDNOT.
#define CHI(b0, b1, b2) _mm256_xor_si256((b0), _mm256_andnot_si256((b1), (b2)))
#define XOR _mm256_xor_si256

void mc_keccak_f1600_x4_avx2(mc_keccak_x4 *st) {
  // Byte shuffles for rotations by 8 and 56 within each 64-bit lane.
  const __m256i rol8 = _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14, 7, 0,
                                        1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14);
  const __m256i rol56 = _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8, 1, 2,
                                         3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8);
  __m256i *v = (__m256i *)(void *)st->s;
  __m256i a00 = _mm256_loadu_si256(v + 0), a01 = _mm256_loadu_si256(v + 1);
  __m256i a02 = _mm256_loadu_si256(v + 2), a03 = _mm256_loadu_si256(v + 3);
  __m256i a04 = _mm256_loadu_si256(v + 4), a05 = _mm256_loadu_si256(v + 5);
  __m256i a06 = _mm256_loadu_si256(v + 6), a07 = _mm256_loadu_si256(v + 7);
  __m256i a08 = _mm256_loadu_si256(v + 8), a09 = _mm256_loadu_si256(v + 9);
  __m256i a10 = _mm256_loadu_si256(v + 10), a11 = _mm256_loadu_si256(v + 11);
  __m256i a12 = _mm256_loadu_si256(v + 12), a13 = _mm256_loadu_si256(v + 13);
  __m256i a14 = _mm256_loadu_si256(v + 14), a15 = _mm256_loadu_si256(v + 15);
  __m256i a16 = _mm256_loadu_si256(v + 16), a17 = _mm256_loadu_si256(v + 17);
  __m256i a18 = _mm256_loadu_si256(v + 18), a19 = _mm256_loadu_si256(v + 19);
  __m256i a20 = _mm256_loadu_si256(v + 20), a21 = _mm256_loadu_si256(v + 21);
  __m256i a22 = _mm256_loadu_si256(v + 22), a23 = _mm256_loadu_si256(v + 23);
  __m256i a24 = _mm256_loadu_si256(v + 24);
  for (int round = 0; round < 24; round++) {
    // θ
    __m256i c0 = XOR(XOR(XOR(a00, a05), XOR(a10, a15)), a20);
    __m256i c1 = XOR(XOR(XOR(a01, a06), XOR(a11, a16)), a21);
    __m256i c2 = XOR(XOR(XOR(a02, a07), XOR(a12, a17)), a22);
    __m256i c3 = XOR(XOR(XOR(a03, a08), XOR(a13, a18)), a23);
    __m256i c4 = XOR(XOR(XOR(a04, a09), XOR(a14, a19)), a24);
    __m256i d0 = XOR(c4, ROL(c1, 1)), d1 = XOR(c0, ROL(c2, 1)), d2 = XOR(c1, ROL(c3, 1));
    __m256i d3 = XOR(c2, ROL(c4, 1)), d4 = XOR(c3, ROL(c0, 1));
    // ρ and π, lane for lane as in mc_keccak_f1600.
    __m256i b00 = XOR(a00, d0), b01 = ROL(XOR(a06, d1), 44), b02 = ROL(XOR(a12, d2), 43);
    __m256i b03 = ROL(XOR(a18, d3), 21), b04 = ROL(XOR(a24, d4), 14);
    __m256i b05 = ROL(XOR(a03, d3), 28), b06 = ROL(XOR(a09, d4), 20), b07 = ROL(XOR(a10, d0), 3);
    __m256i b08 = ROL(XOR(a16, d1), 45), b09 = ROL(XOR(a22, d2), 61);
    __m256i b10 = ROL(XOR(a01, d1), 1), b11 = ROL(XOR(a07, d2), 6), b12 = ROL(XOR(a13, d3), 25);
    __m256i b13 = _mm256_shuffle_epi8(XOR(a19, d4), rol8), b14 = ROL(XOR(a20, d0), 18);
    __m256i b15 = ROL(XOR(a04, d4), 27), b16 = ROL(XOR(a05, d0), 36), b17 = ROL(XOR(a11, d1), 10);
    __m256i b18 = ROL(XOR(a17, d2), 15), b19 = _mm256_shuffle_epi8(XOR(a23, d3), rol56);
    __m256i b20 = ROL(XOR(a02, d2), 62), b21 = ROL(XOR(a08, d3), 55), b22 = ROL(XOR(a14, d4), 39);
    __m256i b23 = ROL(XOR(a15, d0), 41), b24 = ROL(XOR(a21, d1), 2);
    // χ and ι
    a00 = XOR(CHI(b00, b01, b02), _mm256_set1_epi64x((long long)round_constants[round]));
    a01 = CHI(b01, b02, b03);
    a02 = CHI(b02, b03, b04);
    a03 = CHI(b03, b04, b00);
    a04 = CHI(b04, b00, b01);
    a05 = CHI(b05, b06, b07);
    a06 = CHI(b06, b07, b08);
    a07 = CHI(b07, b08, b09);
    a08 = CHI(b08, b09, b05);
    a09 = CHI(b09, b05, b06);
    a10 = CHI(b10, b11, b12);
    a11 = CHI(b11, b12, b13);
    a12 = CHI(b12, b13, b14);
    a13 = CHI(b13, b14, b10);
    a14 = CHI(b14, b10, b11);
    a15 = CHI(b15, b16, b17);
    a16 = CHI(b16, b17, b18);
    a17 = CHI(b17, b18, b19);
    a18 = CHI(b18, b19, b15);
    a19 = CHI(b19, b15, b16);
    a20 = CHI(b20, b21, b22);
    a21 = CHI(b21, b22, b23);
    a22 = CHI(b22, b23, b24);
    a23 = CHI(b23, b24, b20);
    a24 = CHI(b24, b20, b21);
  }
  _mm256_storeu_si256(v + 0, a00), _mm256_storeu_si256(v + 1, a01);
  _mm256_storeu_si256(v + 2, a02), _mm256_storeu_si256(v + 3, a03);
  _mm256_storeu_si256(v + 4, a04), _mm256_storeu_si256(v + 5, a05);
  _mm256_storeu_si256(v + 6, a06), _mm256_storeu_si256(v + 7, a07);
  _mm256_storeu_si256(v + 8, a08), _mm256_storeu_si256(v + 9, a09);
  _mm256_storeu_si256(v + 10, a10), _mm256_storeu_si256(v + 11, a11);
  _mm256_storeu_si256(v + 12, a12), _mm256_storeu_si256(v + 13, a13);
  _mm256_storeu_si256(v + 14, a14), _mm256_storeu_si256(v + 15, a15);
  _mm256_storeu_si256(v + 16, a16), _mm256_storeu_si256(v + 17, a17);
  _mm256_storeu_si256(v + 18, a18), _mm256_storeu_si256(v + 19, a19);
  _mm256_storeu_si256(v + 20, a20), _mm256_storeu_si256(v + 21, a21);
  _mm256_storeu_si256(v + 22, a22), _mm256_storeu_si256(v + 23, a23);
  _mm256_storeu_si256(v + 24, a24);
}
