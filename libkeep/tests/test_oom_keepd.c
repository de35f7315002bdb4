// test_oom_keepd.c: the blocking client with its allocations failing in
// turn (corvid_test_alloc_fault.h) against a real keepd, where what the
// member holds can be asked of it: keep_publish reports how many
// subscribers an event reached.
//
// Usage: test_keep_oom_keepd PATH-TO-KEEPD (registered in
// servers/keepd/meson.build, where the daemon is built).
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_libtest.h"
#include "corvid_test_alloc_fault.h"
#include "keep.h"
#include "keepd_harness.h"

static struct keepd_proc server;

static keep_client *connect_client(void) {
  const char *members[] = {server.member};
  keep_settings s = {.members = members, .num_members = 1, .max_events = 64};
  keep_client *c = NULL;
  ck_assert_int_eq(keep_client_new(&c, &s), 0);
  return c;
}

// receivers publishes on `topic` from `pub` and returns how many
// subscribers the member delivered the event to.
static size_t receivers(keep_client *pub, const char *topic) {
  size_t n = 99;
  ck_assert_int_eq(keep_publish(pub, &n, topic, strlen(topic), "e", 1), 0);
  return n;
}

// A subscription the client fails to note must not be taken at the member
// either: it would go on unfollowed (its events dropped as unknown, never
// renewed) until the connection ends. The client holds eight topics, as
// many as its first list has room for; the ninth is walked with each
// allocation of keep_subscribe failing in turn. Every -ENOMEM leaves the
// member without the subscription (an event on the topic reaches nobody)
// and the client usable; the first run that meets no failure subscribes.
START_TEST(failed_subscribe_takes_no_subscription) {
  keep_client *sub = connect_client(), *pub = connect_client();
  char topic[32];
  for (int i = 0; i < 8; i++) {
    snprintf(topic, sizeof topic, "oom-held-%d-%d", (int)getpid(), i);
    ck_assert_int_eq(keep_subscribe(sub, topic, strlen(topic)), 0);
    ck_assert_uint_eq(receivers(pub, topic), 1);
  }
  // The events published above wait at the client: read them first, so
  // that the walk meets keep_subscribe's own allocations (an event the
  // client cannot store is dropped, a gap its sequence shows, and the call
  // that read it still succeeds).
  ck_assert_int_eq(keep_ping(sub), 0);
  snprintf(topic, sizeof topic, "oom-ninth-%d", (int)getpid());
  unsigned long failures = 0;
  for (unsigned long n = 1;; n++) {
    ck_assert_uint_lt(n, 1000);
    alloc_fault_arm(n);
    int rc = keep_subscribe(sub, topic, strlen(topic));
    int fired = alloc_fault_fired();
    alloc_fault_disarm();
    if (!fired) {
      ck_assert_int_eq(rc, 0);
      ck_assert_uint_eq(receivers(pub, topic), 1);
      break;
    }
    ck_assert_int_eq(rc, -ENOMEM);
    failures++;
    ck_assert_uint_eq(receivers(pub, topic), 0);
    ck_assert_int_eq(keep_ping(sub), 0);
  }
  ck_assert_uint_gt(failures, 0);
  keep_client_free(sub);
  keep_client_free(pub);
}
END_TEST

int main(int argc, char **argv) {
  TCase *tc = tcase_create("oom");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, failed_subscribe_takes_no_subscription);
  return keepd_served_suite_main(argc, argv, &server, NULL, "keep-oom-keepd", tc);
}
