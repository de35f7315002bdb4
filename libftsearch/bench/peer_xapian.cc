// peer_xapian.cc: Xapian as the benchmark's peer: the same subjects and
// bodies indexed with positions (TermGenerator, Snowball stems of the
// document's language, CJK n-grams), the mailbox as a boolean term, and the
// same queries answered as all matching document ids in ascending order.
#include <xapian.h>

#include <memory>
#include <string>

#include "bench_internal.h"

static std::unique_ptr<Xapian::WritableDatabase> db;

static Xapian::Stem stemmer_for(const char *lang) {
  try {
    if (lang && *lang)
      return Xapian::Stem(lang);
  } catch (const Xapian::Error &) {
  }
  return Xapian::Stem();
}

extern "C" int peer_xapian_open(const char *dir, int overwrite) {
  try {
    db.reset(new Xapian::WritableDatabase(dir, overwrite ? Xapian::DB_CREATE_OR_OVERWRITE
                                                         : Xapian::DB_CREATE_OR_OPEN));
  } catch (const Xapian::Error &) {
    return -1;
  }
  return 0;
}

extern "C" int peer_xapian_add(uint32_t doc, const char *lang, const char *subject,
                               size_t subject_len, const char *body, size_t body_len,
                               int in_mailbox) {
  try {
    Xapian::TermGenerator tg;
    tg.set_stemmer(stemmer_for(lang));
    tg.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    tg.set_flags(Xapian::TermGenerator::FLAG_CJK_NGRAM);
    Xapian::Document d;
    tg.set_document(d);
    tg.index_text(std::string(body, body_len));
    tg.increase_termpos();
    tg.index_text(std::string(subject, subject_len), 1, "S");
    if (in_mailbox)
      d.add_boolean_term("XMB");
    db->replace_document(doc, d);
  } catch (const Xapian::Error &) {
    return -1;
  }
  return 0;
}

extern "C" int peer_xapian_commit(void) {
  try {
    db->commit();
  } catch (const Xapian::Error &) {
    return -1;
  }
  return 0;
}

// A word matches itself or its stem, as in libftsearch.
static Xapian::Query word_query(const Xapian::Stem &st, const char *w) {
  std::string stem = st(w);
  if (stem.empty() || stem == w)
    return Xapian::Query(w);
  return Xapian::Query(Xapian::Query::OP_OR, Xapian::Query(w), Xapian::Query("Z" + stem));
}

extern "C" long peer_xapian_query(const struct bench_query *q, int mailbox, uint32_t *out,
                                  size_t out_cap) {
  try {
    Xapian::Stem st = stemmer_for(q->lang);
    Xapian::Query query;
    switch (q->type) {
    case BQ_RARE:
    case BQ_COMMON:
      query = word_query(st, q->words[0]);
      break;
    case BQ_TWO:
      query = Xapian::Query(Xapian::Query::OP_AND, word_query(st, q->words[0]),
                            word_query(st, q->words[1]));
      break;
    case BQ_PHRASE: {
      Xapian::Query parts[2] = {Xapian::Query(q->words[0]), Xapian::Query(q->words[1])};
      query = Xapian::Query(Xapian::Query::OP_PHRASE, parts, parts + 2);
      break;
    }
    default:
      query = Xapian::Query(Xapian::Query::OP_WILDCARD, q->words[0]);
      break;
    }
    if (mailbox)
      query = Xapian::Query(Xapian::Query::OP_FILTER, query, Xapian::Query("XMB"));
    Xapian::Enquire enq(*db);
    enq.set_query(query);
    enq.set_weighting_scheme(Xapian::BoolWeight());
    enq.set_docid_order(Xapian::Enquire::ASCENDING);
    Xapian::MSet m = enq.get_mset(0, db->get_doccount());
    size_t n = 0;
    for (Xapian::MSetIterator it = m.begin(); it != m.end(); ++it) {
      if (n < out_cap)
        out[n] = *it;
      n++;
    }
    return (long)n;
  } catch (const Xapian::Error &) {
    return -1;
  }
}

extern "C" void peer_xapian_close(void) {
  if (db) {
    db->close();
    db.reset();
  }
}
