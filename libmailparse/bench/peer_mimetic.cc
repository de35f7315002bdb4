// peer_mimetic.cc: the mimetic peer of bench_mailparse. mimetic::MimeEntity
// loads the message from the buffer's [begin, end) range and builds the
// part tree (header fields and bodies are copied into std::strings, its only
// way). Every field of every entity is typed by the mimetic class for its
// class: MailboxList or AddressList, DateTime, MessageId, ContentType,
// ContentDisposition. mimetic has no RFC 2047 decoder and no parser for
// Received or List-*, so those fields are only read (value()), which is less
// work than ours does. Every leaf body is decoded with mimetic's
// Base64::Decoder or QP::Decoder as its Content-Transfer-Encoding says, and
// text bodies are converted to UTF-8 with glibc's iconv (mimetic has no
// charset conversion), one descriptor per part as our library does.
#include <iconv.h>
#include <mimetic/mimetic.h>
#include <mimetic/rfc822/datetime.h>

#include <iterator>
#include <string>

#include "bench_internal.h"

namespace {

uint64_t type_field(const mimetic::Field &f) {
  const std::string &name = f.name();
  std::string v = f.value();
  switch (mpb_field_class(name.data(), name.size())) {
  case MPB_F_ADDRESS:
    if (name.size() == 4 || name.size() == 11) // From, Resent-From
      return mimetic::MailboxList(v).size();
    return mimetic::AddressList(v).size();
  case MPB_F_DATE:
    return (uint64_t)mimetic::DateTime(v).day() + 1;
  case MPB_F_MSGID:
    return mimetic::MessageId(v).str().size();
  case MPB_F_CONTENT_TYPE:
    return mimetic::ContentType(v).paramList().size() + 1;
  case MPB_F_DISPOSITION:
    return mimetic::ContentDisposition(v).paramList().size() + 1;
  default:
    return v.size();
  }
}

std::string decoded;
std::string utf8;

uint64_t to_utf8(const std::string &charset, const std::string &in) {
  iconv_t cd = iconv_open("UTF-8", charset.empty() ? "US-ASCII" : charset.c_str());
  if (cd == (iconv_t)-1)
    return in.size();
  utf8.resize(in.size() * 4 + 16);
  char *src = const_cast<char *>(in.data()), *dst = &utf8[0];
  size_t src_left = in.size(), dst_left = utf8.size();
  while (src_left > 0) {
    if (iconv(cd, &src, &src_left, &dst, &dst_left) != (size_t)-1)
      break;
    if (src_left == 0 || dst_left < 3)
      break;
    src++; // an invalid byte: skip it, as a replacement would
    src_left--;
  }
  iconv_close(cd);
  return utf8.size() - dst_left;
}

void walk(mpb_work *w, const mimetic::MimeEntity &e, bool top_only) {
  const mimetic::Header &h = e.header();
  for (const mimetic::Field &f : h) {
    w->fields++;
    w->bytes += type_field(f);
  }
  if (top_only)
    return;
  const mimetic::MimeEntityList &parts = e.body().parts();
  if (!parts.empty()) {
    for (const mimetic::MimeEntity *p : parts)
      walk(w, *p, false);
    return;
  }
  const mimetic::Body &body = e.body();
  const std::string &cte = h.contentTransferEncoding().mechanism();
  decoded.clear();
  if (mimetic::istring(cte) == "base64") {
    mimetic::Base64::Decoder dec;
    mimetic::decode(body.begin(), body.end(), dec, std::back_inserter(decoded));
  } else if (mimetic::istring(cte) == "quoted-printable") {
    mimetic::QP::Decoder dec;
    mimetic::decode(body.begin(), body.end(), dec, std::back_inserter(decoded));
  } else {
    decoded.assign(body.begin(), body.end());
  }
  w->parts++;
  const mimetic::ContentType &ct = h.contentType();
  if (ct.type().empty() || ct.type() == "text")
    w->bytes += to_utf8(ct.param("charset"), decoded);
  else
    w->bytes += decoded.size();
}

int mimetic_run(mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  try {
    const char *begin = reinterpret_cast<const char *>(msg);
    mimetic::MimeEntity e(begin, begin + len);
    if (mode == MPB_HEADERS) {
      // Header-only: the parse, then every field's name and raw value.
      for (const mimetic::Field &f : e.header()) {
        work->fields++;
        work->bytes += f.name().size() + f.value().size();
      }
    } else {
      walk(work, e, mode == MPB_HEADERS_TYPED);
    }
  } catch (...) {
    return -1;
  }
  return 0;
}

} // namespace

extern "C" const struct mpb_impl mpb_peer_mimetic = {"mimetic", nullptr, mimetic_run};
