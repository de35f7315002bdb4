// ftsearch.h: libftsearch, full-text search engine with positions and phrases.
//
// libftsearch is a general full-text search engine over documents with fields:
// tokenizer, stems (Snowball), prefixes, positions, phrase and boolean queries,
// zstd-compressed postings in LMDB. It knows documents, not mail.
//
// Threading: unless a function's comment says otherwise, every function is
// safe to call from any thread; handles are not shared between threads
// without the caller's locking.
//
// Ownership: borrowing is the default. A function takes ownership only where
// its comment says so; pointers it returns are non-owning unless the function
// is named *_new or *_dup.
//
// Errors: functions return 0 (or a count) on success and a negative code on
// failure: -errno for OS and resource errors (-1 to -4095), FTS_ERR_* for this
// library's own (FTS_ERR_* codes lie in -10500 to -10599).
// fts_strerror() describes any of them.
#ifndef FTS_FTSEARCH_H
#define FTS_FTSEARCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define FTS_API __attribute__((visibility("default")))
#define FTS_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define FTS_API
#define FTS_WARN_UNUSED_RESULT
#endif

// Version.
//
// The version of libftsearch alone; it changes only when this library does.
// FTS_VERSION_STRING is the single source of the version: the build reads it
// from this header for the shared object and the pkg-config file.

#define FTS_VERSION_MAJOR 0
#define FTS_VERSION_MINOR 1
#define FTS_VERSION_PATCH 0
#define FTS_VERSION_STRING "0.1.0"
#define FTS_VERSION_NUMBER (FTS_VERSION_MAJOR * 10000 + FTS_VERSION_MINOR * 100 + FTS_VERSION_PATCH)

// fts_version returns the version of the library loaded at run time, as
// FTS_VERSION_NUMBER does at compile time (major * 10000 + minor * 100 + patch).
// A program can compare the two to detect a mismatched shared library.
FTS_API unsigned fts_version(void);

// fts_version_string returns the run-time version as a static string, e.g.
// "0.1.0".
FTS_API const char *fts_version_string(void);

// Errors.

enum {
  FTS_ERR_INVALID_ARGUMENT = -10500,
  FTS_ERR_NOTFOUND = -10501,
  FTS_ERR_QUERY_SYNTAX = -10502,
  FTS_ERR_LIMIT = -10503,
  FTS_ERR_CORRUPT = -10504,
  FTS_ERR_UNSUPPORTED = -10505,
};

// fts_strerror returns a static, NUL-terminated description of `code`: 0, a
// negative errno value or one of:
//   FTS_ERR_INVALID_ARGUMENT: invalid argument.
//   FTS_ERR_NOTFOUND: no such document.
//   FTS_ERR_QUERY_SYNTAX: malformed query.
//   FTS_ERR_LIMIT: a configured limit was exceeded.
//   FTS_ERR_CORRUPT: the index on disk is corrupt.
//   FTS_ERR_UNSUPPORTED: unsupported language, format or feature.
// Any other value gives "unknown error". It never returns NULL and is
// thread-safe.
FTS_API const char *fts_strerror(int code);

