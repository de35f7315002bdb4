// test_cluster_tls.c: a three-member keepd cluster on loopback with mutual
// TLS everywhere, made from one cluster key written by `keepd keygen`:
// clients in cluster mode reach every member over TLS, a client pinning
// another key reaches none, and a clean leave hands the leaving member's
// keys over the members' own TLS connections (the leaver exits early only
// if every peer confirmed, and the new owners serve the keys at once,
// without the lock quarantine).
#include "corvid_libtest.h"
#include "keepd_cluster_harness.h"

#define LEAVER 2
#define NUM_KEYS 600

static char key_dir[64], key_file[128], pub_file[128], other_key[128], other_pub[128];

static void keygen(const char *path) {
  const char *args[] = {"keygen", path, NULL};
  ck_assert_int_eq(keepd_run(keepd_bin, args, false), 0);
}

static void keys_make(void) {
  snprintf(key_dir, sizeof key_dir, "/tmp/keepd-ctls-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(key_dir));
  snprintf(key_file, sizeof key_file, "%s/cluster.key", key_dir);
  snprintf(pub_file, sizeof pub_file, "%s/cluster.key.pub", key_dir);
  snprintf(other_key, sizeof other_key, "%s/other.key", key_dir);
  snprintf(other_pub, sizeof other_pub, "%s/other.key.pub", key_dir);
  keygen(key_file);
  keygen(other_key);
  cluster_tls_key = key_file;
}

static void keys_remove(void) {
  unlink(key_file);
  unlink(pub_file);
  unlink(other_key);
  unlink(other_pub);
  rmdir(key_dir);
}

static void owned_key(char *out, size_t cap, const char *prefix, int i) {
  for (int k = 0;; k++) {
    snprintf(out, cap, "%s-%d-%d", prefix, i, k);
    if (owner_of(out, (1u << cluster_n) - 1) == LEAVER)
      return;
  }
}

START_TEST(cluster_and_handoff_over_tls) {
  keys_make();
  struct cluster cl;
  cluster_start(&cl, "4000");
  keep_client *c = client_for(&cl, cl.addrs, ids, N);
  wait_ready(c);
  // A client that pins another cluster key reaches no member.
  keep_tls_settings wrong = {.key_file = key_file, .server_key_file = other_pub};
  keep_settings ws = {.members = cl.addrs,
                      .num_members = N,
                      .secret = secret,
                      .member_ids = ids,
                      .connect_timeout_ms = 500,
                      .io_timeout_ms = 500,
                      .tls = &wrong};
  keep_client *w = NULL;
  ck_assert_int_eq(keep_client_new(&w, &ws), KEEP_ERR_TLS);
  char key[96], val[64], got[256];
  size_t len;
  for (int i = 0; i < NUM_KEYS; i++) {
    owned_key(key, sizeof key, "t", i);
    snprintf(val, sizeof val, "value %d", i);
    // BUSY is retried: a member starved of CPU answers it (stall check).
    KEEPD_RETRY_OK(keep_set(c, key, strlen(key), val, strlen(val), 0));
  }
  char free_key[96];
  owned_key(free_key, sizeof free_key, "free", 0);
  pid_t pids[MAX_N];
  struct keepd_starve sw;
  keepd_starve_begin(&sw, pids, cluster_pids(&cl, pids));
  uint64_t t0 = keepd_test_now_ns();
  ck_assert_int_eq(keepd_stop(&cl.p[LEAVER]), 0);
  // Well before the leaver's 5 s wait for confirmations: they came over TLS.
  keepd_bound_check(&sw, "leave over TLS", keepd_test_now_ns() - t0, 3000000000ull);
  for (int i = 0; i < NUM_KEYS; i++) {
    owned_key(key, sizeof key, "t", i);
    snprintf(val, sizeof val, "value %d", i);
    int rc;
    KEEPD_RETRY(rc, keep_get(c, got, sizeof got, &len, key, strlen(key)), keepd_not_executed(rc));
    ck_assert_msg(rc == 0, "%s: %s", key, keep_strerror(rc));
    ck_assert_uint_eq(len, strlen(val));
    ck_assert_mem_eq(got, val, len);
  }
  // The slots came whole: no quarantine although 4 s have not passed.
  uint64_t dl;
  ck_assert_int_eq(keep_lock(c, &dl, free_key, strlen(free_key), "h", 1, 400), 0);
  keep_client_free(c);
  cluster_stop(&cl);
  keys_remove();
}
END_TEST

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: test_keepd_cluster_tls PATH-TO-KEEPD\n");
    return 2;
  }
  keepd_bin = argv[1];
  cluster_io_timeout_ms = 2000; // every answer is checked (keepd_cluster_harness.h)
  Suite *s = suite_create("keepd-cluster-tls");
  TCase *tc = tcase_create("cluster_tls");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, cluster_and_handoff_over_tls);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
