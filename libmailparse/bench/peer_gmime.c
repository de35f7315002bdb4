// peer_gmime.c: the GMime 3 peer of bench_mailparse. A message is read from
// a GMimeStreamMem that borrows the benchmark's buffer (no copy) by
// g_mime_parser_construct_message, which keeps part contents as substreams of
// it. Every header field of the message and of every part (walked with
// g_mime_message_foreach, descending into message/rfc822 parts) is typed by
// the GMime parser for its class: internet_address_list_parse,
// g_mime_utils_header_decode_date, g_mime_references_parse,
// g_mime_content_type_parse, g_mime_content_disposition_parse, and
// g_mime_utils_header_decode_text for the rest (GMime has no parser for
// Received or List-*). Every leaf body is written through
// g_mime_data_wrapper_write_to_stream, which decodes the transfer encoding,
// into a reused memory stream, through a GMimeFilterCharset to UTF-8 for
// text parts.
#include <gmime/gmime.h>

#include "bench_internal.h"

static GByteArray *out_bytes;

static int gmime_init(void) {
  g_mime_init();
  out_bytes = g_byte_array_new();
  return 0;
}

static void type_field(struct mpb_work *w, const char *name, const char *raw) {
  if (name == NULL || raw == NULL)
    return;
  int cls = mpb_field_class(name, strlen(name));
  w->fields++;
  switch (cls) {
  case MPB_F_RAW:
    w->fields--;
    break;
  case MPB_F_ADDRESS: {
    InternetAddressList *l = internet_address_list_parse(NULL, raw);
    if (l != NULL) {
      w->bytes += (uint64_t)internet_address_list_length(l);
      g_object_unref(l);
    }
    break;
  }
  case MPB_F_DATE: {
    GDateTime *d = g_mime_utils_header_decode_date(raw);
    if (d != NULL) {
      w->bytes += (uint64_t)(g_date_time_to_unix(d) & 1) + 1;
      g_date_time_unref(d);
    }
    break;
  }
  case MPB_F_MSGID: {
    GMimeReferences *r = g_mime_references_parse(NULL, raw);
    if (r != NULL) {
      w->bytes += (uint64_t)g_mime_references_length(r);
      g_mime_references_free(r);
    }
    break;
  }
  case MPB_F_CONTENT_TYPE: {
    GMimeContentType *ct = g_mime_content_type_parse(NULL, raw);
    if (ct != NULL) {
      w->bytes += (uint64_t)g_mime_param_list_length(g_mime_content_type_get_parameters(ct)) + 1;
      g_object_unref(ct);
    }
    break;
  }
  case MPB_F_DISPOSITION: {
    GMimeContentDisposition *cd = g_mime_content_disposition_parse(NULL, raw);
    if (cd != NULL) {
      w->bytes +=
          (uint64_t)g_mime_param_list_length(g_mime_content_disposition_get_parameters(cd)) + 1;
      g_object_unref(cd);
    }
    break;
  }
  default: {
    char *text = g_mime_utils_header_decode_text(NULL, raw);
    if (text != NULL) {
      w->bytes += strlen(text);
      g_free(text);
    }
    break;
  }
  }
}

static void type_headers(struct mpb_work *w, GMimeObject *obj) {
  GMimeHeaderList *list = g_mime_object_get_header_list(obj);
  int count = g_mime_header_list_get_count(list);
  for (int i = 0; i < count; i++) {
    GMimeHeader *h = g_mime_header_list_get_header_at(list, i);
    type_field(w, g_mime_header_get_name(h), g_mime_header_get_raw_value(h));
  }
}

// index_headers is the header-only mode's walk: every field's name and raw
// value as g_mime_parser_construct_message left them.
static void index_headers(struct mpb_work *w, GMimeObject *obj) {
  GMimeHeaderList *list = g_mime_object_get_header_list(obj);
  int count = g_mime_header_list_get_count(list);
  for (int i = 0; i < count; i++) {
    GMimeHeader *h = g_mime_header_list_get_header_at(list, i);
    const char *name = g_mime_header_get_name(h), *raw = g_mime_header_get_raw_value(h);
    w->fields++;
    w->bytes += (name ? strlen(name) : 0) + (raw ? strlen(raw) : 0);
  }
}

static void decode_part(struct mpb_work *w, GMimePart *part) {
  GMimeDataWrapper *content = g_mime_part_get_content(part);
  if (content == NULL)
    return;
  g_byte_array_set_size(out_bytes, 0);
  GMimeStream *out = g_mime_stream_mem_new_with_byte_array(out_bytes);
  g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(out), FALSE);
  GMimeContentType *ct = g_mime_object_get_content_type(GMIME_OBJECT(part));
  GMimeFilter *filter = NULL;
  if (ct != NULL && g_mime_content_type_is_type(ct, "text", "*")) {
    const char *cs = g_mime_content_type_get_parameter(ct, "charset");
    filter = g_mime_filter_charset_new(cs != NULL ? cs : "us-ascii", "UTF-8");
  }
  if (filter != NULL) {
    GMimeStream *filtered = g_mime_stream_filter_new(out);
    g_mime_stream_filter_add(GMIME_STREAM_FILTER(filtered), filter);
    g_mime_data_wrapper_write_to_stream(content, filtered);
    g_mime_stream_flush(filtered);
    g_object_unref(filtered);
    g_object_unref(filter);
  } else {
    g_mime_data_wrapper_write_to_stream(content, out);
  }
  g_object_unref(out);
  w->parts++;
  w->bytes += out_bytes->len;
}

struct walk {
  struct mpb_work *work;
  GMimeObject *top_body; // its fields are in the message's header list
};

static void walk_message(struct mpb_work *w, GMimeMessage *m);

static void visit(GMimeObject *parent, GMimeObject *part, gpointer data) {
  struct walk *walk = data;
  (void)parent;
  if (part != walk->top_body)
    type_headers(walk->work, part);
  if (GMIME_IS_MESSAGE_PART(part)) {
    GMimeMessage *inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
    if (inner != NULL)
      walk_message(walk->work, inner);
  } else if (GMIME_IS_PART(part)) {
    decode_part(walk->work, GMIME_PART(part));
  }
}

static void walk_message(struct mpb_work *w, GMimeMessage *m) {
  struct walk walk = {w, g_mime_message_get_mime_part(m)};
  type_headers(w, GMIME_OBJECT(m));
  g_mime_message_foreach(m, visit, &walk);
}

static int gmime_run(struct mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  // The array borrows the buffer (the stream does not own the array, and the
  // data is stolen back before the array goes), so nothing is copied.
  GByteArray *in = g_byte_array_new_take((guint8 *)msg, len);
  GMimeStream *stream = g_mime_stream_mem_new_with_byte_array(in);
  g_mime_stream_mem_set_owner(GMIME_STREAM_MEM(stream), FALSE);
  GMimeParser *parser = g_mime_parser_new_with_stream(stream);
  GMimeMessage *m = g_mime_parser_construct_message(parser, NULL);
  int rc = 0;
  if (m == NULL) {
    rc = -1;
  } else {
    if (mode == MPB_HEADERS)
      index_headers(work, GMIME_OBJECT(m));
    else if (mode == MPB_HEADERS_TYPED)
      type_headers(work, GMIME_OBJECT(m));
    else
      walk_message(work, m);
    g_object_unref(m);
  }
  g_object_unref(parser);
  g_object_unref(stream);
  gsize stolen_len;
  (void)g_byte_array_steal(in, &stolen_len);
  g_byte_array_unref(in);
  return rc;
}

const struct mpb_impl mpb_peer_gmime = {"gmime", gmime_init, gmime_run};