// Text analysis.
//
// The analyzer turns UTF-8 text into the terms that the index stores and that
// queries look up; indexing, query parsing and any brute-force check must use
// the same analyzer settings to agree. ANALYSIS.md gives every rule with
// examples; in short:
//
//  - Text is cut into chunks at ASCII white space; a chunk that holds any
//    non-ASCII byte is normalised as a whole (NFKC, full case folding, default
//    ignorables such as the soft hyphen removed, combining marks removed too
//    with FTS_ANALYZE_FOLD_ACCENTS); a pure-ASCII chunk is only lower-cased,
//    which gives the same bytes. Words are then found in the normalised text.
//  - A word is a run of letters, marks and digits (Unicode categories L, M,
//    N) outside the CJK and Southeast Asian scripts. Everything else
//    separates words.
//  - Compounds: words joined by single joiners are emitted whole at the
//    position p of their first part, then each part at p, p+1, ... (the next
//    word follows the last part):
//      hyphen, underscore, apostrophe (' or U+2019, written '): whole, then the
//        parts joined without joiners, then the parts:
//        "don't" -> don't@p dont@p don@p t@p+1
//      a dot between words ("node.js", "e.g"): whole, then the parts;
//      an e-mail address local@host.tld: whole, then local part and host
//        labels split into words: alice@example.com@p alice@p example@p+1
//        com@p+2;
//      URLs (http://, https://, ftp://): the whole URL without trailing
//        punctuation, then the words of host and path (not the scheme);
//      numbers: digits joined by '.' or ',' ("3.14", "1,000") are one term.
//  - CJK (Han, Hiragana, Katakana, Hangul, Bopomofo) runs give overlapping
//    bigrams, one position each; a lone CJK character gives itself. Thai,
//    Lao, Khmer and Myanmar runs likewise give bigrams of letters, each
//    letter with the vowel signs and tone marks that follow it.
//  - A word longer than max_term_bytes (after normalisation) is dropped but
//    keeps its position, so phrases never match across it.
//  - Stems: each word (and each part of a compound) that holds a letter is
//    stemmed with the Snowball stemmer of the language; the stem follows the
//    word at the same position when it differs from it. Compounds as a whole,
//    numbers and CJK are not stemmed.
//
// Cost: linear in the input. A run of more than 30 combining marks keeps its
// first 30 (the stream-safe bound of UAX #15), and a chunk without white
// space is normalised in pieces of at most FTS_ANALYZE_MAX_CHUNK bytes, cut
// between two ASCII bytes where possible.

// fts_term_kind says what a term stands for.
enum fts_term_kind {
  FTS_TERM_WORD = 0, // a word as written, normalised (NFKC, case-folded)
  FTS_TERM_STEM = 1, // the Snowball stem of the word at the same position,
                     // emitted only when it differs from the word
};

// fts_term is one term of analysed text. `bytes` (normalised UTF-8, not
// NUL-terminated) is valid only during the callback that receives it.
// `position` counts words from 0 within one fts_analyze call; a stem has its
// word's position; e-mail addresses and URLs are emitted whole and then as
// parts (see the rules above); CJK text yields overlapping bigrams, one
// position each.
typedef struct fts_term {
  const uint8_t *bytes;
  size_t len;
  uint32_t position;
  uint8_t kind; // enum fts_term_kind
} fts_term;

// fts_term_fn receives each term in order of position (a stem right after
// its word). A non-zero return stops the analysis, and fts_analyze returns
// that value.
typedef int (*fts_term_fn)(void *ctx, const fts_term *term);

// FTS_ANALYZE_DEFAULT_MAX_TERM_BYTES is the default max_term_bytes.
#define FTS_ANALYZE_DEFAULT_MAX_TERM_BYTES 64u
// FTS_ANALYZE_MAX_TERM_BYTES is the largest max_term_bytes accepted.
#define FTS_ANALYZE_MAX_TERM_BYTES 4096u
// FTS_ANALYZE_DEFAULT_MAX_TERMS is the default max_terms.
#define FTS_ANALYZE_DEFAULT_MAX_TERMS 1000000u
// FTS_ANALYZE_MAX_CHUNK is the largest piece of text normalised at once.
#define FTS_ANALYZE_MAX_CHUNK 65536u

// fts_analyzer_settings: zero means the default for every field.
typedef struct fts_analyzer_settings {
  uint32_t flags;          // FTS_ANALYZE_* below
  uint32_t max_term_bytes; // longer words are dropped; default 64, at most
                           // FTS_ANALYZE_MAX_TERM_BYTES
  uint32_t max_terms;      // terms per call before FTS_ERR_LIMIT; default 1,000,000
} fts_analyzer_settings;

// FTS_ANALYZE_FOLD_ACCENTS strips combining marks (e, é, è alike) and folds
// the letters that have no decomposition: ø → o, æ → ae, œ → oe, þ → th,
// ł → l, đ and ð → d, ħ → h, ŧ → t (ß is ss with or without it).
#define FTS_ANALYZE_FOLD_ACCENTS 0x1u
#define FTS_ANALYZE_NO_STEMS 0x2u // emit words only

typedef struct fts_analyzer fts_analyzer;

