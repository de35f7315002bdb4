// typed_json.c: the "typed" value of a header field in mailparse dump: the
// field's name picks one of libmailparse's typed parsers (addresses, dates,
// MIME parameters, message ids, Received, List-*, Subject), and its result is
// written as one JSON object; other fields are null.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dump.h"

enum kind {
  K_NONE,
  K_ADDRESSES,
  K_DATE,
  K_CONTENT_TYPE,
  K_DISPOSITION,
  K_MSGIDS,
  K_RECEIVED,
  K_LIST_URIS,
  K_LIST_ID,
  K_SUBJECT
};

static const struct {
  const char *name;
  enum kind kind;
} fields[] = {
    {"from", K_ADDRESSES},
    {"to", K_ADDRESSES},
    {"cc", K_ADDRESSES},
    {"bcc", K_ADDRESSES},
    {"reply-to", K_ADDRESSES},
    {"sender", K_ADDRESSES},
    {"resent-from", K_ADDRESSES},
    {"resent-to", K_ADDRESSES},
    {"resent-cc", K_ADDRESSES},
    {"resent-bcc", K_ADDRESSES},
    {"resent-sender", K_ADDRESSES},
    {"date", K_DATE},
    {"resent-date", K_DATE},
    {"content-type", K_CONTENT_TYPE},
    {"content-disposition", K_DISPOSITION},
    {"message-id", K_MSGIDS},
    {"in-reply-to", K_MSGIDS},
    {"references", K_MSGIDS},
    {"content-id", K_MSGIDS},
    {"resent-message-id", K_MSGIDS},
    {"received", K_RECEIVED},
    {"list-help", K_LIST_URIS},
    {"list-subscribe", K_LIST_URIS},
    {"list-unsubscribe", K_LIST_URIS},
    {"list-post", K_LIST_URIS},
    {"list-owner", K_LIST_URIS},
    {"list-archive", K_LIST_URIS},
    {"list-id", K_LIST_ID},
    {"subject", K_SUBJECT},
};

static const char *const kind_names[] = {
    "",       "addresses", "date",      "content_type", "content_disposition",
    "msgids", "received",  "list_uris", "list_id",      "subject"};

static enum kind field_kind(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (strlen(fields[i].name) == len && strncasecmp(fields[i].name, name, len) == 0)
      return fields[i].kind;
  return K_NONE;
}

static void address_entry(FILE *o, const mp_address *a) {
  fputs("{\"name\":", o);
  json_utf8_or_null(o, a->name);
  fputs(",\"email\":", o);
  if (a->local.p == NULL && a->domain.p == NULL) {
    fputs("null", o);
  } else {
    // local@domain, joined into one UTF-8 string.
    size_t n = a->local.len + 1 + a->domain.len;
    char *t = malloc(n);
    if (t != NULL) {
      size_t k = 0;
      if (a->local.len > 0)
        memcpy(t, a->local.p, a->local.len);
      k = a->local.len;
      if (a->domain.p != NULL) {
        t[k++] = '@';
        if (a->domain.len > 0)
          memcpy(t + k, a->domain.p, a->domain.len);
        k += a->domain.len;
      }
      json_utf8(o, t, k);
      free(t);
    } else {
      fputs("null", o);
    }
  }
  fprintf(o, ",\"flags\":%u}", a->flags);
}

static void addresses(FILE *o, const mp_address *as, size_t n) {
  fputs(",\"addresses\":[", o);
  for (size_t i = 0; i < n; i++) {
    const mp_address *a = &as[i];
    if (i > 0)
      fputc(',', o);
    if (a->flags & MP_ADDRESS_GROUP) {
      fputs("{\"group\":", o);
      json_utf8_or_null(o, a->name);
      fputs(",\"addresses\":[", o);
      size_t k = 0;
      while (i + 1 < n && as[i + 1].group == (uint32_t)(a - as)) {
        if (k++ > 0)
          fputc(',', o);
        address_entry(o, &as[++i]);
      }
      fputs("]}", o);
    } else {
      address_entry(o, a);
    }
  }
  fputc(']', o);
}

