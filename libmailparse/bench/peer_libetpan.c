// peer_libetpan.c: the libetpan peer of bench_mailparse. mailmime_parse
// builds the whole MIME tree from the buffer; on the way it types the
// RFC 5322 fields of the message and of every message/rfc822 part
// (mailimf_envelope_and_optional_fields_parse: addresses, dates, message
// ids) and every part's MIME fields (Content-Type and -Disposition with
// their parameters). On top of that, as our parser does, every display name,
// Subject, Comments and every other unstructured field is decoded to UTF-8
// with mailmime_encoded_phrase_parse (libetpan has no parser for Received or
// List-*; they are decoded as text). Every leaf body is decoded with
// mailmime_part_parse and text bodies are converted with charconv from the
// part's charset (mailmime_content_charset_get) to UTF-8.
#include <libetpan/libetpan.h>
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

static void decode_text(struct mpb_work *w, const char *s) {
  if (s == NULL)
    return;
  size_t idx = 0;
  char *out = NULL;
  if (mailmime_encoded_phrase_parse("us-ascii", s, strlen(s), &idx, "utf-8", &out) ==
          MAILIMF_NO_ERROR &&
      out != NULL) {
    w->bytes += strlen(out);
    free(out);
  }
}

static void mailbox(struct mpb_work *w, const struct mailimf_mailbox *mb) {
  if (mb == NULL)
    return;
  w->bytes += strlen(mb->mb_addr_spec);
  decode_text(w, mb->mb_display_name);
}

static void mailbox_list(struct mpb_work *w, const struct mailimf_mailbox_list *l) {
  if (l == NULL)
    return;
  for (clistiter *it = clist_begin(l->mb_list); it != NULL; it = clist_next(it))
    mailbox(w, clist_content(it));
}

static void address_list(struct mpb_work *w, const struct mailimf_address_list *l) {
  if (l == NULL)
    return;
  for (clistiter *it = clist_begin(l->ad_list); it != NULL; it = clist_next(it)) {
    const struct mailimf_address *a = clist_content(it);
    if (a->ad_type == MAILIMF_ADDRESS_MAILBOX) {
      mailbox(w, a->ad_data.ad_mailbox);
    } else {
      decode_text(w, a->ad_data.ad_group->grp_display_name);
      mailbox_list(w, a->ad_data.ad_group->grp_mb_list);
    }
  }
}

static void type_fields(struct mpb_work *w, const struct mailimf_fields *fields) {
  if (fields == NULL)
    return;
  for (clistiter *it = clist_begin(fields->fld_list); it != NULL; it = clist_next(it)) {
    const struct mailimf_field *f = clist_content(it);
    w->fields++;
    switch (f->fld_type) {
    case MAILIMF_FIELD_FROM:
      mailbox_list(w, f->fld_data.fld_from->frm_mb_list);
      break;
    case MAILIMF_FIELD_RESENT_FROM:
      mailbox_list(w, f->fld_data.fld_resent_from->frm_mb_list);
      break;
    case MAILIMF_FIELD_SENDER:
      mailbox(w, f->fld_data.fld_sender->snd_mb);
      break;
    case MAILIMF_FIELD_RESENT_SENDER:
      mailbox(w, f->fld_data.fld_resent_sender->snd_mb);
      break;
    case MAILIMF_FIELD_REPLY_TO:
      address_list(w, f->fld_data.fld_reply_to->rt_addr_list);
      break;
    case MAILIMF_FIELD_TO:
      address_list(w, f->fld_data.fld_to->to_addr_list);
      break;
    case MAILIMF_FIELD_RESENT_TO:
      address_list(w, f->fld_data.fld_resent_to->to_addr_list);
      break;
    case MAILIMF_FIELD_CC:
      address_list(w, f->fld_data.fld_cc->cc_addr_list);
      break;
    case MAILIMF_FIELD_RESENT_CC:
      address_list(w, f->fld_data.fld_resent_cc->cc_addr_list);
      break;
    case MAILIMF_FIELD_BCC:
      address_list(w, f->fld_data.fld_bcc->bcc_addr_list);
      break;
    case MAILIMF_FIELD_RESENT_BCC:
      address_list(w, f->fld_data.fld_resent_bcc->bcc_addr_list);
      break;
    case MAILIMF_FIELD_SUBJECT:
      decode_text(w, f->fld_data.fld_subject->sbj_value);
      break;
    case MAILIMF_FIELD_COMMENTS:
      decode_text(w, f->fld_data.fld_comments->cm_value);
      break;
    case MAILIMF_FIELD_OPTIONAL_FIELD: {
      const struct mailimf_optional_field *o = f->fld_data.fld_optional_field;
      int cls = mpb_field_class(o->fld_name, strlen(o->fld_name));
      // MIME fields of the message are typed in its mailmime_fields.
      if (cls == MPB_F_RAW || cls == MPB_F_CONTENT_TYPE || cls == MPB_F_DISPOSITION ||
          cls == MPB_F_MSGID)
        w->fields--;
      else
        decode_text(w, o->fld_value);
      break;
    }
    default: // dates, message ids: typed by the parse itself
      w->bytes++;
      break;
    }
  }
}