// fts_analyzer_new allocates an analyzer with `settings` (NULL means all
// defaults; the struct is copied) and stores it in `*out`; free it with
// fts_analyzer_free. Snowball stemmers are created lazily, one per language,
// on first use, with a cache of recent stems (about 420 KiB, shared by the
// languages); analysis then allocates only to grow its scratch buffers. Errors: -ENOMEM;
// FTS_ERR_INVALID_ARGUMENT when `out` is NULL, `flags` has unknown bits or max_term_bytes exceeds
// FTS_ANALYZE_MAX_TERM_BYTES. Thread-safe (each call makes its own analyzer).
FTS_API FTS_WARN_UNUSED_RESULT int fts_analyzer_new(fts_analyzer **out,
                                                    const fts_analyzer_settings *settings);

// fts_analyzer_free frees `analyzer` and its stemmers; NULL is a no-op.
FTS_API void fts_analyzer_free(fts_analyzer *analyzer);

// fts_analyze analyses `text_len` bytes of UTF-8 `text` (borrowed; NULL only
// when text_len is 0) and calls `fn(ctx, term)` for each term in order of
// position (see the rules at the top of this section). `lang` is an ISO 639-1
// code: one of the Snowball languages ar, ca, da, de, el, en, es, eu, fi, fr,
// ga, hi, hu, hy, id, it, lt, ne, nl, no (nb and nn too), pt, ro, ru, sr, sv,
// ta, tr, yi (words and stems), or a language that fts_language_detect can
// name without a stemmer (words only); NULL detects the language of this text
// (in its first 16 KiB) and "" means English. Invalid UTF-8 is replaced by
// U+FFFD (a separator), never an error.
//
// Returns 0, or: the callback's non-zero return value; FTS_ERR_LIMIT after
// max_terms terms have been delivered and more would follow, or for text
// longer than UINT32_MAX bytes (nothing delivered);
// FTS_ERR_UNSUPPORTED for an unknown `lang`; FTS_ERR_INVALID_ARGUMENT for a
// NULL `analyzer` or `fn`, or NULL `text` with a non-zero length; -ENOMEM.
// Terms delivered before an error stay delivered.
//
// Thread-safety: an analyzer is used by one thread at a time (Snowball
// stemmers are not thread-safe); different analyzers may run in parallel.
FTS_API FTS_WARN_UNUSED_RESULT int fts_analyze(fts_analyzer *analyzer, const char *lang,
                                               const uint8_t *text, size_t text_len, fts_term_fn fn,
                                               void *ctx);

// fts_analyzer_language returns the ISO 639-1 code of the language that the
// last fts_analyze call on `analyzer` used for stemming ("en" when it was
// given "" or could not tell, "" before the first call), as a static string.
// An index can store it per field so that later queries stem alike.
// Same thread rule as fts_analyze.
FTS_API const char *fts_analyzer_language(const fts_analyzer *analyzer);

// fts_language_detect writes into `out` the ISO 639-1 code (NUL-terminated,
// at most 3 bytes + NUL) of the most likely language of `text_len` bytes of
// UTF-8 `text` (only its first 16 KiB are read), or "" when the text is too
// short to tell (fewer than three words, or no evidence). The model is
// built in: the writing system first (Cyrillic, Greek, Arabic, Hebrew,
// Armenian, Devanagari, Tamil, Han, Kana, Hangul, Thai, Georgian), then
// frequent-word profiles and letters peculiar to one language. It names at
// least every Snowball language (ar ca da de el en es eu fi fr ga hi hu hy
// id it lt ne nl no pt ro ru sr sv ta tr yi) and also bg uk pl cs sk he fa
// ja ko zh th ka. Returns 0, or FTS_ERR_INVALID_ARGUMENT when `out` is NULL
// or `text` is NULL with a non-zero length. Thread-safe.
FTS_API FTS_WARN_UNUSED_RESULT int fts_language_detect(const uint8_t *text, size_t text_len,
                                                       char out[4]);

