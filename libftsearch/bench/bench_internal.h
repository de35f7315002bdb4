// bench_internal.h: the interface between bench_ftsearch.c and its peer
// (Xapian, C++), so that both index the same texts and answer the same
// queries in one run.
#ifndef FTS_BENCH_INTERNAL_H
#define FTS_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum bench_qtype { BQ_RARE, BQ_COMMON, BQ_TWO, BQ_PHRASE, BQ_PREFIX, BQ_NUM };

// bench_query is one benchmark query: one word (rare/common), two words, a
// phrase of two words or a prefix, in language `lang` (ISO 639-1).
struct bench_query {
  int type;
  char lang[4];
  char words[2][64];
  char text[160]; // the query in libftsearch's syntax
};

// The peer: 0 on success, negative on failure; query returns the number of
// matching documents, their ids ascending in `out` (room for `out_cap`).
// open empties the database at `dir` when `overwrite` is set, else reopens it.
int peer_xapian_open(const char *dir, int overwrite);
int peer_xapian_add(uint32_t doc, const char *lang, const char *subject, size_t subject_len,
                    const char *body, size_t body_len, int in_mailbox);
int peer_xapian_commit(void);
long peer_xapian_query(const struct bench_query *q, int mailbox, uint32_t *out, size_t out_cap);
void peer_xapian_close(void);

#ifdef __cplusplus
}
#endif

#endif // FTS_BENCH_INTERNAL_H
