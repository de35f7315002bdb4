// test_quota.c: quotas under concurrency. Two processes with four threads
// each deliver (single appends and batches, durable group commits) into one
// account whose byte and message quotas admit only part of what they send.
// Afterwards: neither quota is exceeded, every delivery either succeeded or
// got MS_ERR_QUOTA, exactly the acknowledged messages are stored with
// their own bytes, and a refused one left nothing behind (no message,
// blob, search queue entry, change log entry or usage), which
// ms_store_verify confirms.
#include "corvid_libtest.h"
#include "store_util.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/wait.h>

enum { PROCS = 2, THREADS = 4, PER_THREAD = 40, BATCH = 4 };
#define QUOTA_BYTES 200000u
#define QUOTA_MESSAGES 90u

static char *dir;
static uint32_t acc, inbox;

// ack is one acknowledged delivery as a child reports it.
struct ack {
  uint64_t id;
  uint32_t size;
  uint32_t tag; // process * 65536 + thread * 256 + index
};

struct worker {
  ms_store *st;
  unsigned proc, thread;
  struct ack acks[PER_THREAD];
  unsigned nack, refused, other;
  int first_other; // the first unexpected status, for the message
};

// body writes message `tag` of `size` bytes (unique per tag) into buf.
static size_t body(char *buf, uint32_t tag, uint32_t size) {
  int k = snprintf(buf, size + 1,
                   "X-Tag: %u\r\nSubject: quota %u\r\nMessage-ID: <%u@q.example>\r\n\r\n", tag, tag,
                   tag);
  for (size_t i = (size_t)k; i < size; i++)
    buf[i] = (char)('a' + (tag * 7 + i) % 26);
  return size;
}

static uint32_t size_of(uint32_t tag) {
  return 600 + (tag * 2654435761u) % 5000;
}

static void *work(void *p) {
  struct worker *w = p;
  static __thread char bufs[BATCH][6000];
  for (unsigned i = 0; i < PER_THREAD;) {
    unsigned n = (i / BATCH) % 2 ? BATCH : 1; // alternate appends and batches
    struct ms_delivery d[BATCH];
    for (unsigned j = 0; j < n; j++) {
      uint32_t tag = w->proc * 65536 + w->thread * 256 + i + j;
      uint32_t size = size_of(tag);
      d[j] = (struct ms_delivery){.account = acc,
                                  .mailbox = inbox,
                                  .internal_date = tag,
                                  .data = (const uint8_t *)bufs[j],
                                  .len = body(bufs[j], tag, size)};
    }
    if (n == 1) {
      d[0].status = 0;
      d[0].status = ms_message_append(w->st, &d[0].message_id, &d[0].uid, acc, inbox, d[0].data,
                                      d[0].len, 0, d[0].internal_date);
    } else if (ms_messages_deliver(w->st, d, n) < 0) {
      w->other += n;
      i += n;
      continue;
    }
    for (unsigned j = 0; j < n; j++) {
      if (d[j].status == 0)
        w->acks[w->nack++] =
            (struct ack){d[j].message_id, (uint32_t)d[j].len, (uint32_t)d[j].internal_date};
      else if (d[j].status == MS_ERR_QUOTA)
        w->refused++;
      else if (w->other++ == 0)
        w->first_other = d[j].status;
    }
    i += n;
  }
  return NULL;
}

// child delivers from THREADS threads and writes its workers' results to
// dir/res-<proc>.
static int child(unsigned proc) {
  ms_store *st;
  if (ms_store_open(&st, dir, NULL) != 0)
    return 2;
  static struct worker w[THREADS];
  pthread_t th[THREADS];
  for (unsigned i = 0; i < THREADS; i++) {
    w[i] = (struct worker){.st = st, .proc = proc, .thread = i};
    pthread_create(&th[i], NULL, work, &w[i]);
  }
  for (unsigned i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  ms_store_close(st);
  char path[4200];
  snprintf(path, sizeof path, "%s/res-%u", dir, proc);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(w, sizeof w, 1, f) != 1)
    return 3;
  fclose(f);
  return 0;
}