// Index.
//
// An fts_index is one LMDB environment (one file plus its "-lock" file)
// holding the full-text indexes of many accounts. Within an account the
// caller numbers documents (uint32_t, e.g. the store's message id); a
// document has up to FTS_MAX_FIELDS fields, each analysed with the index's
// analyzer into words, stems and positions. Postings are kept per (account,
// field, term kind, term) in blocks of FTS_BLOCK_DOCS documents, so a search
// restricted to some documents reads only the blocks those documents fall
// in. Writes go through an fts_batch: documents are analysed into memory and
// merged into LMDB in one write transaction by fts_batch_commit(), so a batch
// is applied entirely or not at all, also across a crash.

// FTS_BLOCK_DOCS is the number of document ids one posting block covers:
// document `doc` is in block doc / FTS_BLOCK_DOCS.
#define FTS_BLOCK_DOCS 65536u

// FTS_MAX_FIELDS bounds field ids: a field is 0 … FTS_MAX_FIELDS - 1.
#define FTS_MAX_FIELDS 16u

// Field ids of the mail convention; the engine treats every field alike.
enum fts_field {
  FTS_FIELD_FROM = 0,
  FTS_FIELD_TO = 1,
  FTS_FIELD_CC = 2,
  FTS_FIELD_BCC = 3,
  FTS_FIELD_SUBJECT = 4,
  FTS_FIELD_BODY = 5,
  FTS_FIELD_ATTACHMENT = 6,
  FTS_FIELD_HEADERS = 7,
};

// FTS_FIELD_MASK_ALL selects every field (bit 1 << field per field).
#define FTS_FIELD_MASK_ALL 0xffffu

// fts_field_name returns the static lower-case name of `field` ("from",
// "body", …, "field8" … "field15"), or NULL when `field` >= FTS_MAX_FIELDS.
// Thread-safe.
FTS_API const char *fts_field_name(unsigned field);

// fts_field_lookup returns the field id named by the `name_len` bytes at
// `name` (a name fts_field_name() returns, any case), or -1. Thread-safe.
FTS_API int fts_field_lookup(const char *name, size_t name_len);

// FTS_DEFAULT_MAP_SIZE is the default largest size of the index file (LMDB
// map size; the file grows as needed up to it).
#define FTS_DEFAULT_MAP_SIZE (64ull << 30)
// FTS_DEFAULT_MAX_READERS is the default number of concurrent read
// transactions (searches) across all processes. A handle keeps up to four
// finished ones for reuse, each holding its slot; its own later reads take
// those first.
#define FTS_DEFAULT_MAX_READERS 254u
// FTS_DEFAULT_MAX_BATCH_BYTES is the default memory one batch may hold
// (analysed postings) before fts_batch_add() returns FTS_ERR_LIMIT.
#define FTS_DEFAULT_MAX_BATCH_BYTES (1024u << 20)
// FTS_DEFAULT_MAX_PREFIX_TERMS is the default number of dictionary terms one
// prefix may expand to before a search returns FTS_ERR_LIMIT.
#define FTS_DEFAULT_MAX_PREFIX_TERMS 20000u

// Index flags (fts_index_settings.flags).
#define FTS_INDEX_READ_ONLY 0x1u // open for searching only (MDB_RDONLY)
#define FTS_INDEX_NO_SYNC                                                                          \
  0x2u // commits skip fsync: fast bulk builds, a
       // crash may lose (never tear) the last batches

// fts_index_settings holds the index's limits; a 0 field means the default.
// `analyzer` configures the analysis of documents and queries alike; it is
// a property of the index's content, so open an index always with the same
// analyzer settings (the index does not record them).
typedef struct fts_index_settings {
  uint64_t map_size;         // FTS_DEFAULT_MAP_SIZE
  uint32_t max_readers;      // FTS_DEFAULT_MAX_READERS
  uint32_t max_batch_bytes;  // FTS_DEFAULT_MAX_BATCH_BYTES
  uint32_t max_prefix_terms; // FTS_DEFAULT_MAX_PREFIX_TERMS
  uint32_t flags;            // FTS_INDEX_*
  fts_analyzer_settings analyzer;
} fts_index_settings;

typedef struct fts_index fts_index;

