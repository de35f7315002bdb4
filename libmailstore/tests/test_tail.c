// test_tail.c: the written tail of the data file (tail.c): a durable store
// keeps zero-filled blocks ahead of LMDB's last page, sized to the store and
// never past the map; a no_sync store does not; the zeros never land on
// stored pages, whether one process grows the store or several do at once.
#include "corvid_libtest.h"
#include "store_util.h"

#include <sys/stat.h>
#include <sys/wait.h>

// file_state reads, through a raw LMDB handle, where the store's last page
// ends (*used), the map size (*map) and the data file's size (*size), and
// returns whether every byte past the last page is zero.
static int file_state(const char *dir, uint64_t *used, uint64_t *map, uint64_t *size) {
  raw_map_state(dir, used, map);
  char path[4200];
  snprintf(path, sizeof path, "%s/data.mdb", dir);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  *size = (uint64_t)st.st_size;
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fseeko(f, (off_t)*used, SEEK_SET), 0);
  int c, zero = 1;
  while ((c = fgetc(f)) != EOF)
    zero &= c == 0;
  fclose(f);
  return zero;
}

// deliver_n delivers messages first..first+n-1 in batches of 50, with
// bodies of `body` bytes that zstd cannot shrink much, and checks each.
static void deliver_n(ms_store *st, uint32_t acct, uint32_t box, unsigned first, unsigned n,
                      size_t body) {
  static char bufs[50][9000];
  struct ms_delivery d[50];
  for (unsigned i = 0; i < n; i += 50) {
    unsigned k = n - i < 50 ? n - i : 50;
    for (unsigned j = 0; j < k; j++) {
      size_t len = make_message(bufs[j], sizeof bufs[j], first + i + j, body);
      // Pseudo-random letters: compressible only to about 5 bits a byte.
      uint32_t x = 2463534242u + first + i + j;
      for (size_t b = 100; b + 2 < len; b++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bufs[j][b] = (char)('a' + x % 26);
      }
      d[j] = (struct ms_delivery){
          .account = acct, .mailbox = box, .data = (uint8_t *)bufs[j], .len = len};
    }
    ck_assert_int_eq(ms_messages_deliver(st, d, k), (int)k);
  }
}

START_TEST(durable_store_writes_ahead) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  new_store(&dir, &st, NULL, "a", &acct, &box);
  deliver_n(st, acct, box, 0, 10, 3000);
  ms_store_close(st);
  uint64_t used, map, size;
  ck_assert(file_state(dir, &used, &map, &size));
  // At least half of the 1 MiB minimum lies ahead, all of it zeros.
  ck_assert_uint_ge(size, used + (512u << 10));
  ck_assert_uint_le(size, map);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

START_TEST(no_sync_store_stays_tight) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  struct ms_settings set = {.no_sync = 1};
  new_store(&dir, &st, &set, "a", &acct, &box);
  deliver_n(st, acct, box, 0, 10, 3000);
  ms_store_close(st);
  uint64_t used, map, size;
  ck_assert(file_state(dir, &used, &map, &size));
  ck_assert_uint_le(size, used);
  rm_store_dir(dir);
}
END_TEST

// A store that starts with a 1 MiB map grows it many times over while the
// tail moves ahead: the file never runs past the map, the tail keeps pace
// with the store, and every message reads back.
START_TEST(tail_follows_growth) {
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  struct ms_settings set = {.initial_map_size = 1u << 20};
  new_store(&dir, &st, &set, "a", &acct, &box);
  uint64_t used, map, size;
  for (unsigned round = 0; round < 4; round++) {
    deliver_n(st, acct, box, round * 400, 400, 8000);
    ck_assert(file_state(dir, &used, &map, &size));
    ck_assert_uint_le(size, map);
    uint64_t ahead = used / 8 < (1u << 20) ? (1u << 20) : used / 8;
    // Half the distance at least, unless the map ends first.
    ck_assert_uint_ge(size, used + ahead / 2 < map ? used + ahead / 2 : map);
  }
  ck_assert_uint_gt(used, 8u << 20);
  verify_ok(st);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

// Processes extend the tail in turn (each under LMDB's writer lock, each
// with its own idea of the file's size): nothing any of them stored is
// overwritten.
START_TEST(processes_share_the_tail) {
  enum { PROCS = 3, EACH = 300 };
  char *dir;
  ms_store *st;
  uint32_t acct, box;
  struct ms_settings set = {.initial_map_size = 1u << 20};
  new_store(&dir, &st, &set, "a", &acct, &box);
  ms_store_close(st);
  pid_t pid[PROCS];
  for (int p = 0; p < PROCS; p++) {
    pid[p] = fork();
    ck_assert_int_ge(pid[p], 0);
    if (pid[p] == 0) {
      ms_store *cs;
      if (ms_store_open(&cs, dir, &set) != 0)
        _exit(1);
      deliver_n(cs, acct, box, (unsigned)p * 10000, EACH, 8000);
      ms_store_close(cs);
      _exit(0);
    }
  }
  for (int p = 0; p < PROCS; p++) {
    int status;
    ck_assert_int_eq(waitpid(pid[p], &status, 0), pid[p]);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  uint64_t used, map, size;
  ck_assert(file_state(dir, &used, &map, &size));
  ck_assert_uint_le(size, map);
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  verify_ok(st);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acct, box), 0);
  ck_assert_uint_eq(mi.total, PROCS * EACH);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tail");
  TCase *tc = tcase_create("tail");
  tcase_set_timeout(tc, 90);
  tcase_add_test(tc, durable_store_writes_ahead);
  tcase_add_test(tc, no_sync_store_stays_tight);
  tcase_add_test(tc, tail_follows_growth);
  tcase_add_test(tc, processes_share_the_tail);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
