// fuzz_select.c: parses any input, selects the text body, HTML body and
// attachments of the message and of every attached message, and checks the
// promises of RFC 8621's algorithm as select.c implements it: every index is
// a leaf of the selected subtree and not inside an attached message, each
// list is in part order without duplicates, a part is in a body list and in
// the attachments only when it is image/audio/video, body lists hold only
// text/plain, text/html and media, the exact array size is enough and one
// less is not, the result is deterministic, filenames are valid UTF-8 and
// agree with their size query, and the preview is valid UTF-8 of at most
// 256 characters with its white space collapsed.
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "corvid_utf8_valid.h"
#include "mailparse.h"

static bool is(mp_str s, const char *lit) {
  return s.p != NULL && s.len == strlen(lit) && memcmp(s.p, lit, s.len) == 0;
}

static bool is_media(const mp_part *p) {
  return is(p->type, "image") || is(p->type, "audio") || is(p->type, "video");
}

static bool is_body_type(const mp_part *p) {
  return is_media(p) ||
         (is(p->type, "text") && (is(p->subtype, "plain") || is(p->subtype, "html")));
}

// under_root says whether `ix` lies in the subtree of `root` without an
// attached message (a MP_PART_MESSAGE part) strictly between them.
static bool under_root(const mp_message *m, uint32_t ix, uint32_t root) {
  if (ix == root)
    return true;
  for (uint32_t p = mp_message_part(m, ix)->parent; p != MP_NO_INDEX;
       p = mp_message_part(m, p)->parent) {
    if (p == root)
      return true;
    if (mp_message_part(m, p)->flags & MP_PART_MESSAGE)
      return false;
  }
  return false;
}

static bool contains(const uint32_t *a, size_t n, uint32_t v) {
  for (size_t i = 0; i < n; i++)
    if (a[i] == v)
      return true;
  return false;
}

static void check_list(const mp_message *m, const uint32_t *a, size_t n, uint32_t root, bool body) {
  for (size_t i = 0; i < n; i++) {
    FUZZ_CHECK(a[i] < mp_message_num_parts(m));
    FUZZ_CHECK(i == 0 || a[i] > a[i - 1]);
    const mp_part *p = mp_message_part(m, a[i]);
    FUZZ_CHECK(!(p->flags & MP_PART_MULTIPART));
    FUZZ_CHECK(under_root(m, a[i], root));
    if (body)
      FUZZ_CHECK(is_body_type(p));
  }
}

static void check_preview(const mp_message *m, const mp_selection *sel) {
  char out[MP_PREVIEW_MAX_LEN];
  size_t n = 0;
  int rc = mp_message_preview(m, out, sizeof out, &n, sel);
  FUZZ_CHECK(rc == 0);
  FUZZ_CHECK(n <= sizeof out && corvid_utf8_valid((const uint8_t *)out, n));
  size_t chars = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = (uint8_t)out[i];
    chars += (c & 0xc0) != 0x80;
    FUZZ_CHECK(c >= 0x20 && c != 0x7f);
    if (c == ' ')
      FUZZ_CHECK(i > 0 && i + 1 < n && out[i + 1] != ' ');
  }
  FUZZ_CHECK(chars <= MP_PREVIEW_MAX_CHARS);
}

static void check_root(const mp_message *m, uint32_t root) {
  size_t cap = mp_message_select_max_len(m);
  uint32_t *idx = malloc(cap * sizeof *idx), *idx2 = malloc(cap * sizeof *idx2);
  mp_selection sel, sel2;
  int rc = mp_message_select(m, &sel, idx, cap, root);
  if (rc == MP_ERR_LIMIT) {
    free(idx);
    free(idx2);
    return;
  }
  FUZZ_CHECK(rc == 0);
  check_list(m, sel.text_body, sel.num_text_body, root, true);
  check_list(m, sel.html_body, sel.num_html_body, root, true);
  check_list(m, sel.attachments, sel.num_attachments, root, false);
  for (size_t i = 0; i < sel.num_attachments; i++) {
    uint32_t a = sel.attachments[i];
    if (contains(sel.text_body, sel.num_text_body, a) ||
        contains(sel.html_body, sel.num_html_body, a))
      FUZZ_CHECK(is_media(mp_message_part(m, a)));
  }
  size_t need = sel.num_text_body + sel.num_html_body + sel.num_attachments;
  FUZZ_CHECK(mp_message_select(m, &sel2, idx2, need, root) == 0);
  FUZZ_CHECK(sel2.num_text_body == sel.num_text_body && sel2.num_html_body == sel.num_html_body &&
             sel2.num_attachments == sel.num_attachments);
  FUZZ_CHECK(need == 0 || memcmp(idx, idx2, need * sizeof *idx) == 0);
  if (need > 0)
    FUZZ_CHECK(mp_message_select(m, &sel2, idx2, need - 1, root) == MP_ERR_BUFFER_TOO_SMALL);
  check_preview(m, &sel);
  free(idx);
  free(idx2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mp_message *m = NULL;
  FUZZ_CHECK(mp_message_parse(&m, NULL, data, size, NULL) == 0);
  size_t np = mp_message_num_parts(m);
  check_root(m, 0);
  for (uint32_t i = 0; i < np; i++) {
    const mp_part *p = mp_message_part(m, i);
    if ((p->flags & MP_PART_MESSAGE) && p->first_child != MP_NO_INDEX)
      check_root(m, p->first_child);
    size_t need = 0, n = 0;
    int rc = mp_part_filename(m, i, NULL, 0, &need);
    FUZZ_CHECK(rc == 0 || rc == 1);
    FUZZ_CHECK(rc == 1 || need == 0);
    char *buf = malloc(need ? need : 1);
    FUZZ_CHECK(mp_part_filename(m, i, buf, need, &n) == rc && n == need);
    FUZZ_CHECK(corvid_utf8_valid((const uint8_t *)buf, n));
    free(buf);
  }
  mp_message_free(m);
  return 0;
}