// fts_index_open opens (creating it unless FTS_INDEX_READ_ONLY) the index
// file at `path` and stores a new handle in `*out`, to be released with
// fts_index_close(). `settings` may be NULL for every default. Returns 0,
// FTS_ERR_INVALID_ARGUMENT (NULL `out` or `path`), FTS_ERR_CORRUPT (not an
// index file), -ENOMEM, or another -errno from opening the file. An open
// refused because `path` is missing, a directory or not an index file
// leaves no "<path>-lock" file behind. The handle is thread-safe for
// searches; batches serialise on the write lock.
FTS_API FTS_WARN_UNUSED_RESULT int fts_index_open(fts_index **out, const char *path,
                                                  const fts_index_settings *settings);

// fts_index_close closes `index` (NULL does nothing). No batch or search may
// still be running on it.
FTS_API void fts_index_close(fts_index *index);

// fts_doc_field is one field of a document to index: `text` (`text_len`
// bytes of UTF-8, borrowed for the call) in field `field`, analysed in
// language `lang` (ISO 639-1, or NULL to detect it).
typedef struct fts_doc_field {
  uint32_t field;
  const char *lang;
  const uint8_t *text;
  size_t text_len;
} fts_doc_field;

typedef struct fts_batch fts_batch;

// fts_batch_new starts a new, empty batch of changes to `index` in `*out`,
// released with fts_batch_free(). Nothing reaches the index before
// fts_batch_commit(). Returns 0, FTS_ERR_INVALID_ARGUMENT (NULL argument,
// read-only index) or -ENOMEM. A batch is used by one thread at a time.
FTS_API FTS_WARN_UNUSED_RESULT int fts_batch_new(fts_index *index, fts_batch **out);

// fts_batch_free discards `batch` and whatever it holds uncommitted (NULL
// does nothing).
FTS_API void fts_batch_free(fts_batch *batch);

// fts_batch_add analyses the `num_fields` fields of document `doc` of
// `account` into `batch`. When the commit finds `doc` already indexed, the new
// text replaces the old (reindexing). A document may be added once per batch
// (FTS_ERR_INVALID_ARGUMENT the second time). Returns 0 or:
//   FTS_ERR_INVALID_ARGUMENT: NULL `batch`, NULL `fields` with `num_fields`
//     > 0, a field id >= FTS_MAX_FIELDS.
//   FTS_ERR_LIMIT: the batch would exceed max_batch_bytes or a field the
//     analyzer's max_terms (the document is then not in the batch; the
//     memory its analysis took stays counted until the next commit, which
//     releases it even when the batch holds no document: commit, then go
//     on; with fts_batch_num_docs() 0, the document alone is too large).
//   FTS_ERR_UNSUPPORTED: the analyzer refused a language.
//   -ENOMEM.
FTS_API FTS_WARN_UNUSED_RESULT int fts_batch_add(fts_batch *batch, uint32_t account, uint32_t doc,
                                                 const fts_doc_field *fields, size_t num_fields);

// fts_batch_delete records the deletion of document `doc` of `account`; a
// document added earlier in the same batch is dropped from it. Deleting a
// document that is not indexed does nothing. The commit removes the document
// from every search at once and marks its postings in a per-block deleted
// bitmap; fts_index_merge() purges them. Returns 0, FTS_ERR_INVALID_ARGUMENT
// or -ENOMEM.
FTS_API FTS_WARN_UNUSED_RESULT int fts_batch_delete(fts_batch *batch, uint32_t account,
                                                    uint32_t doc);

// fts_batch_num_docs returns the number of documents added to or deleted in
// `batch` since it was created or last committed; fts_batch_bytes the memory
// its postings hold. Use them to size batches (tens of thousands of documents
// per commit index fastest).
FTS_API size_t fts_batch_num_docs(const fts_batch *batch);
FTS_API size_t fts_batch_bytes(const fts_batch *batch);

// fts_batch_commit applies `batch` to its index in one LMDB write
// transaction and leaves the batch empty for reuse. Replacing a document
// purges its old postings first (the blocks it lies in are merged).
// Returns 0, or on failure leaves the index as it was and the batch unchanged:
//   FTS_ERR_INVALID_ARGUMENT: NULL `batch`.
//   FTS_ERR_LIMIT: the index file reached map_size.
//   FTS_ERR_CORRUPT: a stored value did not decode.
//   -ENOMEM, -EIO, or another -errno from LMDB.
// Write transactions of all handles and processes on one file serialise.
FTS_API FTS_WARN_UNUSED_RESULT int fts_batch_commit(fts_batch *batch);

