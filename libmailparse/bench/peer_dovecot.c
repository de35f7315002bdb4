// peer_dovecot.c: the Dovecot lib-mail peer of bench_mailparse (Dovecot 2.3,
// libdovecot.so). A message is read through i_stream_create_from_data (no
// copy) by message_parser_parse_next_block, whose blocks go through
// message_decoder_decode_next_block (MESSAGE_DECODER_FLAG_RETURN_BINARY, so
// that non-text bodies are decoded too): the decoder joins folded header
// lines and decodes every header to UTF-8 (RFC 2047), removes the transfer
// encoding of every body and converts text bodies to UTF-8 from their
// charset. That covers our unstructured fields; the structured ones are
// typed from the raw value by lib-mail's parsers: message_address_parse,
// message_date_parse, message_id_get_next, rfc822_parse_content_type and
// rfc822_parse_mime_token with rfc2231_parse for Content-Type and
// Content-Disposition. (lib-mail has no parser for Received or List-*: the
// decoded text stands for them.) Each message gets one alloconly pool and a
// data stack frame, as Dovecot itself works.
// lib.h comes first: every Dovecot header relies on it.
#include "lib.h"

#include "istream.h"
#include "message-address.h"
#include "message-date.h"
#include "message-decoder.h"
#include "message-id.h"
#include "message-parser.h"
#include "rfc822-parser.h"
#include "str.h"

// After rfc822-parser.h, whose struct it uses without declaring it.
#include "rfc2231-parser.h"

#include "bench_internal.h"

static int dovecot_init(void) {
  lib_init();
  return 0;
}

static void type_raw(struct mpb_work *w, pool_t pool, const char *name, size_t name_len,
                     const unsigned char *v, size_t n) {
  switch (mpb_field_class(name, name_len)) {
  case MPB_F_ADDRESS: {
    struct message_address *a = message_address_parse(pool, v, n, UINT_MAX, 0);
    for (; a != NULL; a = a->next)
      w->bytes++;
    break;
  }
  case MPB_F_DATE: {
    time_t t;
    int tz;
    if (message_date_parse(v, n, &t, &tz))
      w->bytes += (uint64_t)(t & 1) + 1;
    break;
  }
  case MPB_F_MSGID: {
    const char *p = t_strndup(v, n);
    while (message_id_get_next(&p) != NULL)
      w->bytes++;
    break;
  }
  case MPB_F_CONTENT_TYPE:
  case MPB_F_DISPOSITION: {
    struct rfc822_parser_context parser;
    string_t *str = t_str_new(64);
    const char *const *params;
    rfc822_parser_init(&parser, v, n, NULL);
    rfc822_skip_lwsp(&parser);
    int ok = mpb_field_class(name, name_len) == MPB_F_CONTENT_TYPE
                 ? rfc822_parse_content_type(&parser, str)
                 : rfc822_parse_mime_token(&parser, str);
    if (ok >= 0) {
      rfc2231_parse(&parser, &params);
      for (; *params != NULL; params++)
        w->bytes++;
    }
    rfc822_parser_deinit(&parser);
    break;
  }
  default:
    break;
  }
}

// dovecot_index is the header-only mode: Dovecot's raw header parser
// (message_parse_header_next, what its message parser runs on a header
// section), every line's name and value read; no decoding.
static int dovecot_index(struct mpb_work *work, const uint8_t *msg, size_t len) {
  struct istream *input = i_stream_create_from_data(msg, len);
  struct message_header_parser_ctx *hp = message_parse_header_init(input, NULL, 0);
  struct message_header_line *hdr;
  int ret;
  while ((ret = message_parse_header_next(hp, &hdr)) > 0) {
    if (hdr->eoh)
      continue;
    if (!hdr->continued)
      work->fields++;
    work->bytes += hdr->name_len + hdr->value_len;
  }
  message_parse_header_deinit(&hp);
  int rc = input->stream_errno != 0 ? -1 : 0;
  i_stream_unref(&input);
  return rc;
}

static int dovecot_run(struct mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  // The header modes' input is the header section alone.
  if (mode == MPB_HEADERS)
    return dovecot_index(work, msg, len);
  pool_t pool = pool_alloconly_create("mpb", 4096);
  struct istream *input = i_stream_create_from_data(msg, len);
  const struct message_parser_settings set = {0};
  struct message_parser_ctx *parser = message_parser_init(pool, input, &set);
  struct message_decoder_context *decoder =
      message_decoder_init(NULL, MESSAGE_DECODER_FLAG_RETURN_BINARY);
  struct message_block raw, out;
  struct message_part *parts;
  int ret;
  T_BEGIN {
    while ((ret = message_parser_parse_next_block(parser, &raw)) > 0) {
      if (!message_decoder_decode_next_block(decoder, &raw, &out))
        continue;
      if (out.hdr != NULL) {
        if (out.hdr->eoh)
          continue;
        // out.hdr holds the decoded value, raw.hdr the raw one.
        work->fields++;
        work->bytes += out.hdr->full_value_len;
        type_raw(work, pool, raw.hdr->name, raw.hdr->name_len, raw.hdr->full_value,
                 raw.hdr->full_value_len);
      } else if (out.size > 0) {
        work->bytes += out.size;
      } else if (out.hdr == NULL && out.size == 0 && out.part != NULL) {
        work->parts++; // end of a part's header: its body follows
      }
    }
  }
  T_END;
  message_decoder_deinit(&decoder);
  message_parser_deinit(&parser, &parts);
  int rc = input->stream_errno != 0 ? -1 : 0;
  i_stream_unref(&input);
  pool_unref(&pool);
  return rc;
}

const struct mpb_impl mpb_peer_dovecot = {"dovecot", dovecot_init, dovecot_run};