START_TEST(concurrent_deliveries_near_quota) {
  dir = tmp_store_dir();
  ms_store *st;
  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  ck_assert_int_eq(ms_account_create(st, &acc, "q", 1, QUOTA_BYTES, QUOTA_MESSAGES), 0);
  ck_assert_int_eq(ms_mailbox_create(st, &inbox, acc, "INBOX", 5, MS_ROLE_INBOX), 0);
  // A little mail already there, and the state and queue before the race.
  char buf[6000];
  uint32_t pre_size = size_of(0xffffff);
  ck_assert_int_eq(ms_message_append(st, NULL, NULL, acc, inbox, (uint8_t *)buf,
                                     body(buf, 0xffffff, pre_size), 0, 0),
                   0);
  uint64_t state0;
  ck_assert_int_eq(ms_account_state(st, &state0, acc), 0);
  struct ms_search_item sq[1024];
  size_t nsq0;
  ck_assert_int_eq(ms_search_queue_read(st, sq, 1024, &nsq0, 0), 0);
  ms_store_close(st); // no LMDB environment may cross fork()

  pid_t pid[PROCS];
  for (unsigned p = 0; p < PROCS; p++) {
    pid[p] = fork();
    ck_assert_int_ge(pid[p], 0);
    if (pid[p] == 0)
      _exit(child(p));
  }
  for (unsigned p = 0; p < PROCS; p++) {
    int status;
    ck_assert_int_eq(waitpid(pid[p], &status, 0), pid[p]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %u failed", p);
  }

  static struct worker w[PROCS][THREADS];
  unsigned acked = 0, refused = 0;
  uint64_t bytes = 0;
  for (unsigned p = 0; p < PROCS; p++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/res-%u", dir, p);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fread(w[p], sizeof w[p], 1, f), 1);
    fclose(f);
    unlink(path);
    for (unsigned t = 0; t < THREADS; t++) {
      // Only successes and MS_ERR_QUOTA.
      ck_assert_msg(w[p][t].other == 0, "%u unexpected results, first %s", w[p][t].other,
                    ms_strerror(w[p][t].first_other));
      ck_assert_uint_eq(w[p][t].nack + w[p][t].refused, PER_THREAD);
      acked += w[p][t].nack;
      refused += w[p][t].refused;
      for (unsigned i = 0; i < w[p][t].nack; i++)
        bytes += w[p][t].acks[i].size;
    }
  }
  // The quotas bit: some deliveries were refused, some went through.
  ck_assert_uint_gt(refused, 0);
  ck_assert_uint_gt(acked, 0);

  ck_assert_int_eq(ms_store_open(&st, dir, NULL), 0);
  struct ms_account_info ai;
  ck_assert_int_eq(ms_account_get(st, &ai, acc), 0);
  ck_assert_uint_le(ai.used_bytes, QUOTA_BYTES);
  ck_assert_uint_le(ai.used_messages, QUOTA_MESSAGES);
  ck_assert_uint_eq(ai.used_messages, acked + 1);
  ck_assert_uint_eq(ai.used_bytes, bytes + pre_size);
  struct ms_mailbox_info mi;
  ck_assert_int_eq(ms_mailbox_get(st, &mi, acc, inbox), 0);
  ck_assert_uint_eq(mi.total, acked + 1);
  ck_assert_uint_eq(mi.size, bytes + pre_size);

  // Every acknowledged message holds its own bytes.
  static char back[6000];
  for (unsigned p = 0; p < PROCS; p++)
    for (unsigned t = 0; t < THREADS; t++)
      for (unsigned i = 0; i < w[p][t].nack; i++) {
        const struct ack *a = &w[p][t].acks[i];
        size_t len;
        ck_assert_int_eq(ms_message_read(st, (uint8_t *)back, sizeof back, &len, acc, a->id), 0);
        ck_assert_uint_eq(len, a->size);
        body(buf, a->tag, a->size);
        ck_assert_int_eq(memcmp(back, buf, len), 0);
      }
  // Nothing of the refused ones: no blob, queue entry or change beyond the
  // acknowledged ones (each message is unique, so each has its own blob).
  struct ms_store_stats ss;
  ck_assert_int_eq(ms_store_stats_get(st, &ss), 0);
  ck_assert_uint_eq(ss.messages, acked + 1);
  ck_assert_uint_eq(ss.blobs, acked + 1);
  size_t nsq;
  ck_assert_int_eq(ms_search_queue_read(st, sq, 1024, &nsq, 0), 0);
  ck_assert_uint_eq(nsq, nsq0 + acked);
  struct ms_change ch[1024];
  size_t nch;
  uint64_t ns;
  int more;
  ck_assert_int_eq(
      ms_account_changes(st, ch, 1024, &nch, &ns, &more, acc, MS_CHANGE_MESSAGE, state0, 1024), 0);
  ck_assert_int_eq(more, 0);
  ck_assert_uint_eq(nch, acked);
  for (size_t i = 0; i < nch; i++)
    ck_assert_uint_eq(ch[i].type, MS_CHANGE_CREATED);
  struct ms_diag dg;
  ck_assert_msg(ms_store_verify(st, &dg) == 0, "verify: %s", dg.message);
  ms_store_close(st);
  rm_store_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("quota");
  TCase *tc = tcase_create("quota");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, concurrent_deliveries_near_quota);
  suite_add_tcase(s, tc);
  return corvid_check_run(s);
}