// fts_index_merge rewrites the posting blocks of `account` that hold deleted
// documents without them, in one write transaction, and returns the number
// of blocks rewritten (>= 0) or FTS_ERR_CORRUPT, FTS_ERR_LIMIT, -ENOMEM or
// another -errno (the index is then unchanged). Searches never see deleted
// documents, merged or not; merging reclaims their space.
FTS_API FTS_WARN_UNUSED_RESULT int fts_index_merge(fts_index *index, uint32_t account);

// fts_index_stats describes one account (fts_index_account_stats).
typedef struct fts_index_stats {
  uint64_t num_docs;                    // live documents
  uint64_t num_deleted;                 // deleted documents whose postings await a merge
  uint64_t num_blocks;                  // blocks with live documents
  uint64_t num_postings;                // posting-block entries (term, block) of the account
  uint64_t posting_bytes;               // bytes of those entries' values
  uint64_t field_terms[FTS_MAX_FIELDS]; // words indexed per field (BM25 lengths)
} fts_index_stats;

// fts_index_account_stats fills `out` for `account` (all zero for an unknown
// account; counting postings walks the account's dictionary). Returns 0,
// FTS_ERR_INVALID_ARGUMENT, FTS_ERR_CORRUPT or another -errno. Thread-safe.
FTS_API FTS_WARN_UNUSED_RESULT int fts_index_account_stats(fts_index *index, fts_index_stats *out,
                                                           uint32_t account);

// fts_index_docs_list writes up to `out_cap` of the documents of `account`
// that are indexed (added and not deleted), in ascending order from
// `first_doc` on, to `out` and their number to `*out_len`, from one read
// snapshot. Page by calling again with the last document + 1; fewer than
// `out_cap` means the end. A rebuild uses it to find documents its source no
// longer has. Returns 0, FTS_ERR_INVALID_ARGUMENT (NULL `index` or
// `out_len`, NULL `out` with `out_cap` > 0), FTS_ERR_CORRUPT (a damaged
// page) or another -errno. Thread-safe.
FTS_API FTS_WARN_UNUSED_RESULT int fts_index_docs_list(fts_index *index, uint32_t *out,
                                                       size_t out_cap, size_t *out_len,
                                                       uint32_t account, uint32_t first_doc);

// fts_index_file_size returns the bytes the index file occupies (pages in
// use), or a negative error. Thread-safe.
FTS_API int64_t fts_index_file_size(fts_index *index);

// Queries.
//
// The query language: words (AND is implied between them), "exact phrases",
// prefix* (words beginning so), AND, OR, NOT (also -word), parentheses, and
// field:word, field:"phrase", field:prefix* or field:(…) to look in one field
// (names as fts_field_name() gives them). OR binds more loosely than AND; NOT
// applies to the next word, phrase or group. Keywords are upper case; lower
// case "and"/"or"/"not" are words.
//
// Matching: every query word is analysed as documents are. A word w with stem
// s matches a document holding w, or a word whose stem is s, or the word s.
// Without a query language (fts_search_options.lang NULL), each query word
// is stemmed once per language that the fields it searches were stemmed in
// for the account (the index keeps that list per account and field), and
// each stem matches in the fields stemmed in its language: a short query
// says too little to detect its own language. (An index written before the list existed falls back
// to detection.) A phrase matches its words at consecutive positions, as written (no stems); a
// prefix matches words of the dictionary that begin with it.

// FTS_DEFAULT_MAX_QUERY_LEN is the default longest query, in bytes.
#define FTS_DEFAULT_MAX_QUERY_LEN 4096u
// FTS_DEFAULT_MAX_QUERY_DEPTH is the default deepest nesting of parentheses
// and NOT.
#define FTS_DEFAULT_MAX_QUERY_DEPTH 32u
// FTS_DEFAULT_MAX_QUERY_TERMS is the default number of words, phrases and
// prefixes in one query.
#define FTS_DEFAULT_MAX_QUERY_TERMS 64u

