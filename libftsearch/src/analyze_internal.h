// analyze_internal.h: private hooks into the text analyzer for tests,
// fuzzers and benchmarks. Private to libftsearch.
#ifndef FTS_ANALYZE_INTERNAL_H
#define FTS_ANALYZE_INTERNAL_H

#include <stdbool.h>

#include "ftsearch.h"

// fts_analyzer_set_ascii_fast_path turns the pure-ASCII fast path on (the
// default) or off; off sends every chunk through utf8proc, which is the
// specification the fast path must match byte for byte.
void fts_analyzer_set_ascii_fast_path(fts_analyzer *analyzer, bool on);

// FTS_ANALYZE_MAX_MARKS is the longest run of combining marks kept (UAX #15
// stream-safe text format).
#define FTS_ANALYZE_MAX_MARKS 30

#endif // FTS_ANALYZE_INTERNAL_H
