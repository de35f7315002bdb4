// bench_qp_crossover.c: measures QPD_AVX512_MIN_LEN (src/x86/avx512.c), the
// input length under which the AVX-512 quoted-printable decoder hands off to
// the AVX2 one. For each input length of a sweep it times the decoding engine
// (enc_qpd_init/update/final, what a one-shot enc_qp_decode() runs after its
// argument checks) over many slices of realistic quoted-printable text with
// three implementations, interleaved round by round: "avx2", "avx512" as
// shipped (with the hand-off) and "avx512-nohandoff" (the AVX-512 kernel at
// every length). It prints one JSON line per length and implementation, then
// a line {"crossover": N}: the shortest swept length from which the AVX-512
// kernel beats AVX2 at every longer swept length. Needs a CPU with AVX-512
// VBMI2; never run as a test.
//
// usage: bench_qp_crossover [MAX_LEN [STEP]]   (defaults 512 and 16)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "corvid_bench.h"
#include "encodify_internal.h"

enum { NUM_SLICES = 256, TEXT_LEN = 256 << 10, ROUNDS = 41 };

struct sweep_ctx {
  const struct enc_impl *im;
  const uint8_t *text;
  const size_t *offsets;
  size_t len, iters;
  uint8_t *out;
};

// decode_slices decodes every slice of the sweep `iters` times with `im`.
static void decode_slices(const struct sweep_ctx *c) {
  for (size_t it = 0; it < c->iters; it++) {
    for (size_t s = 0; s < NUM_SLICES; s++) {
      struct enc_stream_state st;
      size_t w = 0, w2 = 0;
      memset(&st, 0, sizeof st);
      enc_qpd_init(&st);
      if (enc_qpd_update(&st, c->im, c->out, c->len + 64, &w, c->text + c->offsets[s], c->len) !=
              0 ||
          enc_qpd_final(&st, c->out + w, c->len + 64 - w, &w2) != 0) {
        fprintf(stderr, "bench_qp_crossover: decoding failed\n");
        exit(1);
      }
      corvid_bench_sink(c->out, w + w2);
    }
  }
}

int main(int argc, char **argv) {
  size_t max_len = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
  size_t step = argc > 2 ? strtoul(argv[2], NULL, 10) : 16;
  if (step == 0 || max_len < step || max_len > 4096) {
    fprintf(stderr, "usage: bench_qp_crossover [MAX_LEN (<= 4096) [STEP]]\n");
    return 2;
  }
  if ((enc_impl_avx512.required & ~enc_cpu_features()) != 0) {
    fprintf(stderr, "bench_qp_crossover: this CPU does not run the avx512 implementation\n");
    return 1;
  }
  struct enc_impl nohandoff = enc_impl_avx512;
  nohandoff.qp_decode = enc_qp_decode_avx512_blocks;
  const struct {
    const char *name;
    const struct enc_impl *im;
  } impls[] = {
      {"avx2", &enc_impl_avx2}, {"avx512", &enc_impl_avx512}, {"avx512-nohandoff", &nohandoff}};
  enum { NUM_IMPLS = sizeof impls / sizeof impls[0] };

  // Quoted-printable of mail text, as bench_encodify's qp_decode_text; the
  // slices start at pseudo-random offsets so that no branch history learns
  // one input.
  uint8_t *payload = malloc(TEXT_LEN), *text = malloc(bench_ref_max_len(TEXT_LEN));
  uint8_t *out = malloc(4096 + 64);
  size_t *offsets = malloc(NUM_SLICES * sizeof *offsets);
  if (payload == NULL || text == NULL || out == NULL || offsets == NULL)
    return 2;
  bench_gen_text(payload, TEXT_LEN, 0x74657874u);
  size_t text_len = bench_ref_qp_encode(text, payload, TEXT_LEN, 0);
  uint64_t seed = 0x51505344u;
  for (size_t s = 0; s < NUM_SLICES; s++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    offsets[s] = (size_t)(seed >> 33) % (text_len - 4096);
  }

  size_t crossover = 0;
  for (size_t len = step; len <= max_len; len += step) {
    uint64_t samples[NUM_IMPLS][ROUNDS];
    // About 256 KiB of input per timed call.
    size_t iters = (256u << 10) / (len * NUM_SLICES) + 1;
    for (unsigned r = 0; r < ROUNDS; r++) {
      for (size_t k = 0; k < NUM_IMPLS; k++) {
        struct sweep_ctx c = {impls[k].im, text, offsets, len, iters, out};
        decode_slices(&c); // untimed: caches, predictors and vector units warm
        uint64_t t0 = corvid_bench_now_ns();
        decode_slices(&c);
        samples[k][r] = corvid_bench_now_ns() - t0;
      }
    }
    char bench[48];
    snprintf(bench, sizeof bench, "qp_decode_sweep/%zuB", len);
    uint64_t ns[NUM_IMPLS];
    for (size_t k = 0; k < NUM_IMPLS; k++) {
      struct corvid_bench_result res;
      corvid_bench_reduce(&res, samples[k], ROUNDS);
      corvid_bench_emit(stdout, bench, impls[k].name, (uint64_t)len * NUM_SLICES * iters,
                        (uint64_t)NUM_SLICES * iters, &res);
      ns[k] = res.median_ns;
    }
    // The medians decide: the fastest call of a short loop is the one most
    // likely to have been flattered by a quiet moment.
    if (ns[2] >= ns[0])
      crossover = 0;
    else if (crossover == 0)
      crossover = len;
  }
  printf("{\"crossover\": %zu}\n", crossover);
  free(payload);
  free(text);
  free(out);
  free(offsets);
  return 0;
}
