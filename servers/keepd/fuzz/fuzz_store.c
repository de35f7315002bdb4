// fuzz_store.c: libFuzzer harness for keepd's per-shard store, checked
// against a plain model. The input picks how the store hashes keys (so that
// many keys can share a home bucket, a tag or a whole hash, driving the
// probe chains, the overflow counts and the incremental resize) and then a
// sequence of puts, deletes, lookups, deadline changes through a view
// (near, none, or too far ahead for a slot), clock steps and sweeps, over
// keys short enough for a slot and keys that need a record, with values
// inline or not. After each step the store must agree with the model on
// which keys exist, their values, deadlines (rounded up to the millisecond)
// and their count; at the end the handoff's walk (keepd_store_next) must
// visit every live key exactly once and nothing else, and the memory
// accounting must come back to the tables alone.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "keepd.h"

#define MODEL_KEYS 2048
#define MS 1000000u

struct model_key {
  bool present; // in the store (expired or not)
  uint32_t value_len;
  uint64_t expires; // as the store keeps it: rounded up to a millisecond
};

struct input {
  const uint8_t *p;
  size_t len;
};

struct shape {
  uint64_t mult, mask;
};

static uint8_t take(struct input *in) {
  if (in->len == 0)
    return 0;
  in->len--;
  return *in->p++;
}

// key_of: a third of the keys are too long for a slot.
static size_t key_of(unsigned idx, uint8_t key[16]) {
  memset(key, 'k', 16);
  key[1] = (uint8_t)idx;
  key[2] = (uint8_t)(idx >> 8);
  return idx % 3 == 0 ? 14 : 3;
}

// shaped_hash reads the index back out of the key and shapes its hash.
static uint64_t shaped_hash(void *arg, const uint8_t *key, size_t key_len) {
  const struct shape *s = arg;
  FUZZ_CHECK(key_len >= 3);
  uint64_t idx = key[1] | (uint64_t)key[2] << 8;
  return (idx * s->mult) & s->mask;
}

static uint64_t rounded(uint64_t ns) {
  return ns == 0 ? 0 : (ns + MS - 1) / MS * MS;
}

