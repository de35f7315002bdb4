// fuzz_handoff.c: libFuzzer harness for the entries of the key handoff
// (handoff_entry.c), both ends, checked against a plain model. The first
// input byte picks the mode and the clock. Raw mode stores the rest as the
// frames of one pulled page, as another member sent them. Structured mode
// builds two pages of ENTRY frames from the input (a few keys, short and
// long; each kind with fields that fit it or not; unknown kinds; no lease,
// short ones and ones past the cap), so that the fuzzer gets past the frame
// codec quickly. The model decodes the same frames and decides which are
// stored: the store must answer as the model says (every frame up to the
// first bad one stored, -EBADMSG there), its walk must hold exactly one
// entry per key the model holds, and the frame the serving side makes of
// that entry must carry the model's latest fields for the key. Those
// frames, stored in a second store and served again (one more hop), must
// come out the same.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "keepd.h"

#define MS 1000000u
#define MODEL_KEYS 4096
#define STORE_CAP (64u * 1024 * 1024)
#define PAGE_CAP (256u * 1024)

struct model_key {
  keep_frame f; // the latest frame stored for the key; points into a page
  bool seen;    // visited by the current walk
};

struct model {
  struct model_key keys[MODEL_KEYS];
  size_t n;
};

static struct model model; // static: too large for libFuzzer's stack

static struct model_key *model_find(const uint8_t *key, size_t key_len) {
  for (size_t i = 0; i < model.n; i++)
    if (model.keys[i].f.key_len == key_len && memcmp(model.keys[i].f.key, key, key_len) == 0)
      return &model.keys[i];
  return NULL;
}

// fits_kind is the rule of keepd.h for keepd_handoff_store_entry, written
// out again.
static bool fits_kind(const keep_frame *f) {
  switch (f->num2) {
  case KIND_VALUE:
    return f->text_len == 0;
  case KIND_COUNTER:
    return f->value_len == 8 && f->text_len == 0;
  case KIND_LOCK:
    return f->value_len == 0 && f->text_len >= 1 && f->text_len <= KEEP_MAX_HOLDER;
  default:
    return false;
  }
}

// model_store applies a page to the model; returns what the store must.
static int model_store(const uint8_t *page, size_t len) {
  keep_frame f;
  for (size_t pos = 0, used; pos < len; pos += used) {
    if (keep_frame_decode(&f, &used, page + pos, len - pos, 0) != 1 || f.opcode != KEEP_OP_ENTRY ||
        !fits_kind(&f))
      return -EBADMSG;
    struct model_key *m = model_find(f.key, f.key_len);
    if (m == NULL) {
      FUZZ_CHECK(model.n < MODEL_KEYS);
      m = &model.keys[model.n++];
    }
    m->f = f;
  }
  return 0;
}

// check_same compares a served frame with the model's latest frame for its
// key, `step` milliseconds after it was stored. `slack` is how many
// milliseconds the served time may exceed the remaining one: the store
// keeps deadlines to the millisecond, rounded up, so off a millisecond
// boundary each hop may add one, and never take one away.
static void check_same(const keep_frame *served, const keep_frame *want, uint64_t step,
                       unsigned slack) {
  FUZZ_CHECK(served->opcode == KEEP_OP_ENTRY && served->num2 == want->num2);
  FUZZ_CHECK(served->value_len == want->value_len && served->text_len == want->text_len);
  FUZZ_CHECK(want->value_len == 0 || memcmp(served->value, want->value, want->value_len) == 0);
  FUZZ_CHECK(want->text_len == 0 || memcmp(served->text, want->text, want->text_len) == 0);
  uint64_t ms = want->num > KEEPD_HANDOFF_MAX_LEASE_MS ? KEEPD_HANDOFF_MAX_LEASE_MS : want->num;
  if (ms == 0) {
    FUZZ_CHECK(served->num == 0);
    return;
  }
  // A key stored `step` ms before with exactly `step` ms left may still be
  // there off a millisecond boundary; one with less has gone (below).
  FUZZ_CHECK(ms > step || (ms == step && slack > 0));
  uint64_t left = ms - step;
  FUZZ_CHECK(served->num >= (left > 0 ? left : 1) && served->num <= left + slack);
}

// check_walk serves every entry of `st` at `now`, `step` ms after the
// model's frames were stored, checks each against the model and appends its
// frame to `hop` (if not NULL) for the next member. Every key whose time
// is not up must be there.
static void check_walk(keepd_store *st, uint64_t now, uint64_t step, unsigned slack, uint8_t *hop,
                       size_t *hop_len) {
  for (size_t i = 0; i < model.n; i++)
    model.keys[i].seen = false;
  uint64_t cursor = 0;
  keepd_entry *e;
  int rc;
  while ((rc = keepd_store_next(st, &cursor, now, &e)) == 1) {
    keep_frame a;
    uint8_t le[8];
    keepd_handoff_entry_frame(&a, e, 7, now, le);
    struct model_key *m = model_find(a.key, a.key_len);
    FUZZ_CHECK(m != NULL && !m->seen);
    m->seen = true;
    check_same(&a, &m->f, step, slack);
    // The served time is the entry's own remaining time, rounded up: the
    // lease never ends earlier on the next member, nor a whole ms later.
    if (e->expires_ns != 0) {
      FUZZ_CHECK(e->expires_ns > now);
      uint64_t left_ns = e->expires_ns - now;
      FUZZ_CHECK(a.num * MS >= left_ns && (a.num - 1) * MS < left_ns);
    }
    if (hop != NULL) {
      size_t used;
      FUZZ_CHECK(keep_frame_encode(hop + *hop_len, PAGE_CAP - *hop_len, &used, &a) == 0);
      *hop_len += used;
    }
  }
  FUZZ_CHECK(rc == 0);
  for (size_t i = 0; i < model.n; i++) {
    uint64_t ms = model.keys[i].f.num;
    FUZZ_CHECK(model.keys[i].seen || (ms != 0 && ms <= step));
  }
}

