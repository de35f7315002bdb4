// bench_encodify.c: the throughput benchmark of libencodify. For every codec
// operation (Base64 std/url, wrapped and MIME, quoted-printable, RFC 2047 Q,
// Base32, hex, IMAP modified UTF-7) and every payload size (64 B, 4 KiB,
// 1 MiB, 10 MiB) it measures each of our kernels (forced in turn through
// enc_impl_force), memcpy of the same input bytes (the physical limit) and
// every peer built in (GMime, GLib, libb64, BoringSSL, simdutf), in one run and
// with their repetitions interleaved, so that the ratios survive a noisy
// machine. Each implementation's output is first checked against the
// reference codecs of bench_inputs.c: a wrong answer is reported on stderr,
// never timed, and makes the exit status 1. Results go to stdout as one JSON
// object per line (corvid_bench.h): `bench` is "<operation>/<payload size>",
// `items` the codec calls in one timed call (small inputs are looped to about
// 1 MiB) and `bytes` the input bytes they read, so the rates are input
// throughput and memcpy copies exactly those bytes. tools/bench-report turns
// the lines into a table of ratios.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"
#include "corvid_bench.h"

static void usage(FILE *f) {
  fputs(
      "usage: bench_encodify [--quick] [--warm] [--filter TEXT[,TEXT...]] [--impl TEXT[,TEXT...]]\n"
      "                      [--list]\n"
      "  --quick    a short smoke run: sizes up to 1 MiB, 3 repetitions\n"
      "  --warm     call each implementation once, untimed, right before each of its\n"
      "             timed calls: steady-state rates, without the slow start of vector\n"
      "             code that follows a millisecond of scalar code (a peer's turn)\n"
      "  --filter   run only the benchmarks whose name (e.g. b64_decode_mime/1MiB)\n"
      "             contains one of the comma-separated TEXTs\n"
      "  --impl     measure only the implementations whose name contains one of\n"
      "             the TEXTs (memcpy, the baseline, is always measured)\n"
      "  --list     print the benchmarks and implementations, measure nothing\n"
      "Output: one JSON object per line on stdout; tools/bench-report makes a table.\n",
      f);
}

// What a benchmark's payload is made of.
enum payload { PAYLOAD_RANDOM, PAYLOAD_TEXT, PAYLOAD_MAILBOXES };

// The encoded form of a payload that a benchmark reads or writes.
enum form {
  FORM_B64,
  FORM_B64_WRAP76,
  FORM_B64URL,
  FORM_QP_TEXT,
  FORM_QP_BINARY,
  FORM_Q,
  FORM_B32,
  FORM_HEX,
  FORM_UTF7,
};

struct bench_spec {
  const char *name;
  int op; // enum bench_op
  enum payload payload;
  enum form form;
  int decode; // 1: reads `form` and writes the payload; 0: the other way
};

