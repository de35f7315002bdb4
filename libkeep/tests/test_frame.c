// test_frame.c: the keep/1 frame codec and key placement: SipHash-2-4
// against the paper's published vector, every opcode encoded and decoded back
// to the same bytes, incomplete input asking for more, and each malformed
// header or body rejected with the right code.
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "keep_internal.h"

static const uint8_t key16[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

START_TEST(siphash_paper_vectors) {
  // Appendix A of the paper: key 00..0f, message 00..0e.
  uint8_t msg[15];
  for (int i = 0; i < 15; i++)
    msg[i] = (uint8_t)i;
  ck_assert_uint_eq(keep_siphash24(key16, msg, 15), 0xa129ca6149be45e5ull);
  // The reference implementation's first vector: the empty message.
  ck_assert_uint_eq(keep_siphash24(key16, msg, 0), 0x726fdb47dd0e0e31ull);
  // Every length up to two blocks gives a different value (length is mixed in).
  uint64_t seen[17];
  for (size_t n = 0; n <= 16; n++) {
    uint8_t m[16] = {0};
    seen[n] = keep_siphash24(key16, m, n);
    for (size_t j = 0; j < n; j++)
      ck_assert_uint_ne(seen[j], seen[n]);
  }
}
END_TEST

START_TEST(slot_is_keyed_and_in_range) {
  static const uint8_t zero[16];
  int differ = 0;
  for (int i = 0; i < 1000; i++) {
    char k[16];
    int n = snprintf(k, sizeof k, "key%d", i);
    uint32_t s = keep_slot(NULL, k, (size_t)n);
    ck_assert_uint_lt(s, KEEP_NUM_SLOTS);
    ck_assert_uint_eq(s, keep_slot(zero, k, (size_t)n));
    ck_assert_uint_eq(s, keep_siphash24(zero, (const uint8_t *)k, (size_t)n) & 16383u);
    differ += keep_slot(key16, k, (size_t)n) != s;
  }
  ck_assert_int_gt(differ, 900);
}
END_TEST

// sample_frames fills `fs` with one frame of every opcode.
static size_t sample_frames(keep_frame *fs) {
  static const uint8_t key[] = "mailbox:42";
  static const uint8_t val[] = "some value bytes";
  static const uint8_t holder[] = "node-a/1234";
  static const uint8_t member[] = "127.0.0.1:7379";
  static const uint8_t ops[] = {
      KEEP_OP_PING,         KEEP_OP_GET,          KEEP_OP_SET,     KEEP_OP_SETNX,
      KEEP_OP_DEL,          KEEP_OP_INCR,         KEEP_OP_EXPIRE,  KEEP_OP_LOCK,
      KEEP_OP_UNLOCK,       KEEP_OP_EXTEND,       KEEP_OP_PUBLISH, KEEP_OP_SUBSCRIBE,
      KEEP_OP_UNSUBSCRIBE,  KEEP_OP_CLUSTER,      KEEP_OP_OK,      KEEP_OP_NOT_FOUND,
      KEEP_OP_EXISTS,       KEEP_OP_BUSY,         KEEP_OP_MOVED,   KEEP_OP_NOT_YET,
      KEEP_OP_ERROR,        KEEP_OP_VIEW,         KEEP_OP_EVENT,   KEEP_OP_HEARTBEAT,
      KEEP_OP_HANDOFF_PULL, KEEP_OP_HANDOFF_DONE, KEEP_OP_ENTRY};
  size_t n = sizeof ops;
  for (size_t i = 0; i < n; i++) {
    keep_frame *f = &fs[i];
    keep_frame_init(f, ops[i], 0x0102030405060708ull + i);
    f->key = key;
    f->key_len = sizeof key - 1;
    f->value = val;
    f->value_len = sizeof val - 1;
    f->text = holder;
    f->text_len = sizeof holder - 1;
    f->num = 1234 + i;
    f->num2 = 99;
    if (ops[i] == KEEP_OP_ERROR)
      f->num = KEEP_CODE_WRONG_TYPE;
    if (ops[i] == KEEP_OP_VIEW) {
      f->num_view = 2;
      f->view[0] = (keep_view_entry){0, 8191, member, sizeof member - 1};
      f->view[1] = (keep_view_entry){8192, 16383, member, sizeof member - 1};
    }
    if (ops[i] == KEEP_OP_OK)
      f->flags = KEEP_FLAG_COUNTER;
  }
  return n;
}

START_TEST(every_opcode_round_trips) {
  keep_frame fs[32], d;
  size_t n = sample_frames(fs);
  for (size_t i = 0; i < n; i++) {
    uint8_t buf[512], again[512];
    size_t len, len2, used;
    size_t need = keep_frame_encoded_len(&fs[i]);
    ck_assert_uint_gt(need, 0);
    ck_assert_int_eq(keep_frame_encode(buf, need - 1, &len, &fs[i]), -ENOBUFS);
    ck_assert_int_eq(keep_frame_encode(buf, sizeof buf, &len, &fs[i]), 0);
    ck_assert_uint_eq(len, need);
    ck_assert_uint_eq(buf[4], KEEP_PROTO_VERSION);
    ck_assert_uint_eq(buf[5], fs[i].opcode);
    ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), 1);
    ck_assert_uint_eq(used, len);
    ck_assert_uint_eq(d.opcode, fs[i].opcode);
    ck_assert_uint_eq(d.id, fs[i].id);
    ck_assert_int_eq(keep_frame_encode(again, sizeof again, &len2, &d), 0);
    ck_assert_uint_eq(len2, len);
    ck_assert_mem_eq(again, buf, len);
    // Every proper prefix is "need more", never an error or a frame.
    for (size_t p = 0; p < len; p++)
      ck_assert_int_eq(keep_frame_decode(&d, &used, buf, p, 0), 0);
  }
}
END_TEST

