// feed_internal.h: the body feed of mp_message_parse_bodies(), shared by
// the structure scan (message.c) and the decoder (body.c); apart from
// core_internal.h so that the scanner kernels need not see libencodify.
#ifndef MP_FEED_INTERNAL_H
#define MP_FEED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encodify.h"
#include "mailparse.h"

// Body feed (body.c): one leaf's body decoded while the structure scan
// passes it, for mp_message_parse_bodies(). The scan hands over the body in
// pieces as it goes (mp_feed_bytes), so that each piece is decoded while it
// is still in cache, and mp_feed_end when the body's end is known. The
// concatenated output is exactly mp_part_decode()'s (libencodify's streams
// promise the one-shot result for any split).
typedef struct mp_feed {
  enc_stream st;
  const mp_body_sink *sink;
  const mp_part *rec;
  uint32_t part;
  int codec;  // 0 (identity: handed over raw at the end), or enc_codec
  size_t pos; // the next body byte to decode (absolute)
  bool active;
} mp_feed;

// mp_feed_begin starts the body of part `part` (record `rec`, whose
// encoding is known) at offset `off`.
int mp_feed_begin(mp_feed *f, const mp_body_sink *sink, const mp_part *rec, uint32_t part,
                  size_t off);
// mp_feed_bytes decodes data[f->pos, upto) when `upto` is beyond f->pos.
// For Base64 `upto` may pass the body's end by the line break before a
// delimiter: MIME Base64 skips CR and LF, so they add nothing. Quoted-
// printable callers stop before a line break that may end the body.
int mp_feed_bytes(mp_feed *f, const uint8_t *data, size_t upto);
// mp_feed_end decodes the rest of the body [f->pos, end) (identity bodies:
// all of [off, end), raw), ends the stream and tells the sink.
int mp_feed_end(mp_feed *f, const uint8_t *data, size_t off, size_t end);

#endif // MP_FEED_INTERNAL_H