// Base64url is written without padding (RFC 4648 5, as in URLs and JWTs);
// hex in lowercase. The MIME-wrapped input ends with a line break, as a body
// part does.
static const struct bench_spec specs[] = {
    {"b64_decode_mime", BENCH_B64_DECODE_MIME, PAYLOAD_RANDOM, FORM_B64_WRAP76, 1},
    {"b64_decode_mime_4k", BENCH_B64_DECODE_MIME_4K, PAYLOAD_RANDOM, FORM_B64_WRAP76, 1},
    {"b64_decode", BENCH_B64_DECODE, PAYLOAD_RANDOM, FORM_B64, 1},
    {"b64_encode_wrap76", BENCH_B64_ENCODE_WRAP76, PAYLOAD_RANDOM, FORM_B64_WRAP76, 0},
    {"b64_encode", BENCH_B64_ENCODE, PAYLOAD_RANDOM, FORM_B64, 0},
    {"b64url_decode", BENCH_B64URL_DECODE, PAYLOAD_RANDOM, FORM_B64URL, 1},
    {"b64url_encode", BENCH_B64URL_ENCODE, PAYLOAD_RANDOM, FORM_B64URL, 0},
    {"qp_decode_text", BENCH_QP_DECODE, PAYLOAD_TEXT, FORM_QP_TEXT, 1},
    {"qp_decode_binary", BENCH_QP_DECODE, PAYLOAD_RANDOM, FORM_QP_BINARY, 1},
    {"qp_encode_text", BENCH_QP_ENCODE, PAYLOAD_TEXT, FORM_QP_TEXT, 0},
    {"qp_encode_binary", BENCH_QP_ENCODE_BINARY, PAYLOAD_RANDOM, FORM_QP_BINARY, 0},
    {"q_decode", BENCH_Q_DECODE, PAYLOAD_TEXT, FORM_Q, 1},
    {"q_encode", BENCH_Q_ENCODE, PAYLOAD_TEXT, FORM_Q, 0},
    {"b32_decode", BENCH_B32_DECODE, PAYLOAD_RANDOM, FORM_B32, 1},
    {"b32_encode", BENCH_B32_ENCODE, PAYLOAD_RANDOM, FORM_B32, 0},
    {"hex_decode", BENCH_HEX_DECODE, PAYLOAD_RANDOM, FORM_HEX, 1},
    {"hex_encode", BENCH_HEX_ENCODE, PAYLOAD_RANDOM, FORM_HEX, 0},
    {"utf7_decode", BENCH_UTF7_DECODE, PAYLOAD_MAILBOXES, FORM_UTF7, 1},
    {"utf7_encode", BENCH_UTF7_ENCODE, PAYLOAD_MAILBOXES, FORM_UTF7, 0},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

// Payload sizes: the bytes before encoding, for encoders and decoders alike.
static const struct {
  const char *name;
  size_t len;
} sizes[] = {
    {"64B", 64},
    {"4KiB", 4096},
    {"1MiB", 1u << 20},
    {"10MiB", 10u << 20},
};

// The peers built into this binary (meson.build defines BENCH_HAVE_*).
static const struct bench_codec *const peers[] = {
#ifdef BENCH_HAVE_GMIME
    &bench_peer_gmime,
#endif
#ifdef BENCH_HAVE_GLIB
    &bench_peer_glib,
#endif
#ifdef BENCH_HAVE_LIBB64
    &bench_peer_libb64,
#endif
#ifdef BENCH_HAVE_BORINGSSL
    &bench_peer_boringssl,
#endif
#ifdef BENCH_HAVE_SIMDUTF
    &bench_peer_simdutf,
    &bench_peer_simdutf_haswell,
#endif
    NULL, // keeps the array non-empty when no peer is built
};

struct options {
  int quick, list, warm;
  const char *filter, *impl;
};

// matches reports whether `name` contains one of the comma-separated parts of
// `patterns`; a NULL `patterns` matches everything.
static int matches(const char *name, const char *patterns) {
  if (patterns == NULL)
    return 1;
  for (const char *p = patterns;;) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    for (const char *s = name; n > 0 && strlen(s) >= n; s++)
      if (memcmp(s, p, n) == 0)
        return 1;
    if (end == NULL)
      return 0;
    p = end + 1;
  }
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "bench_encodify: out of memory (%zu bytes)\n", n);
    exit(2);
  }
  return p;
}

// One benchmark at one size: its input, the expected output, and the
// payload (the input of an encoder, the output of a decoder).
struct bench_data {
  uint8_t *payload, *encoded;
  size_t payload_len, encoded_len;
  const uint8_t *in, *expected;
  size_t in_len, expected_len;
};

static size_t encode_form(enum form form, uint8_t *out, const uint8_t *in, size_t in_len) {
  switch (form) {
  case FORM_B64:
    return bench_ref_b64_encode(out, in, in_len, 0, 1, 0);
  case FORM_B64_WRAP76:
    return bench_ref_b64_encode(out, in, in_len, 0, 1, 76);
  case FORM_B64URL:
    return bench_ref_b64_encode(out, in, in_len, 1, 0, 0);
  case FORM_QP_TEXT:
    return bench_ref_qp_encode(out, in, in_len, 0);
  case FORM_QP_BINARY:
    return bench_ref_qp_encode(out, in, in_len, 1);
  case FORM_Q:
    return bench_ref_q_encode(out, in, in_len);
  case FORM_B32:
    return bench_ref_b32_encode(out, in, in_len);
  case FORM_HEX:
    return bench_ref_hex_encode(out, in, in_len, 0);
  case FORM_UTF7:
    return bench_ref_utf7_encode(out, in, in_len);
  }
  return 0;
}