struct input {
  const uint8_t *p;
  size_t len;
};

static uint8_t take(struct input *in) {
  if (in->len == 0)
    return 0;
  in->len--;
  return *in->p++;
}

// build_page writes up to `count` ENTRY frames drawn from `in` into `page`.
static size_t build_page(struct input *in, uint8_t *page, unsigned count) {
  static const uint64_t leases[8] = {0,
                                     1,
                                     999,
                                     86400000,
                                     30ull * 86400000,
                                     KEEPD_HANDOFF_MAX_LEASE_MS,
                                     KEEPD_HANDOFF_MAX_LEASE_MS + 1,
                                     UINT64_MAX};
  uint8_t key[KEEP_MAX_KEY], body[600];
  size_t len = 0;
  for (unsigned i = 0; i < count && in->len > 0; i++) {
    uint8_t pick = take(in), shape = take(in), size = take(in);
    // Eight keys: even ones fit a table slot, odd ones need a record.
    size_t key_len = (pick & 1) ? 40 + (pick & 6) * 30 : 1 + (pick & 6);
    memset(key, 'a' + (pick & 7), key_len);
    keep_frame f;
    keep_frame_init(&f, KEEP_OP_ENTRY, i + 1);
    f.key = key;
    f.key_len = key_len;
    f.num2 = (shape & 3) == 0 ? (shape >> 2 & 1 ? 0 : 4) : (shape & 3);
    f.num = leases[shape >> 3 & 7];
    if (shape >> 6 & 1)
      f.num = take(in) * 7u;
    for (size_t b = 0; b < sizeof body; b++)
      body[b] = (uint8_t)(size + b * 31);
    bool wrong = shape >> 7; // a field that does not fit the kind
    size_t value_len = 0, text_len = 0;
    if (f.num2 == KIND_COUNTER)
      value_len = wrong ? size % 16 : 8;
    else if (f.num2 == KIND_LOCK)
      text_len = wrong ? (size & 1 ? 0 : 65 + size % 100) : 1 + size % KEEP_MAX_HOLDER;
    else
      value_len = (size_t)size * 2;
    if (wrong && f.num2 != KIND_LOCK)
      text_len = 1 + size % 8;
    if (wrong && f.num2 == KIND_LOCK && size & 2)
      value_len = 3, text_len = 4;
    f.value = body;
    f.value_len = value_len;
    f.text = body + 300;
    f.text_len = text_len;
    size_t used;
    if (keep_frame_encode(page + len, PAGE_CAP - len, &used, &f) == 0)
      len += used;
  }
  return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 65536)
    return 0;
  uint8_t mode = data[0];
  struct input in = {data + 1, size - 1};
  // A clock on a millisecond boundary, or off one.
  bool ms_aligned = !(mode & 2);
  uint64_t now = (uint64_t)(1 + (mode >> 4)) * 1000 * MS + (ms_aligned ? 0 : 1 + mode % 999983);
  static uint8_t pages[2][PAGE_CAP], hop[PAGE_CAP];
  size_t lens[2] = {0, 0};
  unsigned num_pages = 1;
  // Structured mode serves the keys a little after storing them, so that
  // leases run down meanwhile.
  uint64_t step = (mode & 1) ? take(&in) % 32 : 0;
  if (mode & 1) {
    lens[0] = build_page(&in, pages[0], 64);
    lens[1] = build_page(&in, pages[1], 64);
    num_pages = 2;
  } else {
    memcpy(pages[0], in.p, in.len);
    lens[0] = in.len;
  }

  keepd_store st;
  FUZZ_CHECK(keepd_store_init(&st, STORE_CAP) == 0);
  model.n = 0;
  for (unsigned i = 0; i < num_pages; i++) {
    int want = model_store(pages[i], lens[i]);
    int rc = keepd_handoff_store_frames(&st, pages[i], lens[i], now);
    FUZZ_CHECK(rc == want);
  }
  now += step * MS;
  size_t hop_len = 0;
  check_walk(&st, now, step, ms_aligned ? 0 : 1, hop, &hop_len);

  // One more hop: what was served, stored by the next member, serves the same.
  keepd_store next;
  FUZZ_CHECK(keepd_store_init(&next, STORE_CAP) == 0);
  FUZZ_CHECK(keepd_handoff_store_frames(&next, hop, hop_len, now) == 0);
  check_walk(&next, now, step, ms_aligned ? 0 : 2, NULL, NULL);
  keepd_store_cleanup(&next);
  keepd_store_cleanup(&st);
  return 0;
}
