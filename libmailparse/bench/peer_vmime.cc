// peer_vmime.cc: the VMime peer of bench_mailparse. vmime::message::parse
// reads the message from an inputStreamByteBufferAdapter over the buffer
// (no copy; bodies stay regions of that stream). Parsing already types every
// header field through VMime's header field factory (mailboxList,
// addressList, datetime, messageId/messageIdSequence, mediaType with
// parameters, contentDisposition, relay for Received, text for the rest); on
// top of that, as our parser does, every text value and every display name
// is decoded to UTF-8 with vmime::text::getConvertedText. Every leaf body is
// decoded with contentHandler::extract (which removes the transfer encoding)
// into a reused string, and text bodies are converted with
// vmime::charset::convert from the part's charset to UTF-8. VMime keeps a
// message/rfc822 part as a leaf: its bytes are decoded, not parsed.
#include <vmime/vmime.hpp>

#include <string>

#include "bench_internal.h"

namespace {

const vmime::charset utf8(vmime::charsets::UTF_8);

uint64_t names(const vmime::shared_ptr<const vmime::mailboxList> &l) {
  uint64_t n = 0;
  for (size_t i = 0; i < l->getMailboxCount(); i++)
    n += l->getMailboxAt(i)->getName().getConvertedText(utf8).size() + 1;
  return n;
}

uint64_t type_value(const vmime::shared_ptr<const vmime::headerFieldValue> &v) {
  if (auto t = vmime::dynamicCast<const vmime::text>(v))
    return t->getConvertedText(utf8).size();
  if (auto ml = vmime::dynamicCast<const vmime::mailboxList>(v))
    return names(ml);
  if (auto mb = vmime::dynamicCast<const vmime::mailbox>(v))
    return mb->getName().getConvertedText(utf8).size() + 1;
  if (auto al = vmime::dynamicCast<const vmime::addressList>(v)) {
    uint64_t n = 0;
    for (size_t i = 0; i < al->getAddressCount(); i++) {
      auto a = al->getAddressAt(i);
      if (auto g = vmime::dynamicCast<const vmime::mailboxGroup>(a)) {
        n += g->getName().getConvertedText(utf8).size() + 1;
        for (size_t j = 0; j < g->getMailboxCount(); j++)
          n += g->getMailboxAt(j)->getName().getConvertedText(utf8).size() + 1;
      } else if (auto m = vmime::dynamicCast<const vmime::mailbox>(a)) {
        n += m->getName().getConvertedText(utf8).size() + 1;
      }
    }
    return n;
  }
  return 1; // typed by the parse itself
}

void type_header(mpb_work *w, const vmime::shared_ptr<const vmime::header> &h) {
  for (size_t i = 0; i < h->getFieldCount(); i++) {
    w->fields++;
    w->bytes += type_value(h->getFieldAt(i)->getValue());
  }
}

std::string decoded;
std::string converted;

void walk(mpb_work *w, const vmime::shared_ptr<const vmime::bodyPart> &part) {
  type_header(w, part->getHeader());
  auto body = part->getBody();
  if (body->getPartCount() > 0) {
    for (size_t i = 0; i < body->getPartCount(); i++)
      walk(w, body->getPartAt(i));
    return;
  }
  decoded.clear();
  vmime::utility::outputStreamStringAdapter out(decoded);
  body->getContents()->extract(out);
  out.flush();
  w->parts++;
  if (body->getContentType().getType() == vmime::mediaTypes::TEXT) {
    converted.clear();
    vmime::charset::convert(decoded, converted, body->getCharset(), utf8);
    w->bytes += converted.size();
  } else {
    w->bytes += decoded.size();
  }
}

int vmime_run(mpb_work *work, int mode, const uint8_t *msg, size_t len) {
  try {
    auto in = vmime::make_shared<vmime::utility::inputStreamByteBufferAdapter>(
        reinterpret_cast<const vmime::byte_t *>(msg), len);
    auto m = vmime::make_shared<vmime::message>();
    m->parse(in, 0, len);
    if (mode == MPB_HEADERS) {
      // Header-only: the parse, then every field's name and value as text.
      auto h = m->getHeader();
      for (size_t i = 0; i < h->getFieldCount(); i++) {
        work->fields++;
        work->bytes +=
            h->getFieldAt(i)->getName().size() + h->getFieldAt(i)->getValue()->generate().size();
      }
    } else if (mode == MPB_HEADERS_TYPED) {
      type_header(work, m->getHeader());
    } else
      walk(work, m);
  } catch (...) {
    return -1;
  }
  return 0;
}

} // namespace

extern "C" const struct mpb_impl mpb_peer_vmime = {"vmime", nullptr, vmime_run};