static void make_data(struct bench_data *d, const struct bench_spec *spec, size_t len) {
  // One seed per kind of payload: every size is a prefix of the same stream.
  d->payload_len = len;
  d->payload = xmalloc(len);
  switch (spec->payload) {
  case PAYLOAD_RANDOM:
    bench_gen_random(d->payload, len, 0x436f72766964u);
    break;
  case PAYLOAD_TEXT:
    bench_gen_text(d->payload, len, 0x74657874u);
    break;
  case PAYLOAD_MAILBOXES:
    bench_gen_mailboxes(d->payload, len, 0x6d626f78u);
    break;
  }
  d->encoded = xmalloc(bench_ref_max_len(len));
  d->encoded_len = encode_form(spec->form, d->encoded, d->payload, len);
  if (spec->decode) {
    d->in = d->encoded, d->in_len = d->encoded_len;
    d->expected = d->payload, d->expected_len = d->payload_len;
  } else {
    d->in = d->payload, d->in_len = d->payload_len;
    d->expected = d->encoded, d->expected_len = d->encoded_len;
  }
}

static void free_data(struct bench_data *d) {
  free(d->payload);
  free(d->encoded);
}

// drop_cr copies `in` to `out` without the CR of each CRLF pair.
static size_t drop_cr(uint8_t *out, const uint8_t *in, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < len; i++)
    if (!(in[i] == '\r' && i + 1 < len && in[i + 1] == '\n'))
      out[o++] = in[i];
  return o;
}

// drop_final_break shortens `len` by the line break that ends `p`, if any.
static size_t drop_final_break(const uint8_t *p, size_t len) {
  if (len > 0 && p[len - 1] == '\n')
    len--;
  if (len > 0 && p[len - 1] == '\r')
    len--;
  return len;
}

// check_output compares what an implementation wrote with the expected
// output. It returns 1 when they agree; otherwise it describes the first
// difference on stderr and returns 0. A QP encoder may choose its own
// (valid) encoding, so its output is decoded and compared with the payload; a
// wrapping Base64 encoder may or may not end the last line.
static int check_output(const char *bench, const char *impl, const struct bench_spec *spec,
                        unsigned flags, const struct bench_data *d, const uint8_t *out,
                        size_t out_len) {
  const uint8_t *want = d->expected;
  size_t want_len = d->expected_len;
  uint8_t *got_buf = NULL, *want_buf = NULL;
  const uint8_t *got = out;
  size_t got_len = out_len;
  int ok;
  if (spec->op == BENCH_QP_ENCODE || spec->op == BENCH_QP_ENCODE_BINARY) {
    got_buf = xmalloc(out_len + 1);
    got_len = bench_ref_qp_decode(got_buf, out, out_len, flags & BENCH_LONG_LINES ? 0 : 76);
    got = got_buf;
    if (got_len == (size_t)-1) {
      fprintf(stderr,
              "bench_encodify: %s %s: output is not valid quoted-printable with lines of at "
              "most 76 characters; not timed\n",
              bench, impl);
      free(got_buf);
      return 0;
    }
    want = d->payload, want_len = d->payload_len;
  }
  if (flags & BENCH_LF_LINES) {
    want_buf = xmalloc(want_len + 1);
    want_len = drop_cr(want_buf, want, want_len);
    want = want_buf;
  }
  if (spec->op == BENCH_B64_ENCODE_WRAP76) {
    want_len = drop_final_break(want, want_len);
    got_len = drop_final_break(got, got_len);
  }
  size_t n = want_len < got_len ? want_len : got_len;
  size_t diff = 0;
  while (diff < n && want[diff] == got[diff])
    diff++;
  ok = diff == n && want_len == got_len;
  if (!ok)
    fprintf(stderr,
            "bench_encodify: %s %s: output differs from the expected one at byte %zu "
            "(length %zu, expected %zu); not timed\n",
            bench, impl, diff, got_len, want_len);
  free(got_buf);
  free(want_buf);
  return ok;
}

// One implementation taking part in one benchmark row.
struct candidate {
  const char *impl;
  bench_fn fn;
  long ours; // index for bench_ours_select(), or -1
  struct run_ctx {
    bench_fn fn;
    uint8_t *out;
    size_t out_cap;
    const uint8_t *in;
    size_t in_len;
    size_t iters;
    int failed;
  } ctx;
  uint64_t *samples;
};

static void run_iters(void *p) {
  struct run_ctx *c = p;
  for (size_t i = 0; i < c->iters; i++) {
    size_t n = 0;
    if (c->fn(c->out, c->out_cap, &n, c->in, c->in_len) != 0)
      c->failed = 1;
    corvid_bench_sink(c->out, n);
  }
}

static int memcpy_fn(uint8_t *out, size_t out_cap, size_t *out_len, const uint8_t *in,
                     size_t in_len) {
  if (out_cap < in_len)
    return 1;
  memcpy(out, in, in_len);
  *out_len = in_len;
  return 0;
}

