// encodify.c: the encodify command: encodes or decodes standard input with
// one of libencodify's codecs and writes the result to standard output. The
// whole input is read (up to MAX_INPUT bytes) and the whole output is built in
// memory first, so that invalid input writes nothing to standard output: the
// command exits with status 1 and a message naming the byte offset instead.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corvid_parse.h"
#include "encodify.h"

// MAX_INPUT is the most input the command accepts (256 MiB); larger input is
// refused with status 1 before anything is written.
#define MAX_INPUT ((size_t)256 << 20)

static const struct {
  const char *name;
  enc_codec codec;
  uint32_t flags;
} codecs[] = {
    {"base64", ENC_CODEC_BASE64, 0},
    {"base64url", ENC_CODEC_BASE64, ENC_FLAG_URL},
    {"base32", ENC_CODEC_BASE32, 0},
    {"base32hex", ENC_CODEC_BASE32, ENC_FLAG_BASE32HEX},
    {"qp", ENC_CODEC_QP, 0},
    {"q", ENC_CODEC_Q, 0},
    {"utf7imap", ENC_CODEC_UTF7IMAP, 0},
    {"hex", ENC_CODEC_HEX, 0},
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: encodify encode|decode CODEC [OPTIONS] < INPUT > OUTPUT\n"
          "CODEC: base64 base64url base32 base32hex qp q utf7imap hex\n"
          "options:\n"
          "  --wrap N   encode base64/base64url with CRLF after every N characters\n"
          "  --strict   decode base64 strictly (RFC 4648; the default)\n"
          "  --mime     decode base64 as MIME does (RFC 2045: skip line breaks and\n"
          "             other characters outside the alphabet, stop at '=')\n"
          "  --nopad    base64/base32 without '=' padding\n"
          "  --upper    encode hex with upper-case digits\n"
          "  --binary   encode qp with CR and LF encoded too\n"
          "  --phrase   encode q for words in a phrase (RFC 2047 5 (3))\n"
          "  --impl NAME  use implementation NAME (as ENCODIFY_IMPL does)\n"
          "Input is limited to %zu bytes. Invalid input exits with status 1, a message\n"
          "naming the byte offset, and nothing on standard output; usage errors exit\n"
          "with status 2.\n",
          MAX_INPUT);
}

static int read_all(uint8_t **buf, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  uint8_t *p = malloc(cap);
  if (p == NULL)
    return -ENOMEM;
  for (;;) {
    if (n == cap) { // cap <= MAX_INPUT here: a larger n returned below
      uint8_t *q = realloc(p, cap * 2);
      if (q == NULL) {
        free(p);
        return -ENOMEM;
      }
      p = q;
      cap *= 2;
    }
    ssize_t r = read(STDIN_FILENO, p + n, cap - n);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      int e = -errno;
      free(p);
      return e;
    }
    if (r == 0)
      break;
    n += (size_t)r;
    if (n > MAX_INPUT) {
      free(p);
      return -EFBIG;
    }
  }
  *buf = p;
  *len = n;
  return 0;
}

static int write_all(const uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(STDOUT_FILENO, p, n);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return -errno;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return 0;
  }
  if (argc < 3) {
    usage(stderr);
    return 2;
  }
  int encode;
  if (strcmp(argv[1], "encode") == 0)
    encode = 1;
  else if (strcmp(argv[1], "decode") == 0)
    encode = 0;
  else {
    fprintf(stderr, "encodify: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
  }
  size_t c = 0, ncodecs = sizeof codecs / sizeof codecs[0];
  while (c < ncodecs && strcmp(codecs[c].name, argv[2]) != 0)
    c++;
  if (c == ncodecs) {
    fprintf(stderr, "encodify: unknown codec '%s'\n", argv[2]);
    usage(stderr);
    return 2;
  }
  uint32_t flags = codecs[c].flags;
  size_t wrap = 0;
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--wrap") == 0 && i + 1 < argc) {
      // Digits only: strtoull alone skips blanks and takes a sign, so that
      // " -5" would wrap after 2^64 - 5 characters.
      uint64_t v;
      if (corvid_parse_u64(argv[++i], 0, SIZE_MAX, &v) < 0) {
        fprintf(stderr, "encodify: --wrap needs a number\n");
        return 2;
      }
      wrap = (size_t)v;
    } else if (strcmp(a, "--mime") == 0) {
      flags |= ENC_FLAG_MIME;
    } else if (strcmp(a, "--strict") == 0) {
      flags &= ~ENC_FLAG_MIME;
    } else if (strcmp(a, "--nopad") == 0) {
      flags |= ENC_FLAG_NOPAD;
    } else if (strcmp(a, "--upper") == 0) {
      flags |= ENC_FLAG_UPPER;
    } else if (strcmp(a, "--binary") == 0) {
      flags |= ENC_FLAG_BINARY;
    } else if (strcmp(a, "--phrase") == 0) {
      flags |= ENC_FLAG_PHRASE;
    } else if (strcmp(a, "--impl") == 0 && i + 1 < argc) {
      int rc = enc_impl_force(argv[++i]);
      if (rc != 0) {
        fprintf(stderr, "encodify: implementation '%s': %s\n", argv[i], enc_strerror(rc));
        return 2;
      }
    } else {
      fprintf(stderr, "encodify: unknown or incomplete option '%s'\n", a);
      usage(stderr);
      return 2;
    }
  }
  enc_stream probe; // checks the flags before reading anything
  if (enc_stream_init(&probe, codecs[c].codec, encode ? ENC_ENCODE : ENC_DECODE, flags, wrap) !=
      0) {
    fprintf(stderr, "encodify: these options do not apply to %s %s\n", argv[1], argv[2]);
    return 2;
  }

  uint8_t *in = NULL;
  size_t in_len = 0;
  int rc = read_all(&in, &in_len);
  if (rc != 0) {
    fprintf(stderr, "encodify: reading standard input: %s\n",
            rc == -EFBIG ? "input larger than the limit of 256 MiB" : enc_strerror(rc));
    return 1;
  }
  size_t cap = encode ? enc_encode_max_len(codecs[c].codec, flags, wrap, in_len)
                      : enc_decode_max_len(codecs[c].codec, flags, in_len);
  uint8_t *out = cap == SIZE_MAX ? NULL : malloc(cap ? cap : 1);
  if (out == NULL) {
    fprintf(stderr, "encodify: out of memory\n");
    free(in);
    return 1;
  }
  size_t out_len = 0, err_off = 0;
  if (encode)
    rc = enc_encode(codecs[c].codec, flags, wrap, out, cap, &out_len, in, in_len, &err_off);
  else
    rc = enc_decode(codecs[c].codec, flags, out, cap, &out_len, in, in_len, &err_off);
  free(in);
  if (rc != 0) {
    if (rc == ENC_ERR_INVALID_ARGUMENT || rc == ENC_ERR_UNSUPPORTED ||
        rc == ENC_ERR_BUFFER_TOO_SMALL)
      fprintf(stderr, "encodify: %s %s: %s\n", argv[1], argv[2], enc_strerror(rc));
    else
      fprintf(stderr, "encodify: %s %s: %s at byte offset %zu\n", argv[1], argv[2],
              enc_strerror(rc), err_off);
    free(out);
    return 1;
  }
  rc = write_all(out, out_len);
  free(out);
  if (rc != 0) {
    fprintf(stderr, "encodify: writing standard output: %s\n", enc_strerror(rc));
    return 1;
  }
  return 0;
}