static void check_value(keepd_entry *e, unsigned idx, const struct model_key *m) {
  FUZZ_CHECK(e->value_len == m->value_len);
  FUZZ_CHECK(e->expires_ns == m->expires);
  uint8_t *v = keepd_entry_value(e);
  for (uint32_t i = 0; i < m->value_len; i++)
    FUZZ_CHECK(v[i] == (uint8_t)(idx + i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct input in = {data, size};
  static struct model_key model[MODEL_KEYS];
  memset(model, 0, sizeof model);
  // Hash shape: a multiplier and a mask; a narrow mask piles keys up (tag is
  // the low byte, the home bucket comes from the high 32 bits).
  struct shape shape = {0, 0};
  for (int i = 0; i < 8; i++)
    shape.mult = shape.mult << 8 | take(&in);
  shape.mult |= 1;
  static const uint64_t masks[] = {~0ull, 0xffffffff00000000ull, 0x00000000000000ffull,
                                   0xc0000000000000ffull, 0};
  shape.mask = masks[take(&in) % 5];
  keepd_store st;
  if (keepd_store_init(&st, 64u * 1024 * 1024) != 0)
    return 0;
  st.hash = shaped_hash;
  st.hash_arg = &shape;
  uint64_t now = 1000 * (uint64_t)MS;
  size_t count = 0;
  unsigned sweeps = 0;
  while (in.len > 0) {
    uint8_t op = take(&in) % 6;
    unsigned idx = (take(&in) | (unsigned)take(&in) << 8) % MODEL_KEYS;
    uint8_t key[16];
    size_t kl = key_of(idx, key);
    struct model_key *m = &model[idx];
    bool live = m->present && (m->expires == 0 || m->expires > now);
    if (op == 0 || op == 5) { // put, or change the deadline through the view
      uint32_t vlen = take(&in) % 24;
      uint8_t ttl = take(&in);
      // A deadline in ns, between milliseconds; 255 means 30 days ahead.
      uint64_t deadline = ttl == 0     ? 0
                          : ttl == 255 ? now + 30ull * 86400 * 1000 * MS
                                       : now + (uint64_t)ttl * (MS / 4) + ttl;
      keepd_entry *old = keepd_store_find(&st, 0, key, kl, now);
      FUZZ_CHECK((old != NULL) == live);
      if (m->present && !live) { // find removed the expired entry
        m->present = false;
        count--;
      }
      if (op == 5) {
        if (old != NULL) {
          check_value(old, idx, m);
          old->expires_ns = deadline;
          m->expires = rounded(deadline);
        }
      } else {
        keepd_entry *e = keepd_store_new_entry(&st, 0, key, kl, vlen, 0);
        FUZZ_CHECK(e != NULL);
        e->kind = KIND_VALUE;
        e->expires_ns = deadline;
        for (uint32_t i = 0; i < vlen; i++)
          keepd_entry_value(e)[i] = (uint8_t)(idx + i);
        FUZZ_CHECK(keepd_store_put(&st, e, old) == 0);
        if (!m->present)
          count++;
        *m = (struct model_key){true, vlen, rounded(deadline)};
      }
    } else if (op == 1 || op == 2) { // delete or look up
      keepd_entry *e = keepd_store_find(&st, 0, key, kl, now);
      FUZZ_CHECK((e != NULL) == live);
      if (m->present && !live) {
        m->present = false;
        count--;
      }
      if (e != NULL) {
        check_value(e, idx, m);
        if (op == 1) {
          keepd_store_remove(&st, e);
          m->present = false;
          count--;
        }
      }
    } else if (op == 3) { // time passes, by quarters of a millisecond
      now += (uint64_t)take(&in) * (MS / 4);
    } else if (sweeps++ < 4) { // full sweeps (costly: few) remove every expired key
      do
        keepd_store_sweep(&st, st.cur.n, now);
      while (st.old.b != NULL);
      keepd_store_sweep(&st, st.cur.n, now);
      for (unsigned i = 0; i < MODEL_KEYS; i++)
        if (model[i].present && model[i].expires != 0 && model[i].expires <= now) {
          model[i].present = false;
          count--;
        }
    }
    FUZZ_CHECK(st.count == count);
  }
  // The walk visits every live key once, with its value.
  static uint8_t seen[MODEL_KEYS];
  memset(seen, 0, sizeof seen);
  uint64_t cursor = 0;
  keepd_entry *w;
  int rc;
  while ((rc = keepd_store_next(&st, &cursor, now, &w)) == 1) {
    FUZZ_CHECK(w->key_len >= 3);
    unsigned idx = w->key[1] | (unsigned)w->key[2] << 8;
    FUZZ_CHECK(idx < MODEL_KEYS && !seen[idx]);
    seen[idx] = 1;
    const struct model_key *m = &model[idx];
    FUZZ_CHECK(m->present && (m->expires == 0 || m->expires > now));
    check_value(w, idx, m);
  }
  FUZZ_CHECK(rc == 0);
  for (unsigned idx = 0; idx < MODEL_KEYS; idx++)
    FUZZ_CHECK(seen[idx] ==
               (model[idx].present && (model[idx].expires == 0 || model[idx].expires > now)));
  // Every live key is found with its value; removing all frees everything.
  for (unsigned idx = 0; idx < MODEL_KEYS; idx++) {
    uint8_t key[16];
    size_t kl = key_of(idx, key);
    keepd_entry *e = keepd_store_find(&st, 0, key, kl, now);
    struct model_key *m = &model[idx];
    FUZZ_CHECK((e != NULL) == (m->present && (m->expires == 0 || m->expires > now)));
    if (e != NULL) {
      check_value(e, idx, m);
      keepd_store_remove(&st, e);
    }
  }
  FUZZ_CHECK(st.count == 0);
  FUZZ_CHECK(st.used == st.table_bytes);
  keepd_store_cleanup(&st);
  return 0;
}