// fts_query_settings holds the parser's limits; a 0 field means the default.
typedef struct fts_query_settings {
  uint32_t max_len;   // FTS_DEFAULT_MAX_QUERY_LEN
  uint32_t max_depth; // FTS_DEFAULT_MAX_QUERY_DEPTH
  uint32_t max_terms; // FTS_DEFAULT_MAX_QUERY_TERMS
} fts_query_settings;

typedef struct fts_query fts_query;

// fts_query_parse parses the `in_len` bytes of UTF-8 at `in` into a new query
// in `*out`, released with fts_query_free(); the query copies what it needs
// from `in`. `settings` may be NULL. On failure `*out` is NULL and, if
// `err_off` is not NULL, `*err_off` is the byte offset of the problem.
// Returns 0 or:
//   FTS_ERR_INVALID_ARGUMENT: NULL `out`, or NULL `in` with `in_len` > 0.
//   FTS_ERR_QUERY_SYNTAX: unbalanced parentheses or quotes, an operator
//     without operand, a field name with nothing after its ':', field:-word
//     (write -field:word), or an empty query. A name that is not a field
//     keeps its ':' as part of the word (URLs, times); "NOT x" alone is
//     valid and means every document without x. NUL bytes separate words.
//   FTS_ERR_LIMIT: longer than max_len, deeper than max_depth, more terms
//     than max_terms.
//   -ENOMEM.
// Thread-safe; parsing is linear in `in_len`.
FTS_API FTS_WARN_UNUSED_RESULT int fts_query_parse(fts_query **out,
                                                   const fts_query_settings *settings,
                                                   const char *in, size_t in_len, size_t *err_off);

// fts_query_free releases `query` (NULL does nothing).
FTS_API void fts_query_free(fts_query *query);

// fts_query_describe writes a canonical, fully parenthesised form of `query`
// into `out` (room for `out_cap` bytes, NUL included) and sets `*out_len` to
// its length without the NUL; parsing that text gives the same description.
// Returns 0, FTS_ERR_INVALID_ARGUMENT or FTS_ERR_LIMIT (too small: `*out_len`
// is then the length needed). Thread-safe.
FTS_API FTS_WARN_UNUSED_RESULT int fts_query_describe(const fts_query *query, char *out,
                                                      size_t out_cap, size_t *out_len);

// fts_explain_fn receives one NUL-terminated line of a search's explanation
// (what a leaf expanded to and how many documents it matched). The counts
// are of the blocks where the leaf was evaluated: AND passes over the rest
// of its children once its result is empty, so a leaf's count can depend on
// its place in the query. A prefix's expansion counts (field, term) pairs.
typedef void (*fts_explain_fn)(void *ctx, const char *line);

typedef struct fts_filter fts_filter;

// fts_filter_new prepares the `num_docs` document ids at `docs` (ascending,
// no duplicates; copied) as a filter for fts_search_options.prepared, in
// `*out`, released with fts_filter_free(). A prepared filter costs nothing
// per search beyond the blocks it touches, where a plain filter array is
// converted on every call: prepare one per mailbox that is searched more
// than once. Returns 0, FTS_ERR_INVALID_ARGUMENT (NULL `out`, NULL `docs`
// with `num_docs` > 0, unsorted ids) or -ENOMEM. A filter is immutable and
// may be shared by threads.
FTS_API FTS_WARN_UNUSED_RESULT int fts_filter_new(fts_filter **out, const uint32_t *docs,
                                                  size_t num_docs);

// fts_filter_free releases `filter` (NULL does nothing).
FTS_API void fts_filter_free(fts_filter *filter);

// fts_search_options: all-zero (or a NULL pointer) searches every field of
// every document, unranked.
typedef struct fts_search_options {
  uint32_t field_mask;    // fields for words without field:; 0 = all
  const char *lang;       // language to analyse the query in; NULL: detect,
                          // and stem a lone word in the fields' languages
  const uint32_t *filter; // if not NULL: only these documents, sorted
  size_t num_filter;      // ascending, no duplicates (else INVALID_ARGUMENT)
  uint32_t top_k;         // > 0: rank by BM25 (a prefix as the sum over
                          // its expansions; SEARCH.md), keep the best top_k
  fts_explain_fn explain; // optional
  void *explain_ctx;
  const fts_filter *prepared; // if not NULL: only these documents (and
                              // those of `filter`, when both are given)
} fts_search_options;