START_TEST(fields_land_where_specified) {
  keep_frame f, d;
  keep_frame_init(&f, KEEP_OP_SET, 7);
  f.key = (const uint8_t *)"k";
  f.key_len = 1;
  f.value = (const uint8_t *)"vv";
  f.value_len = 2;
  f.num = 1500;
  uint8_t buf[64];
  size_t len, used;
  ck_assert_int_eq(keep_frame_encode(buf, sizeof buf, &len, &f), 0);
  static const uint8_t expect[] = {16, 0,   0,    0, 1, 0x03, 0, 0, 7, 0, 0, 0, 0, 0, 0,   0,
                                   1,  'k', 0xdc, 5, 0, 0,    0, 0, 0, 0, 2, 0, 0, 0, 'v', 'v'};
  ck_assert_uint_eq(len, sizeof expect);
  ck_assert_mem_eq(buf, expect, len);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), 1);
  ck_assert_uint_eq(d.num, 1500);
  ck_assert_uint_eq(d.value_len, 2);
  ck_assert_mem_eq(d.value, "vv", 2);
}
END_TEST

static size_t encode_get(uint8_t *buf, size_t key_len) {
  static const uint8_t key[300] = {0};
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_GET, 1);
  f.key = key;
  f.key_len = key_len;
  size_t len = 0;
  ck_assert_int_eq(keep_frame_encode(buf, 400, &len, &f), 0);
  return len;
}

START_TEST(malformed_frames_are_rejected) {
  uint8_t buf[400];
  keep_frame d;
  size_t used;
  size_t len = encode_get(buf, 3);
  buf[4] = 2; // version
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), KEEP_ERR_PROTOCOL);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, 5, 0), KEEP_ERR_PROTOCOL);
  len = encode_get(buf, 3);
  buf[5] = 0x7f; // opcode
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), KEEP_ERR_PROTOCOL);
  len = encode_get(buf, 3);
  buf[7] = 0x80; // undefined flag
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), KEEP_ERR_PROTOCOL);
  len = encode_get(buf, 3);
  buf[0]++; // one trailing byte in the body
  buf[len] = 0;
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len + 1, 0), KEEP_ERR_PROTOCOL);
  len = encode_get(buf, 3);
  buf[16] = 0; // key length 0
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), KEEP_ERR_PROTOCOL);
  len = encode_get(buf, 3);
  buf[16] = 4; // key longer than the body
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), KEEP_ERR_PROTOCOL);
  // Keys over 250 bytes cannot be encoded.
  keep_frame f;
  keep_frame_init(&f, KEEP_OP_GET, 1);
  f.key = buf;
  f.key_len = 251;
  ck_assert_uint_eq(keep_frame_encoded_len(&f), 0);
  // A length field beyond the bound is refused before the body arrives.
  memset(buf, 0, 16);
  keep_put_le(buf, 4, KEEP_MAX_BODY + 1);
  buf[4] = 1;
  buf[5] = KEEP_OP_GET;
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, 16, 0), KEEP_ERR_TOO_LARGE);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, 4, 0), KEEP_ERR_TOO_LARGE);
}
END_TEST

START_TEST(value_limit_is_enforced) {
  static uint8_t val[5000];
  keep_frame f, d;
  keep_frame_init(&f, KEEP_OP_SET, 1);
  f.key = (const uint8_t *)"k";
  f.key_len = 1;
  f.value = val;
  f.value_len = sizeof val;
  static uint8_t buf[6000];
  size_t len, used;
  ck_assert_int_eq(keep_frame_encode(buf, sizeof buf, &len, &f), 0);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 0), 1);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 5000), 1);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 4999), KEEP_ERR_TOO_LARGE);
  ck_assert_int_eq(keep_frame_decode(&d, &used, buf, len, 100), KEEP_ERR_TOO_LARGE);
}
END_TEST

START_TEST(pipelined_frames_decode_one_by_one) {
  keep_frame fs[32], d;
  size_t n = sample_frames(fs);
  static uint8_t buf[8192];
  size_t off = 0, len;
  for (size_t i = 0; i < n; i++) {
    ck_assert_int_eq(keep_frame_encode(buf + off, sizeof buf - off, &len, &fs[i]), 0);
    off += len;
  }
  size_t pos = 0, count = 0, used;
  while (pos < off) {
    ck_assert_int_eq(keep_frame_decode(&d, &used, buf + pos, off - pos, 0), 1);
    ck_assert_uint_eq(d.opcode, fs[count].opcode);
    pos += used;
    count++;
  }
  ck_assert_uint_eq(count, n);
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-frame");
  TCase *tc = tcase_create("frame");
  tcase_add_test(tc, siphash_paper_vectors);
  tcase_add_test(tc, slot_is_keyed_and_in_range);
  tcase_add_test(tc, every_opcode_round_trips);
  tcase_add_test(tc, fields_land_where_specified);
  tcase_add_test(tc, malformed_frames_are_rejected);
  tcase_add_test(tc, value_limit_is_enforced);
  tcase_add_test(tc, pipelined_frames_decode_one_by_one);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
