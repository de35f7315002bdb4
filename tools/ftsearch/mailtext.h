// mailtext.h: one message to the text of its search fields, through
// libmailparse: From/To/Cc/Bcc/Subject decoded to UTF-8, Reply-To, Sender,
// List-Id, Organization, Keywords and Comments as "headers", the body's text
// parts (HTML turned to text, charsets converted), attachment names and
// text. Shared by the ftsearch tool, servers/common's indexer, libftsearch's
// oracle test and its benchmark; the glue that ARCHITECTURE.md keeps out of the library.
#ifndef FTSEARCH_MAILTEXT_H
#define FTSEARCH_MAILTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "ftsearch.h"

struct ftm_field {
  char *p;
  size_t len, cap;
};

// ftm_text holds one message's fields, reused from message to message.
struct ftm_text {
  struct ftm_field f[FTS_MAX_FIELDS];
  char *scratch; // conversion buffer
  size_t scratch_cap;
};

// ftm_extract replaces the fields of `t` with those of the message `msg`
// (`len` bytes). Returns 0, -ENOMEM or a libmailparse error.
int ftm_extract(struct ftm_text *t, const uint8_t *msg, size_t len);

// ftm_fields fills `out` (FTS_MAX_FIELDS entries) with the non-empty fields
// of `t` for fts_batch_add() and returns their number.
size_t ftm_fields(const struct ftm_text *t, fts_doc_field *out);

void ftm_free(struct ftm_text *t);

// ftm_read_file reads the whole file at `path` into a new buffer.
int ftm_read_file(const char *path, uint8_t **out, size_t *out_len);

// FTM_PATH_MAX bounds the paths ftm_list builds.
#define FTM_PATH_MAX 4096

// ftm_list lists a Maildir (cur/ and new/, sorted by name) or a directory of
// .eml files (sorted) into a new array of new paths; subdirectories are
// not messages and are left out. Returns 0 or -errno; then, when `failed`
// is not NULL, it holds the directory that could not be read (dir, or its
// cur/ or new/).
int ftm_list(const char *dir, char ***out, size_t *num_out, char failed[FTM_PATH_MAX]);
void ftm_list_free(char **paths, size_t num);

#endif // FTSEARCH_MAILTEXT_H