// fts_result is an allocated search result: `docs` in ascending order, or by
// falling BM25 score when ranked (then `scores` holds the scores, else it is
// NULL).
typedef struct fts_result {
  uint32_t *docs;
  float *scores;
  size_t num_docs;
} fts_result;

// FTS_MAX_PHRASE_WORDS bounds the words of one phrase (after analysis):
// checking a phrase in a block takes up to 16 bytes per word and document
// of its rarest word there, at most 64 MiB.
#define FTS_MAX_PHRASE_WORDS 64u

// fts_search evaluates `query` over `account` and stores a new result in
// `*out`, released with fts_result_free(). `options` may be NULL. Only the
// posting blocks of the filter's documents are read. Returns 0 or:
//   FTS_ERR_INVALID_ARGUMENT: NULL `index`, `out` or `query`; an unsorted
//     filter; a field mask without a field below FTS_MAX_FIELDS.
//   FTS_ERR_LIMIT: a prefix expands to more than max_prefix_terms terms;
//     a phrase has more than FTS_MAX_PHRASE_WORDS words.
//   FTS_ERR_CORRUPT: a stored value did not decode.
//   FTS_ERR_UNSUPPORTED: the analyzer refused the language.
//   -ENOMEM or another -errno.
// Thread-safe: any number of threads may search one index, also while a
// batch commits (they see the index as of the start of their search).
FTS_API FTS_WARN_UNUSED_RESULT int fts_search(fts_index *index, fts_result **out, uint32_t account,
                                              const fts_query *query,
                                              const fts_search_options *options);

// fts_search_into is fts_search() writing the document ids into the caller's
// `out` (room for `out_cap`) and their count to `*out_len`. If they do not
// fit it returns FTS_ERR_LIMIT with `*out_len` set to the number needed and
// `out` unspecified. Other errors as fts_search().
FTS_API FTS_WARN_UNUSED_RESULT int fts_search_into(fts_index *index, uint32_t *out, size_t out_cap,
                                                   size_t *out_len, uint32_t account,
                                                   const fts_query *query,
                                                   const fts_search_options *options);

// fts_result_free releases `result` (NULL does nothing).
FTS_API void fts_result_free(fts_result *result);

// fts_text_fn hands the substring check the text of field `field` of
// document `doc`: it sets `*text`/`*text_len` (UTF-8, valid until the next
// call or the end of the search) and returns 0, 1 if the document has no
// such text, or a negative error that stops the search and is returned.
typedef int (*fts_text_fn)(void *ctx, uint32_t doc, uint32_t field, const uint8_t **text,
                           size_t *text_len);

// fts_search_substring answers an IMAP SEARCH BODY/TEXT criterion strictly
// (SEARCH.md): documents of `account` in whose fields of `field_mask` (0 =
// all) the `needle_len` bytes at `needle` occur as a substring, ignoring case
// (both sides normalised to NFKC case-folded form). Candidates are the
// documents holding, for every word of the needle, a word that begins with
// it; each is then checked through `text_fn`. So a needle is found where it
// begins at the start of a word (not "voice" inside "invoice"; SEARCH.md). A
// needle without words is checked against every document (or the filter);
// a needle word whose prefix expands beyond max_prefix_terms does not narrow
// the candidates, and then occurrences inside words are found as well, as
// RFC 3501 asks ("re" in "here"). `options` as for fts_search(), without
// ranking; `*out` is a new result in ascending order. Errors as fts_search(),
// plus the negative value `text_fn` returned.
FTS_API FTS_WARN_UNUSED_RESULT int fts_search_substring(fts_index *index, fts_result **out,
                                                        uint32_t account, const uint8_t *needle,
                                                        size_t needle_len,
                                                        const fts_search_options *options,
                                                        fts_text_fn text_fn, void *text_ctx);

#ifdef __cplusplus
}
#endif

#endif // FTS_FTSEARCH_H
