// fuzz_store.c: libFuzzer harness for keepd's per-shard store, checked
// against a plain model. The input picks how hashes are formed (so that many
// keys can share a bucket, a tag or a whole hash, driving the probe and
// overflow paths) and then a sequence of puts, deletes, lookups, clock steps
// and sweeps; after each step the store must agree with the model on which
// keys exist, their values and their count, and at the end the memory
// accounting must return to its starting point.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_fuzz.h"
#include "keepd.h"

#define MODEL_KEYS 512

struct model_key {
  bool present; // in the store (expired or not)
  uint32_t value_len;
  uint64_t expires;
};

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

static uint64_t hash_of(unsigned idx, uint64_t mult, uint64_t mask) {
  return ((uint64_t)idx * mult) & mask;
}

static void key_of(unsigned idx, uint8_t key[3]) {
  key[0] = 'k';
  key[1] = (uint8_t)idx;
  key[2] = (uint8_t)(idx >> 8);
}

static void check_value(keepd_entry *e, unsigned idx, uint32_t len) {
  FUZZ_CHECK(e->value_len == len);
  uint8_t *v = keepd_entry_value(e);
  for (uint32_t i = 0; i < len; i++)
    FUZZ_CHECK(v[i] == (uint8_t)(idx + i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct input in = {data, size};
  static struct model_key model[MODEL_KEYS];
  memset(model, 0, sizeof model);
  // Hash shape: a multiplier and a mask; a narrow mask piles keys up.
  uint64_t mult = 0, mask = 0;
  for (int i = 0; i < 8; i++)
    mult = mult << 8 | take(&in);
  mult |= 1;
  static const uint64_t masks[] = {~0ull, 0xff00000000000000ull, 0xff00000000003fffull,
                                   0x00000000000fc000ull, 0};
  mask = masks[take(&in) % 5];
  keepd_store st;
  if (keepd_store_init(&st, 64u * 1024 * 1024) != 0)
    return 0;
  uint64_t base = st.used, now = 1;
  size_t count = 0;
  unsigned sweeps = 0;
  while (in.len > 0) {
    uint8_t op = take(&in) % 5;
    unsigned idx = (take(&in) | (unsigned)take(&in) << 8) % MODEL_KEYS;
    uint8_t key[3];
    key_of(idx, key);
    uint64_t h = hash_of(idx, mult, mask);
    struct model_key *m = &model[idx];
    bool live = m->present && (m->expires == 0 || m->expires > now);
    if (op == 0) { // put
      uint32_t vlen = take(&in);
      uint8_t ttl = take(&in);
      keepd_entry *old = keepd_store_find(&st, h, key, 3, now);
      FUZZ_CHECK((old != NULL) == live);
      if (m->present && !live) { // find removed the expired entry
        m->present = false;
        count--;
      }
      keepd_entry *e = keepd_store_new_entry(&st, h, key, 3, vlen, 0);
      FUZZ_CHECK(e != NULL);
      e->kind = KIND_VALUE;
      e->expires_ns = ttl ? now + ttl : 0;
      for (uint32_t i = 0; i < vlen; i++)
        keepd_entry_value(e)[i] = (uint8_t)(idx + i);
      FUZZ_CHECK(keepd_store_put(&st, e, old) == 0);
      if (!m->present)
        count++;
      *m = (struct model_key){true, vlen, e->expires_ns};
    } else if (op == 1 || op == 2) { // delete or look up
      keepd_entry *e = keepd_store_find(&st, h, key, 3, now);
      FUZZ_CHECK((e != NULL) == live);
      if (m->present && !live) {
        m->present = false;
        count--;
      }
      if (e != NULL) {
        check_value(e, idx, m->value_len);
        if (op == 1) {
          keepd_store_remove(&st, e);
          m->present = false;
          count--;
        }
      }
    } else if (op == 3) { // time passes
      now += take(&in);
    } else if (sweeps++ < 4) { // a full sweep (costly: few) removes every expired key
      keepd_store_sweep(&st, st.mask + 1, now);
      for (unsigned i = 0; i < MODEL_KEYS; i++)
        if (model[i].present && model[i].expires != 0 && model[i].expires <= now) {
          model[i].present = false;
          count--;
        }
    }
    FUZZ_CHECK(st.count == count);
  }
  // Every live key is found with its value; removing all frees everything.
  for (unsigned idx = 0; idx < MODEL_KEYS; idx++) {
    uint8_t key[3];
    key_of(idx, key);
    keepd_entry *e = keepd_store_find(&st, hash_of(idx, mult, mask), key, 3, now);
    struct model_key *m = &model[idx];
    FUZZ_CHECK((e != NULL) == (m->present && (m->expires == 0 || m->expires > now)));
    if (e != NULL) {
      check_value(e, idx, m->value_len);
      keepd_store_remove(&st, e);
    }
  }
  FUZZ_CHECK(st.count == 0);
  FUZZ_CHECK(st.used == base + (st.mask + 1 - 1024) * sizeof(keepd_bucket));
  keepd_store_cleanup(&st);
  return 0;
}