static int is_text(const struct mailmime_content *ct) {
  if (ct == NULL)
    return 1;
  return ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
         ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_TEXT;
}

static int decode_body(struct mpb_work *w, const struct mailmime *mime) {
  const struct mailmime_data *d = mime->mm_data.mm_single;
  if (d == NULL || d->dt_type != MAILMIME_DATA_TEXT)
    return 0;
  size_t idx = 0, len = d->dt_data.dt_text.dt_length;
  const char *body = d->dt_data.dt_text.dt_data;
  char *decoded = NULL;
  int owned = 0;
  if (d->dt_encoded) {
    if (mailmime_part_parse(body, len, &idx, d->dt_encoding, &decoded, &len) != MAILIMF_NO_ERROR)
      return -1;
    body = decoded;
    owned = 1;
  }
  w->parts++;
  if (is_text(mime->mm_content_type)) {
    const char *cs =
        mime->mm_content_type ? mailmime_content_charset_get(mime->mm_content_type) : "us-ascii";
    char *utf8 = NULL;
    if (charconv("utf-8", cs, body, len, &utf8) == MAIL_CHARCONV_NO_ERROR && utf8 != NULL) {
      w->bytes += strlen(utf8);
      free(utf8);
    }
  } else {
    w->bytes += len;
  }
  if (owned)
    mailmime_decoded_part_free(decoded);
  return 0;
}

static int walk(struct mpb_work *w, const struct mailmime *mime, int decode) {
  switch (mime->mm_type) {
  case MAILMIME_SINGLE:
    return decode ? decode_body(w, mime) : 0;
  case MAILMIME_MULTIPLE:
    for (clistiter *it = clist_begin(mime->mm_data.mm_multipart.mm_mp_list); it != NULL;
         it = clist_next(it))
      if (walk(w, clist_content(it), decode) != 0)
        return -1;
    return 0;
  case MAILMIME_MESSAGE:
    type_fields(w, mime->mm_data.mm_message.mm_fields);
    if (mime->mm_data.mm_message.mm_msg_mime != NULL && decode)
      return walk(w, mime->mm_data.mm_message.mm_msg_mime, decode);
    return 0;
  default:
    return 0;
  }
}

// etpan_index is the header-only mode: mailimf_optional_fields_parse, the
// parser libetpan offers for a header section as a list of name/value
// fields, and every field's name and value read.
static int etpan_index(struct mpb_work *work, const uint8_t *msg, size_t len) {
  size_t idx = 0;
  struct mailimf_fields *f = NULL;
  if (mailimf_optional_fields_parse((const char *)msg, len, &idx, &f) != MAILIMF_NO_ERROR)
    return -1;
  for (clistiter *it = clist_begin(f->fld_list); it != NULL; it = clist_next(it)) {
    const struct mailimf_field *fl = clist_content(it);
    if (fl->fld_type != MAILIMF_FIELD_OPTIONAL_FIELD)
      continue;
    const struct mailimf_optional_field *o = fl->fld_data.fld_optional_field;
    work->fields++;
    work->bytes += strlen(o->fld_name) + strlen(o->fld_value);
  }
  mailimf_fields_free(f);
  return 0;
}

static int etpan_run(struct mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  if (mode == MPB_HEADERS)
    return etpan_index(work, msg, len);
  size_t idx = 0;
  struct mailmime *mime = NULL;
  if (mailmime_parse((const char *)msg, len, &idx, &mime) != MAILIMF_NO_ERROR)
    return -1;
  int rc = walk(work, mime, mode == MPB_FULL);
  mailmime_free(mime);
  return rc;
}

const struct mpb_impl mpb_peer_libetpan = {"libetpan", NULL, etpan_run};