struct run_params {
  int warm;            // an untimed call of the same candidate before each timed one
  size_t target_bytes; // input bytes per timed call at least (small inputs loop)
  uint64_t budget_ns;  // aimed time of one benchmark row, all implementations
  unsigned min_reps, max_reps;
};

// verify runs `fn` once on the benchmark's input and checks its answer
// (unless `spec` is NULL: memcpy). It returns 1 when the implementation may
// be timed, and 0 after describing its failure on stderr.
static int verify(const char *bench, const char *impl, const struct bench_spec *spec, bench_fn fn,
                  unsigned flags, const struct bench_data *d, uint8_t *out, size_t out_cap) {
  size_t out_len = 0;
  size_t poison = d->expected_len + 64 < out_cap ? d->expected_len + 64 : out_cap;
  memset(out, 0xa5, poison); // so that a stale earlier answer cannot pass
  int rc = fn(out, out_cap, &out_len, d->in, d->in_len);
  if (rc != 0) {
    fprintf(stderr, "bench_encodify: %s %s: failed (status %d); not timed\n", bench, impl, rc);
    return 0;
  }
  return spec == NULL || check_output(bench, impl, spec, flags, d, out, out_len);
}

// measure_row times every candidate of one benchmark row and prints one JSON
// line for each. The repetitions are interleaved, one call of each candidate
// per round in a rotating order, so that a slow phase of the machine (another process, a
// frequency change) hits all of them alike and the ratios stay fair. Every
// candidate makes the same number of codec calls per timed call, so that all
// of them report the same `bytes` and line up in one bench-report row. It
// returns 0, or 1 when a candidate failed while timed.
static int measure_row(const char *bench, struct candidate *cand, size_t num_cand,
                       const struct bench_data *d, const struct run_params *rp) {
  size_t iters = 1;
  if (d->in_len > 0 && d->in_len < rp->target_bytes)
    iters = (rp->target_bytes + d->in_len - 1) / d->in_len;
  for (size_t c = 0; c < num_cand; c++) {
    cand[c].ctx.iters = iters;
    if (cand[c].ours >= 0)
      (void)bench_ours_select((size_t)cand[c].ours); // verified to work before
    run_iters(&cand[c].ctx);                         // warm up
  }
  uint64_t start = corvid_bench_now_ns();
  unsigned reps = 0;
  while (reps < rp->min_reps ||
         (reps < rp->max_reps && corvid_bench_now_ns() - start < rp->budget_ns)) {
    // Each round starts one candidate further on. Out of cache, a call
    // runs faster or slower depending on what the previous call left in the
    // caches and the memory controller's queues; rotating gives every
    // candidate every position equally often.
    for (size_t k = 0; k < num_cand; k++) {
      size_t c = (reps + k) % num_cand;
      if (cand[c].ours >= 0)
        (void)bench_ours_select((size_t)cand[c].ours);
      // On this kind of CPU, 256- and 512-bit instructions that follow about
      // a millisecond without any run slowly for the next few hundred
      // microseconds while the vector units power up; a peer's scalar turn
      // is that long. --warm leaves that start out of the timed call.
      if (rp->warm)
        run_iters(&cand[c].ctx);
      uint64_t t0 = corvid_bench_now_ns();
      run_iters(&cand[c].ctx);
      cand[c].samples[reps] = corvid_bench_now_ns() - t0;
    }
    reps++;
  }
  bench_ours_select_default();
  int status = 0;
  for (size_t c = 0; c < num_cand; c++) {
    if (cand[c].ctx.failed) {
      fprintf(stderr, "bench_encodify: %s %s: failed while timed\n", bench, cand[c].impl);
      status = 1;
      continue;
    }
    struct corvid_bench_result result;
    corvid_bench_reduce(&result, cand[c].samples, reps);
    corvid_bench_emit(stdout, bench, cand[c].impl, (uint64_t)d->in_len * iters, iters, &result);
  }
  fflush(stdout);
  return status;
}

// add_candidate appends one implementation to a row, keeping the sample
// buffer that the slot already owns.
static void add_candidate(struct candidate *cand, size_t *n, const char *impl, bench_fn fn,
                          long ours) {
  cand[*n].impl = impl;
  cand[*n].fn = fn;
  cand[*n].ours = ours;
  (*n)++;
}

