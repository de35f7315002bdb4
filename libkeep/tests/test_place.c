// test_place.c: rendezvous placement (place.c). Every slot gets exactly one
// live owner, spread evenly; when a member dies only its own slots move,
// each to the member that ranked second for it, and they come back when it
// returns; the order of the member list does not matter; the owner follows
// from the scores as documented; bad arguments are refused.
#include <check.h>

#include "corvid_libtest.h"
#include "keep_internal.h"

static const uint8_t secret[KEEP_SECRET_LEN] = "placement-secret";
static const uint16_t ids[5] = {11, 22, 33, 44, 55};

START_TEST(test_spread_and_score) {
  unsigned count[5] = {0};
  for (uint32_t s = 0; s < KEEP_NUM_SLOTS; s++) {
    int o = keep_slot_owner(secret, s, ids, 5, 0x1f);
    ck_assert_int_ge(o, 0);
    ck_assert_int_lt(o, 5);
    count[o]++;
    // The owner has the highest score.
    for (int i = 0; i < 5; i++)
      ck_assert_uint_ge(keep_member_score(secret, s, ids[o]), keep_member_score(secret, s, ids[i]));
  }
  for (int i = 0; i < 5; i++) { // 3276.8 expected; rendezvous is near uniform
    ck_assert_uint_gt(count[i], 3000);
    ck_assert_uint_lt(count[i], 3550);
  }
}
END_TEST

START_TEST(test_only_dead_slots_move) {
  for (int dead = 0; dead < 5; dead++) {
    uint64_t alive = 0x1f & ~(1ull << dead);
    for (uint32_t s = 0; s < KEEP_NUM_SLOTS; s++) {
      int before = keep_slot_owner(secret, s, ids, 5, 0x1f);
      int after = keep_slot_owner(secret, s, ids, 5, alive);
      if (before != dead) {
        ck_assert_int_eq(after, before);
        continue;
      }
      ck_assert_int_ne(after, dead);
      // It goes to the runner-up.
      for (int i = 0; i < 5; i++)
        if (i != dead)
          ck_assert_uint_ge(keep_member_score(secret, s, ids[after]),
                            keep_member_score(secret, s, ids[i]));
    }
  }
}
END_TEST

START_TEST(test_list_order_irrelevant) {
  const uint16_t rev[5] = {55, 44, 33, 22, 11};
  for (uint32_t s = 0; s < KEEP_NUM_SLOTS; s += 7) {
    int a = keep_slot_owner(secret, s, ids, 5, 0x1f);
    int b = keep_slot_owner(secret, s, rev, 5, 0x1f);
    ck_assert_uint_eq(ids[a], rev[b]);
  }
  // Another secret places differently.
  static const uint8_t other[KEEP_SECRET_LEN] = "another-secret!!";
  unsigned differ = 0;
  for (uint32_t s = 0; s < 1000; s++)
    differ += keep_slot_owner(secret, s, ids, 5, 0x1f) != keep_slot_owner(other, s, ids, 5, 0x1f);
  ck_assert_uint_gt(differ, 600);
}
END_TEST

START_TEST(test_bad_arguments) {
  ck_assert_int_eq(keep_slot_owner(secret, 0, NULL, 5, 0x1f), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_slot_owner(secret, 0, ids, 0, 0x1f), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_slot_owner(secret, KEEP_NUM_SLOTS, ids, 5, 0x1f),
                   KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_slot_owner(secret, 0, ids, 5, 0), KEEP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(keep_slot_owner(secret, 0, ids, KEEP_MAX_MEMBERS + 1, 0x1f),
                   KEEP_ERR_INVALID_ARGUMENT);
  // Bits beyond the list are ignored; NULL secret is the zero secret.
  ck_assert_int_eq(keep_slot_owner(secret, 9, ids, 2, 0xff), keep_slot_owner(secret, 9, ids, 2, 3));
  static const uint8_t zero[KEEP_SECRET_LEN];
  ck_assert_int_eq(keep_slot_owner(NULL, 9, ids, 5, 0x1f), keep_slot_owner(zero, 9, ids, 5, 0x1f));
}
END_TEST

int main(void) {
  Suite *s = suite_create("keep-place");
  TCase *tc = tcase_create("place");
  tcase_add_test(tc, test_spread_and_score);
  tcase_add_test(tc, test_only_dead_slots_move);
  tcase_add_test(tc, test_list_order_irrelevant);
  tcase_add_test(tc, test_bad_arguments);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