// date_json writes a date as an object: UTC ISO 8601 time, the zone as
// written and the local time with it, seconds since the epoch, flags.
static void date_json(FILE *o, const mp_date *d) {
  time_t t = (time_t)d->time;
  struct tm tm;
  char utc[40] = "";
  if (gmtime_r(&t, &tm) != NULL)
    snprintf(utc, sizeof utc, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  int off = d->offset < 0 ? -d->offset : d->offset;
  char sign = d->offset < 0 ? '-' : '+';
  fprintf(o,
          "{\"utc\":\"%s\",\"offset\":\"%c%02d%02d\",\"offset_minutes\":%d,"
          "\"local\":\"%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d\",\"timestamp\":%lld,"
          "\"date_flags\":%u}",
          utc, sign, off / 60, off % 60, (int)d->offset, d->year, d->month, d->day, d->hour,
          d->minute, d->second, sign, off / 60, off % 60, (long long)d->time, d->flags);
}

static void params_json(FILE *o, const mp_param *ps, size_t n) {
  fputs(",\"params\":[", o);
  for (size_t i = 0; i < n; i++) {
    fputs(i ? ",{\"name\":" : "{\"name\":", o);
    json_utf8_or_null(o, ps[i].name);
    fputs(",\"value\":", o);
    // An empty value has p NULL: it is still a value.
    if (ps[i].value.p == NULL)
      fputs("\"\"", o);
    else
      json_utf8(o, ps[i].value.p, ps[i].value.len);
    fputs(",\"charset\":", o);
    json_utf8_or_null(o, ps[i].charset);
    fputs(",\"language\":", o);
    json_utf8_or_null(o, ps[i].language);
    fprintf(o, ",\"flags\":%u}", ps[i].flags);
  }
  fputc(']', o);
}

// json_mime parses a Content-Type (or, with `disposition`,
// Content-Disposition) value and, when it parses, writes `prefix` and then
// the members "type", "subtype" (Content-Type only) and "params". On failure
// nothing is written and the parser's status is returned.
int json_mime(FILE *o, const char *prefix, const char *in, size_t in_len, int disposition,
              unsigned *flags) {
  size_t pcap = in_len / 2 + 1, tcap = mp_typed_text_max_len(in_len), tl;
  mp_param *ps = malloc(pcap * sizeof *ps);
  char *text = malloc(tcap);
  int rc = -ENOMEM;
  if (ps != NULL && text != NULL) {
    mp_str type = {NULL, 0}, subtype = {NULL, 0};
    size_t np = 0;
    if (disposition) {
      mp_content_disposition d;
      rc = mp_content_disposition_parse(&d, ps, pcap, text, tcap, &tl, flags, in, in_len);
      type = d.type;
      np = d.num_params;
    } else {
      mp_content_type ct;
      rc = mp_content_type_parse(&ct, ps, pcap, text, tcap, &tl, flags, in, in_len);
      type = ct.type;
      subtype = ct.subtype;
      np = ct.num_params;
    }
    if (rc == 0) {
      fputs(prefix, o);
      fputs("\"type\":", o);
      json_utf8_or_null(o, type);
      if (!disposition) {
        fputs(",\"subtype\":", o);
        json_utf8_or_null(o, subtype);
      }
      params_json(o, ps, np);
    }
  }
  free(ps);
  free(text);
  return rc;
}

// typed_body writes the members after "kind" for one field, or returns the
// parser's error (nothing written then, except for MP_ERR_SYNTAX handling by
// the caller).
static int typed_body(FILE *o, enum kind k, const char *in, size_t in_len, unsigned *fl) {
  size_t tcap = mp_typed_text_max_len(in_len), tl = 0, cap = in_len / 2 + 1, n = 0;
  int rc = 0;
  switch (k) {
  case K_ADDRESSES: {
    mp_address *as = malloc(cap * sizeof *as);
    char *text = malloc(tcap);
    rc = as == NULL || text == NULL
             ? -ENOMEM
             : mp_address_list_parse(as, cap, &n, text, tcap, &tl, fl, in, in_len);
    if (rc == 0)
      addresses(o, as, n);
    free(as);
    free(text);
    return rc;
  }
  case K_DATE: {
    mp_date d;
    rc = mp_date_parse(&d, fl, in, in_len);
    if (rc == 0) {
      fputs(",\"date\":", o);
      date_json(o, &d);
    }
    return rc;
  }
  case K_CONTENT_TYPE:
  case K_DISPOSITION:
    return json_mime(o, ",", in, in_len, k == K_DISPOSITION, fl);
  case K_MSGIDS: {
    mp_msgid *ids = malloc(cap * sizeof *ids);
    char *text = malloc(tcap);
    rc = ids == NULL || text == NULL
             ? -ENOMEM
             : mp_msgid_list_parse(ids, cap, &n, text, tcap, &tl, fl, in, in_len);
    if (rc == 0) {
      fputs(",\"ids\":[", o);
      for (size_t i = 0; i < n; i++) {
        if (i > 0)
          fputc(',', o);
        json_utf8_or_null(o, ids[i].id);
      }
      fputc(']', o);
    }
    free(ids);
    free(text);
    return rc;
  }
  case K_RECEIVED: {
    mp_received r;
    rc = mp_received_parse(&r, fl, in, in_len);
    if (rc == 0) {
      static const char *const names[] = {"from", "by", "via", "with", "id", "for", "from_info"};
      const mp_str *vals[] = {&r.from, &r.by, &r.via, &r.with, &r.id, &r.for_, &r.from_info};
      for (int i = 0; i < 7; i++) {
        json_key(o, names[i], 0);
        json_utf8_or_null(o, *vals[i]);
      }
      fputs(",\"date\":", o);
      if (r.has_date)
        date_json(o, &r.date);
      else
        fputs("null", o);
    }
    return rc;
  }
  case K_LIST_URIS: {
    mp_str *uris = malloc(cap * sizeof *uris);
    char *text = malloc(tcap);
    rc = uris == NULL || text == NULL
             ? -ENOMEM
             : mp_list_uris_parse(uris, cap, &n, text, tcap, &tl, fl, in, in_len);
    if (rc == 0) {
      fputs(",\"uris\":[", o);
      for (size_t i = 0; i < n; i++) {
        if (i > 0)
          fputc(',', o);
        json_utf8_or_null(o, uris[i]);
      }
      fprintf(o, "],\"no\":%s", (*fl & MP_TYPED_LIST_NO) ? "true" : "false");
    }
    free(uris);
    free(text);
    return rc;
  }
  case K_LIST_ID: {
    mp_list_id id;
    char *text = malloc(tcap);
    rc = text == NULL ? -ENOMEM : mp_list_id_parse(&id, text, tcap, &tl, fl, in, in_len);
    if (rc == 0) {
      fputs(",\"name\":", o);
      json_utf8_or_null(o, id.name);
      fputs(",\"id\":", o);
      json_utf8_or_null(o, id.id);
    }
    free(text);
    return rc;
  }
  case K_SUBJECT: {
    size_t bcap = in_len * 3 + 1;
    char *text = malloc(bcap);
    rc = text == NULL ? -ENOMEM : mp_subject_base(text, bcap, &tl, fl, in, in_len);
    if (rc == 0) {
      fputs(",\"base\":", o);
      json_utf8(o, text, tl);
      fprintf(o, ",\"reply\":%s", (*fl & MP_TYPED_SUBJECT_REPLY) ? "true" : "false");
    }
    free(text);
    return rc;
  }
  case K_NONE:
    break;
  }
  return 0;
}

int json_typed(FILE *o, const mp_message *m, const mp_header *h) {
  const char *data = (const char *)mp_message_data(m, NULL);
  enum kind k = field_kind(data + h->name.off, h->name.len);
  if (k == K_NONE) {
    fputs("null", o);
    return 0;
  }
  fprintf(o, "{\"kind\":\"%s\"", kind_names[k]);
  unsigned fl = 0;
  int rc = typed_body(o, k, data + h->value.off, h->value.len, &fl);
  if (rc == -ENOMEM)
    return rc;
  if (rc != 0) {
    // The value does not parse: say why instead of a value.
    fputs(",\"error\":", o);
    json_utf8(o, mp_strerror(rc), strlen(mp_strerror(rc)));
  }
  fprintf(o, ",\"flags\":%u}", fl);
  return 0;
}