static bench_fn find_op(const struct bench_op_fn *ops, int op, unsigned *flags) {
  for (; ops->fn != NULL; ops++) {
    if (ops->op == op) {
      *flags = ops->flags;
      return ops->fn;
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  struct options opt = {0, 0, 0, NULL, NULL};
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) {
      opt.quick = 1;
    } else if (strcmp(argv[i], "--warm") == 0) {
      opt.warm = 1;
    } else if (strcmp(argv[i], "--list") == 0) {
      opt.list = 1;
    } else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc) {
      opt.filter = argv[++i];
    } else if (strcmp(argv[i], "--impl") == 0 && i + 1 < argc) {
      opt.impl = argv[++i];
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      usage(stderr);
      return 2;
    }
  }
  const struct run_params rp = opt.quick
                                   ? (struct run_params){opt.warm, 64u << 10, 20000000u, 3, 3}
                                   : (struct run_params){opt.warm, 1u << 20, 1000000000u, 7, 51};
  size_t num_sizes = opt.quick ? 3 : COUNT(sizes);

  // The peers that start; ours are forced one at a time.
  const struct bench_codec *live[COUNT(peers)];
  size_t num_live = 0;
  for (size_t p = 0; peers[p] != NULL; p++) {
    if (!matches(peers[p]->name, opt.impl))
      continue;
    if (peers[p]->init != NULL && peers[p]->init() != 0) {
      fprintf(stderr, "bench_encodify: peer %s cannot run on this machine; left out\n",
              peers[p]->name);
      continue;
    }
    live[num_live++] = peers[p];
  }
  size_t num_ours = bench_ours_count();

  if (opt.list) {
    for (size_t s = 0; s < COUNT(specs); s++)
      for (size_t z = 0; z < COUNT(sizes); z++)
        printf("bench %s/%s\n", specs[s].name, sizes[z].name);
    printf("impl memcpy\n");
    for (size_t i = 0; i < num_ours; i++)
      printf("impl %s\n", bench_ours_name(i));
    for (size_t p = 0; p < num_live; p++)
      printf("impl %s\n", live[p]->name);
    return 0;
  }

  size_t max_cand = 1 + num_ours + num_live;
  struct candidate *cand = xmalloc(max_cand * sizeof *cand);
  for (size_t c = 0; c < max_cand; c++)
    cand[c].samples = xmalloc(rp.max_reps * sizeof cand[c].samples[0]);
  int status = 0;
  for (size_t s = 0; s < COUNT(specs); s++) {
    const struct bench_spec *spec = &specs[s];
    for (size_t z = 0; z < num_sizes; z++) {
      char bench[64];
      snprintf(bench, sizeof bench, "%s/%s", spec->name, sizes[z].name);
      if (!matches(bench, opt.filter))
        continue;
      struct bench_data d;
      make_data(&d, spec, sizes[z].len);
      size_t out_cap = bench_ref_max_len(d.in_len) + 64;
      uint8_t *out = xmalloc(out_cap);
      size_t n = 0;
      unsigned flags = 0;
      bench_fn fn;

      add_candidate(cand, &n, "memcpy", memcpy_fn, -1);
      for (size_t i = 0; i < num_ours; i++) {
        const char *impl = bench_ours_name(i);
        if ((fn = find_op(bench_ours_ops, spec->op, &flags)) == NULL || !matches(impl, opt.impl))
          continue;
        if (bench_ours_select(i) != 0) {
          fprintf(stderr, "bench_encodify: %s cannot be forced; left out\n", impl);
          status = 1;
        } else if (!verify(bench, impl, spec, fn, flags, &d, out, out_cap)) {
          status = 1;
        } else {
          add_candidate(cand, &n, impl, fn, (long)i);
        }
      }
      bench_ours_select_default();
      for (size_t p = 0; p < num_live; p++) {
        if ((fn = find_op(live[p]->ops, spec->op, &flags)) == NULL)
          continue;
        if (verify(bench, live[p]->name, spec, fn, flags, &d, out, out_cap))
          add_candidate(cand, &n, live[p]->name, fn, -1);
        else
          status = 1;
      }
      for (size_t c = 0; c < n; c++)
        cand[c].ctx = (struct run_ctx){cand[c].fn, out, out_cap, d.in, d.in_len, 1, 0};
      status |= measure_row(bench, cand, n, &d, &rp);
      free(out);
      free_data(&d);
    }
  }
  for (size_t c = 0; c < max_cand; c++)
    free(cand[c].samples);
  free(cand);
  return status;
}
