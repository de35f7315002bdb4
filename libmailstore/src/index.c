// index.c: the packed per-mailbox index. For each recently used mailbox it
// keeps one array, in UID order, of what flag fetches, CONDSTORE/QRESYNC
// resynchronisation and numeric sorts need (UID, flags, keywords, message
// id, MODSEQ, internal and sent dates, size, thread id), so that those read a few megabytes of
// contiguous memory instead of one LMDB record (and one message record) per
// message. An array is stamped with the mailbox record's UIDVALIDITY and
// HIGHESTMODSEQ: every write to a mailbox's memberships (delivery, copy,
// move, expunge, flag and keyword changes) gives it a new HIGHESTMODSEQ
// from the account's counter in the same transaction (RFC 7162 requires it
// of expunges too), so a reader comparing the stamp read in its own
// snapshot with the array's knows whether the array is that snapshot's,
// whichever process wrote. Arrays are immutable once built and shared by
// reference; the cache keeps the most recently used ones within a byte
// bound. Keywords are a 64-bit mask per message over a per-mailbox table
// of the keyword ids in use (a mailbox is rarely tagged with more than a
// handful, while an account's ids only grow: a fixed map of the account's
// first 64 ids would miss new ones, and the full 1,024-bit bitmap would
// cost 128 bytes a message); a mailbox with more than 64 distinct keywords
// answers keyword calls from LMDB. String sort keys are kept per array as
// columns (each message's rank among the distinct keys, ranked once with
// 8-byte collation prefixes and full compares on prefix ties), made on
// the first sort by that key and carried to the next array like the
// message fields, so that string sorts read no summary once made and
// compare numbers as the numeric ones do.
#include "index.h"
#include "meta.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// MSI_COLS is the number of string sort keys an array can carry.
#define MSI_COLS 6

struct msi_col;

struct msi_box {
  struct msi_box *prev, *next; // LRU list, most recent first; both NULL once evicted
  uint32_t acct, mbox, uidvalidity;
  uint64_t modseq; // the mailbox's HIGHESTMODSEQ when built
  int no_dates;    // some message had no stored summary: date is not its sent date
  int refs;        // holders, plus one while cached
  size_t n;
  struct msi_ent *v;
  // The order of the first single-key sort, kept because IMAP and JMAP
  // clients repeat the same sort (newest first); set once under the
  // cache's lock and never replaced while the array lives, because
  // readers use it outside the lock.
  uint32_t *order;
  uint32_t order_key;
  // The mailbox's keywords (ids of the account's table, increasing) that
  // msi_ent.kw bits stand for; kw_over when its messages use more than
  // MSI_KEYWORDS, and then every kw is 0 and keyword calls read LMDB.
  uint16_t kwids[MSI_KEYWORDS];
  uint32_t nkw;
  int kw_over;
  // String sort keys (RFC 5256 FROM, TO, CC, SUBJECT; RFC 5957 DISPLAYFROM,
  // DISPLAYTO), one column per key, made on the first sort by it and
  // carried to the rebuilt array after a change; each set once under the
  // cache's lock and never replaced while the array lives, like order.
  struct msi_col *col[MSI_COLS];
};

// msi_col is one string sort key of every message of an array: its rank
// among the column's distinct keys in text_casecmp order, which is all a
// sort compares, and, to rank the keys of the next array's new messages,
// an 8-byte big-endian prefix of the key with a-z read as A-Z
// (zero-padded), which orders two keys whenever it differs, and the whole
// key in an arena (identical keys stored once) for ties.
struct msi_col {
  uint32_t *rank; // the key's place among the column's keys (equal keys, equal ranks)
  uint64_t *pre;
  uint32_t *off, *len;
  char *arena;
  size_t arena_len;
  uint64_t bytes; // what the column holds, for the cache's bound
};

struct msi_cache {
  pthread_mutex_t lock;
  struct msi_box *head, *tail;
  uint64_t bytes, max_bytes;
  struct ms_index_info info;
};

static uint64_t box_bytes(const struct msi_box *b) {
  uint64_t n = sizeof *b + b->n * sizeof *b->v + (b->order ? b->n * sizeof *b->order : 0);
  for (int i = 0; i < MSI_COLS; i++)
    n += b->col[i] ? b->col[i]->bytes : 0;
  return n;
}

static void col_free(struct msi_col *c) {
  if (!c)
    return;
  free(c->rank);
  free(c->pre);
  free(c->off);
  free(c->len);
  free(c->arena);
  free(c);
}

struct msi_cache *msi_create(uint64_t max_bytes) {
  struct msi_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  pthread_mutex_init(&c->lock, NULL);
  c->max_bytes = max_bytes;
  return c;
}

static void box_free(struct msi_box *b) {
  for (int i = 0; i < MSI_COLS; i++)
    col_free(b->col[i]);
  free(b->order);
  free(b->v);
  free(b);
}

static void unlink_box(struct msi_cache *c, struct msi_box *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    c->head = b->next;
  if (b->next)
    b->next->prev = b->prev;
  else
    c->tail = b->prev;
  b->prev = b->next = NULL;
  c->bytes -= box_bytes(b);
  c->info.mailboxes--;
}

void msi_destroy(struct msi_cache *c) {
  if (!c)
    return;
  while (c->head) {
    struct msi_box *b = c->head;
    unlink_box(c, b);
    box_free(b);
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

// drop_ref releases one reference; the caller holds the lock.
static void drop_ref(struct msi_box *b) {
  if (--b->refs == 0)
    box_free(b);
}

void msi_release(ms_store *s, struct msi_box *b) {
  if (!b)
    return;
  pthread_mutex_lock(&s->index->lock);
  drop_ref(b);
  pthread_mutex_unlock(&s->index->lock);
}

// find returns the cached box of (acct, mbox), moved to the front; the
// caller holds the lock.
static struct msi_box *find(struct msi_cache *c, uint32_t acct, uint32_t mbox) {
  for (struct msi_box *b = c->head; b; b = b->next)
    if (b->acct == acct && b->mbox == mbox) {
      if (b != c->head) {
        uint64_t n = box_bytes(b);
        unlink_box(c, b);
        c->bytes += n;
        c->info.mailboxes++;
        b->next = c->head;
        c->head->prev = b;
        c->head = b;
      }
      return b;
    }
  return NULL;
}

// kw_bits returns membership u's keywords as bits of b's keyword table,
// adding the ids met for the first time; on the (MSI_KEYWORDS + 1)-th
// distinct id it sets b->kw_over and returns 0.
static uint64_t kw_bits(struct msi_box *b, uint8_t slot[MSR_KEYWORDS_MAX],
                        const struct msr_uid *u) {
  uint64_t bits = 0;
  for (uint32_t byte = 0; byte < u->kwlen; byte++) {
    for (uint32_t x = u->kw[byte]; x; x &= x - 1) {
      uint32_t id = byte * 8 + (uint32_t)__builtin_ctz(x);
      if (!slot[id]) {
        if (b->nkw == MSI_KEYWORDS) {
          b->kw_over = 1;
          return 0;
        }
        b->kwids[b->nkw] = (uint16_t)id;
        slot[id] = (uint8_t)++b->nkw;
      }
      bits |= (uint64_t)1 << (slot[id] - 1);
    }
  }
  return bits;
}

// kw_order puts b's keyword table in increasing id order (bits were handed
// out in order of first use) and renumbers every entry's bits to match, or
// clears them all when the mailbox has too many keywords.
static void kw_order(struct msi_box *b) {
  if (b->kw_over) {
    b->nkw = 0;
    for (size_t i = 0; i < b->n; i++)
      b->v[i].kw = 0;
    return;
  }
  int sorted = 1;
  for (uint32_t i = 1; i < b->nkw; i++)
    sorted &= b->kwids[i - 1] < b->kwids[i];
  if (sorted)
    return;
  // to[old bit] = new bit; the table is small, so an insertion sort.
  uint8_t at[MSI_KEYWORDS], to[MSI_KEYWORDS];
  for (uint32_t i = 0; i < b->nkw; i++) {
    uint32_t j = i;
    for (; j > 0 && b->kwids[at[j - 1]] > b->kwids[i]; j--)
      at[j] = at[j - 1];
    at[j] = (uint8_t)i;
  }
  uint16_t ids[MSI_KEYWORDS];
  for (uint32_t i = 0; i < b->nkw; i++) {
    to[at[i]] = (uint8_t)i;
    ids[i] = b->kwids[at[i]];
  }
  memcpy(b->kwids, ids, b->nkw * sizeof *ids);
  for (size_t i = 0; i < b->n; i++) {
    uint64_t nb = 0;
    for (uint64_t x = b->v[i].kw; x; x &= x - 1)
      nb |= (uint64_t)1 << to[__builtin_ctzll(x)];
    b->v[i].kw = nb;
  }
}

// ---- string sort key columns ----

// col_slot is the column of string sort key `key` (MS_SORT_* without
// MS_SORT_REVERSE), or -1 for the numeric keys.
static int col_slot(uint32_t key) {
  switch (key) {
  case MS_SORT_FROM:
    return 0;
  case MS_SORT_TO:
    return 1;
  case MS_SORT_CC:
    return 2;
  case MS_SORT_SUBJECT:
    return 3;
  case MS_SORT_DISPLAYFROM:
    return 4;
  case MS_SORT_DISPLAYTO:
    return 5;
  default:
    return -1;
  }
}

// col_text is the summary field column `slot` holds: the strings sort.c
// compares for the same key.
static const struct ms_text *col_text(const struct ms_summary *sum, int slot) {
  switch (slot) {
  case 0:
    return &sum->from;
  case 1:
    return &sum->to;
  case 2:
    return &sum->cc;
  case 3:
    return &sum->subject;
  case 4:
    return &sum->display_from;
  default:
    return &sum->display_to;
  }
}

// col_prefix packs the first 8 bytes of p (len bytes), a-z as A-Z, big
// endian, zero-padded: two keys whose prefixes differ compare as their
// prefixes do under text_casecmp (a key that ends first pads with zeros,
// below any byte it could be compared with, or equal to a NUL byte, in
// which case the next position decides for both the same way).
static uint64_t col_prefix(const char *p, size_t len) {
  uint64_t x = 0;
  for (size_t i = 0; i < 8; i++) {
    unsigned ch = i < len ? (unsigned char)p[i] : 0;
    if (ch >= 'a' && ch <= 'z')
      ch -= 32;
    x = x << 8 | ch;
  }
  return x;
}

// col_maker fills a column, storing each distinct key once: seen is an
// open-addressing table of entry indices + 1 (0: empty) by key hash.
// did[i] numbers entry i's key among the distinct keys, first[d] is the
// first entry with distinct key d (ndistinct of them; the empty key is
// one too, empty_did + 1 once met).
struct col_maker {
  struct msi_col *c;
  uint32_t *seen;
  size_t mask, arena_cap;
  uint32_t *did, *first;
  uint32_t ndistinct, empty_did;
};

static int col_add(struct col_maker *m, size_t i, const char *p, size_t len) {
  struct msi_col *c = m->c;
  c->pre[i] = col_prefix(p, len);
  c->len[i] = 0;
  c->off[i] = 0;
  if (len == 0) {
    if (!m->empty_did) {
      m->first[m->ndistinct] = (uint32_t)i;
      m->empty_did = ++m->ndistinct;
    }
    m->did[i] = m->empty_did - 1;
    return 0;
  }
  if (len > UINT32_MAX)
    return MS_ERR_LIMIT;
  uint64_t h = 1469598103934665603ull;
  for (size_t k = 0; k < len; k++)
    h = (h ^ (unsigned char)p[k]) * 1099511628211ull;
  size_t at = (size_t)(h ^ h >> 29) & m->mask;
  for (; m->seen[at]; at = (at + 1) & m->mask) {
    uint32_t j = m->seen[at] - 1;
    if (c->len[j] == len && memcmp(c->arena + c->off[j], p, len) == 0) {
      c->off[i] = c->off[j];
      c->len[i] = (uint32_t)len;
      m->did[i] = m->did[j];
      return 0;
    }
  }
  if (len > UINT32_MAX - c->arena_len)
    return MS_ERR_LIMIT;
  if (c->arena_len + len > m->arena_cap) {
    size_t cap = m->arena_cap ? m->arena_cap : 4096;
    while (cap < c->arena_len + len)
      cap *= 2;
    char *a = realloc(c->arena, cap);
    if (!a)
      return -ENOMEM;
    c->arena = a;
    m->arena_cap = cap;
  }
  memcpy(c->arena + c->arena_len, p, len);
  c->off[i] = (uint32_t)c->arena_len;
  c->len[i] = (uint32_t)len;
  c->arena_len += len;
  m->seen[at] = (uint32_t)i + 1;
  m->first[m->ndistinct] = (uint32_t)i;
  m->did[i] = m->ndistinct++;
  return 0;
}

// col_text_cmp compares the keys of entries x and y of column c as
// text_casecmp does: by prefix, then (equal prefixes) by offset (one
// stored key), by length (keys within their prefix), or in full.
static int col_text_cmp(const struct msi_col *c, uint32_t x, uint32_t y) {
  uint64_t a = c->pre[x], b = c->pre[y];
  if (a != b)
    return a < b ? -1 : 1;
  uint32_t ax = c->len[x], by = c->len[y];
  if (c->off[x] == c->off[y] && ax == by)
    return 0;
  if (ax <= 8 && by <= 8)
    return (ax > by) - (ax < by);
  return text_casecmp(c->arena + c->off[x], ax, c->arena + c->off[y], by);
}

static int col_text_cmp_indices(const void *c, uint32_t x, uint32_t y) {
  return col_text_cmp(c, x, y);
}

// col_rank sets c->rank from m: the distinct keys (their first entries)
// sorted once, equal ones (under text_casecmp: "Re" and "RE") ranked
// alike. Returns 0 or -ENOMEM.
static int col_rank(struct col_maker *m, size_t n) {
  struct msi_col *c = m->c;
  uint32_t nd = m->ndistinct;
  uint32_t *v = malloc(((size_t)nd * 2 + 1) * sizeof *v);
  if (!v)
    return -ENOMEM;
  memcpy(v, m->first, (size_t)nd * sizeof *v);
  meta_sort_indices(v, v + nd, nd, col_text_cmp_indices, c);
  // v + nd: the rank of each distinct key, by its number.
  uint32_t *rank_of = v + nd, r = 0;
  for (uint32_t i = 0; i < nd; i++) {
    if (i > 0 && col_text_cmp(c, v[i - 1], v[i]) != 0)
      r++;
    rank_of[m->did[v[i]]] = r;
  }
  for (size_t i = 0; i < n; i++)
    c->rank[i] = rank_of[m->did[i]];
  free(v);
  return 0;
}

// col_make builds column `slot` of b, in b's snapshot t: entry i's key
// comes from old's column (of the previous array) at src[i] when src is
// not NULL and src[i] != UINT32_MAX, else from the message's summary.
// Returns 1 with *out set, 0 when some message has no stored summary
// (sort.c then summarises it from its bytes: the column is not made), or
// an error.
static int col_make(ms_store *s, MDB_txn *t, const struct msi_box *b, int slot,
                    const struct msi_col *old, const uint32_t *src, struct msi_col **out) {
  *out = NULL;
  if (b->n > UINT32_MAX - 1)
    return 0;
  size_t n = b->n, tab = 16;
  while (tab < 2 * n)
    tab *= 2;
  struct col_maker m = {calloc(1, sizeof *m.c),
                        calloc(tab, sizeof *m.seen),
                        tab - 1,
                        0,
                        malloc((n ? n : 1) * sizeof *m.did),
                        malloc((n ? n : 1) * sizeof *m.first),
                        0,
                        0};
  struct msi_col *c = m.c;
  int rc = c && m.seen && m.did && m.first ? 0 : -ENOMEM;
  if (rc == 0) {
    c->rank = malloc((n ? n : 1) * sizeof *c->rank);
    c->pre = malloc((n ? n : 1) * sizeof *c->pre);
    c->off = malloc((n ? n : 1) * sizeof *c->off);
    c->len = malloc((n ? n : 1) * sizeof *c->len);
    if (!c->rank || !c->pre || !c->off || !c->len)
      rc = -ENOMEM;
  }
  MDB_cursor *sc = NULL;
  size_t i = 0;
  for (; rc == 0 && i < n; i++) {
    if (src && src[i] != UINT32_MAX) {
      uint32_t j = src[i];
      rc = col_add(&m, i, old->arena + old->off[j], old->len[j]);
      continue;
    }
    if (!sc && (rc = lmdb_err(mdb_cursor_open(t, s->summaries, &sc))) < 0)
      break;
    MDB_val sv;
    struct ms_summary sum;
    if ((rc = summary_seek(sc, b->acct, b->v[i].message, &sv)) <= 0)
      break; // an error, or no summary (rc 0 with i < n)
    if ((rc = summary_decode(&sum, sv.mv_data, sv.mv_size)) < 0)
      break;
    const struct ms_text *txt = col_text(&sum, slot);
    rc = col_add(&m, i, txt->p, txt->len);
  }
  if (sc)
    mdb_cursor_close(sc);
  free(m.seen);
  if (rc == 0 && i == n)
    rc = col_rank(&m, n);
  free(m.did);
  free(m.first);
  if (rc < 0 || i < n) {
    col_free(c);
    return rc;
  }
  if (c->arena_len && c->arena_len < m.arena_cap) {
    char *ar = realloc(c->arena, c->arena_len);
    if (ar)
      c->arena = ar;
  }
  c->bytes = sizeof *c + n * (sizeof *c->rank + sizeof *c->pre + sizeof *c->off + sizeof *c->len) +
             c->arena_len;
  *out = c;
  return 1;
}

// build reads mailbox (acct, mbox) from t into b->v, taking the message
// fields of ids that old (may be NULL) already holds from it: a message's
// size, date and thread never change, so after a flag change or a delivery
// only the memberships are read again.
static int build(ms_store *s, MDB_txn *t, struct msi_box *b, const struct msi_box *old, size_t cap,
                 struct msi_col *const oldcol[MSI_COLS]) {
  b->v = malloc((cap ? cap : 1) * sizeof *b->v);
  if (!b->v)
    return -ENOMEM;
  // With string key columns to carry over: src[i] is entry i's position in
  // old when it is the same message there, else UINT32_MAX.
  int carry = 0;
  for (int i = 0; i < MSI_COLS; i++)
    carry |= oldcol[i] != NULL;
  uint32_t *src = NULL;
  if (carry && !(src = malloc((cap ? cap : 1) * sizeof *src)))
    return -ENOMEM;
  // slot[id] is keyword id's bit + 1 in this build (0: not met yet); bits
  // are handed out in order of first use and put in id order at the end.
  uint8_t slot[MSR_KEYWORDS_MAX];
  memset(slot, 0, sizeof slot);
  MDB_cursor *cur;
  int rc = lmdb_err(mdb_cursor_open(t, s->uids, &cur));
  if (rc < 0)
    return rc;
  uint8_t k[12];
  uid_key(k, b->acct, b->mbox, 0);
  MDB_val key = val(k, sizeof k), v;
  int op = MDB_SET_RANGE, r;
  size_t n = 0, oi = 0;
  while ((r = mdb_cursor_get(cur, &key, &v, op)) == 0) {
    op = MDB_NEXT;
    if (key.mv_size != 12 || memcmp(key.mv_data, k, 8) != 0)
      break;
    struct msr_uid u;
    if ((rc = msr_uid_decode(&u, v.mv_data, v.mv_size)) < 0)
      break;
    if (n == cap) {
      // The mailbox record's count was low (only a damaged one is): grow.
      cap = cap ? 2 * cap : 64;
      struct msi_ent *nv = realloc(b->v, cap * sizeof *nv);
      if (!nv) {
        rc = -ENOMEM;
        break;
      }
      b->v = nv;
      if (src) {
        uint32_t *ns = realloc(src, cap * sizeof *ns);
        if (!ns) {
          rc = -ENOMEM;
          break;
        }
        src = ns;
      }
    }
    struct msi_ent *e = &b->v[n];
    e->uid = msr_get_be32((const uint8_t *)key.mv_data + 8);
    e->flags = u.flags;
    e->message = u.message;
    e->modseq = u.modseq;
    e->kw = u.kwlen && !b->kw_over ? kw_bits(b, slot, &u) : 0;
    while (old && oi < old->n && old->v[oi].uid < e->uid)
      oi++;
    if (old && !old->no_dates && oi < old->n && old->v[oi].uid == e->uid &&
        old->v[oi].message == u.message) {
      e->idate = old->v[oi].idate;
      e->date = old->v[oi].date;
      e->thread = old->v[oi].thread;
      e->size = old->v[oi].size;
      if (src)
        src[n] = oi < UINT32_MAX ? (uint32_t)oi : UINT32_MAX;
    } else {
      if (src)
        src[n] = UINT32_MAX;
      uint8_t mk[12];
      msr_be32(mk, b->acct);
      msr_be64(mk + 4, u.message);
      MDB_val mv;
      struct msr_message msg;
      if ((rc = get(t, s->messages, mk, sizeof mk, &mv)) < 0 ||
          (rc = msr_message_decode(&msg, mv.mv_data, mv.mv_size)) < 0) {
        // A membership without its message is damage, not absence.
        rc = rc == MS_ERR_NOTFOUND ? MS_ERR_CORRUPT : rc;
        break;
      }
      e->idate = msg.internal_date;
      e->thread = msg.thread;
      e->size = msg.size > UINT32_MAX ? UINT32_MAX : (uint32_t)msg.size;
      // The sent date comes from the summary; a message without a stored
      // one (written before summaries existed) marks the array unfit for
      // date sorts rather than costing a parse here.
      MDB_val sv;
      struct ms_summary sum;
      int found = rc = summary_load(s, t, b->acct, u.message, &sv);
      if (rc < 0 || (found && (rc = summary_decode(&sum, sv.mv_data, sv.mv_size)) < 0))
        break;
      if (found) {
        e->date = sum.date;
      } else {
        e->date = msg.internal_date;
        b->no_dates = 1;
      }
      rc = 0;
    }
    n++;
  }
  if (rc == 0 && r != 0 && r != MDB_NOTFOUND)
    rc = lmdb_err(r);
  mdb_cursor_close(cur);
  b->n = n;
  if (rc == 0)
    kw_order(b);
  // Columns the previous array had: messages still here keep their keys,
  // new ones read theirs from their summaries (a column that cannot be
  // made is left out, and made again on a sort that needs it).
  for (int i = 0; rc == 0 && i < MSI_COLS; i++)
    if (oldcol[i] && (rc = col_make(s, t, b, i, oldcol[i], src, &b->col[i])) > 0)
      rc = 0;
  free(src);
  return rc;
}

int msi_get(ms_store *s, MDB_txn *t, uint32_t acct, uint32_t mbox, const struct msr_mailbox *m,
            int may_build, struct msi_box **out) {
  struct msi_cache *c = s->index;
  *out = NULL;
  uint64_t need = sizeof(struct msi_box) + (uint64_t)m->total * sizeof(struct msi_ent);
  if (need > c->max_bytes)
    return 0;
  pthread_mutex_lock(&c->lock);
  struct msi_box *old = find(c, acct, mbox);
  if (old && old->uidvalidity == m->uidvalidity && old->modseq == m->highest_modseq) {
    old->refs++;
    c->info.hits++;
    pthread_mutex_unlock(&c->lock);
    *out = old;
    return 1;
  }
  if (!may_build) {
    pthread_mutex_unlock(&c->lock);
    return 0;
  }
  // Keep the old array alive while building outside the lock, so that
  // other mailboxes' readers are not held up by this one's build.
  struct msi_col *oldcol[MSI_COLS] = {NULL};
  if (old && old->uidvalidity == m->uidvalidity) {
    old->refs++;
    memcpy(oldcol, old->col, sizeof oldcol);
  } else {
    old = NULL;
  }
  pthread_mutex_unlock(&c->lock);

  struct msi_box *b = calloc(1, sizeof *b);
  int rc = b ? 0 : -ENOMEM;
  if (b) {
    b->acct = acct;
    b->mbox = mbox;
    b->uidvalidity = m->uidvalidity;
    b->modseq = m->highest_modseq;
    b->refs = 2; // the cache's and the caller's
    rc = build(s, t, b, old, m->total, oldcol);
  }
  pthread_mutex_lock(&c->lock);
  if (old)
    drop_ref(old);
  if (rc < 0) {
    pthread_mutex_unlock(&c->lock);
    if (b)
      box_free(b);
    return rc;
  }
  c->info.builds++;
  if (old)
    c->info.rebuilds++;
  // Another thread may have cached this mailbox meanwhile; the newer
  // HIGHESTMODSEQ wins (an older snapshot's reader keeps its own copy).
  struct msi_box *cur = find(c, acct, mbox);
  int keep = !cur || cur->uidvalidity != b->uidvalidity || cur->modseq < b->modseq;
  if (keep) {
    if (cur) {
      unlink_box(c, cur);
      drop_ref(cur);
    }
    b->next = c->head;
    if (c->head)
      c->head->prev = b;
    c->head = b;
    if (!c->tail)
      c->tail = b;
    c->bytes += box_bytes(b);
    c->info.mailboxes++;
    while (c->bytes > c->max_bytes && c->tail && c->tail != b) {
      struct msi_box *e = c->tail;
      unlink_box(c, e);
      c->info.evictions++;
      drop_ref(e);
    }
  } else {
    b->refs = 1; // only the caller's
  }
  c->info.bytes = c->bytes;
  pthread_mutex_unlock(&c->lock);
  *out = b;
  return 1;
}

// uid_lower_bound returns the position of the first entry of b with UID
// >= uid.
static size_t uid_lower_bound(const struct msi_box *b, uint32_t uid) {
  size_t lo = 0, hi = b->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (b->v[mid].uid < uid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void msi_list(const struct msi_box *b, struct ms_entry *out, size_t out_cap, size_t *out_len,
              uint32_t first_uid) {
  size_t n = 0;
  for (size_t i = uid_lower_bound(b, first_uid); i < b->n && n < out_cap; i++, n++)
    out[n] = (struct ms_entry){b->v[i].uid, b->v[i].flags, b->v[i].message, b->v[i].modseq};
  *out_len = n;
}

int msi_list_keywords(const struct msi_box *b, struct ms_keyword_entry *out, size_t out_cap,
                      size_t *out_len, uint32_t *ids, size_t ids_cap, size_t *ids_len,
                      uint32_t first_uid) {
  if (b->kw_over)
    return 0;
  size_t n = 0, ni = 0;
  int rc = 1;
  for (size_t i = uid_lower_bound(b, first_uid); i < b->n && n < out_cap; i++) {
    const struct msi_ent *e = &b->v[i];
    size_t cnt = (size_t)__builtin_popcountll(e->kw);
    if (cnt > ids_cap - ni) {
      if (n == 0)
        rc = MS_ERR_LIMIT;
      break;
    }
    out[n++] = (struct ms_keyword_entry){
        {e->uid, e->flags, e->message, e->modseq}, (uint32_t)ni, (uint32_t)cnt};
    for (uint64_t x = e->kw; x; x &= x - 1)
      ids[ni++] = b->kwids[__builtin_ctzll(x)];
  }
  *out_len = n;
  *ids_len = ni;
  return rc;
}

int msi_mailbox_keywords(const struct msi_box *b, uint32_t *out, size_t out_cap, size_t *out_len) {
  if (b->kw_over)
    return 0;
  for (uint32_t i = 0; i < b->nkw && i < out_cap; i++)
    out[i] = b->kwids[i];
  *out_len = b->nkw;
  return 1;
}

size_t msi_changes(const struct msi_box *b, struct ms_entry *out, size_t out_cap, uint64_t since) {
  size_t n = 0;
  for (size_t i = 0; i < b->n; i++) {
    if (b->v[i].modseq <= since)
      continue;
    if (n < out_cap)
      out[n] = (struct ms_entry){b->v[i].uid, b->v[i].flags, b->v[i].message, b->v[i].modseq};
    n++;
  }
  return n;
}

struct sort_ctx {
  const struct msi_ent *v;
  const uint32_t *keys;
  size_t nkeys;
  const struct msi_col *col[MSI_COLS];
};

static int ent_cmp(const struct sort_ctx *c, uint32_t x, uint32_t y) {
  const struct msi_ent *a = &c->v[x], *b = &c->v[y];
  for (size_t i = 0; i < c->nkeys; i++) {
    int r;
    uint32_t k = c->keys[i] & ~(uint32_t)MS_SORT_REVERSE;
    if (k == MS_SORT_ARRIVAL)
      r = (a->idate > b->idate) - (a->idate < b->idate);
    else if (k == MS_SORT_DATE)
      r = (a->date > b->date) - (a->date < b->date);
    else if (k == MS_SORT_SIZE)
      r = (a->size > b->size) - (a->size < b->size);
    else {
      const uint32_t *rank = c->col[col_slot(k)]->rank;
      r = (rank[x] > rank[y]) - (rank[x] < rank[y]);
    }
    if (r)
      return (c->keys[i] & MS_SORT_REVERSE) ? -r : r;
  }
  // Equal on every key: UID order, whatever MS_SORT_REVERSE says (RFC 5256).
  return (x > y) - (x < y);
}

static int ent_cmp_indices(const void *c, uint32_t x, uint32_t y) {
  return ent_cmp(c, x, y);
}

// cols_get sets c->col for the string keys of keys[]: b's own columns,
// made now in b's snapshot t when missing and attached to b when it is
// cached and the bound allows (else kept in tmp[] for this call only).
// Returns 1, 0 when a column cannot be made (a message without a stored
// summary), or an error.
static int cols_get(ms_store *s, MDB_txn *t, struct msi_box *b, const uint32_t *keys,
                    size_t key_count, struct sort_ctx *c, struct msi_col *tmp[MSI_COLS]) {
  struct msi_cache *cc = s->index;
  for (size_t i = 0; i < key_count; i++) {
    int slot = col_slot(keys[i] & ~(uint32_t)MS_SORT_REVERSE);
    if (slot < 0 || c->col[slot])
      continue;
    pthread_mutex_lock(&cc->lock);
    c->col[slot] = b->col[slot];
    pthread_mutex_unlock(&cc->lock);
    if (c->col[slot])
      continue;
    struct msi_col *made;
    int rc = col_make(s, t, b, slot, NULL, NULL, &made);
    if (rc <= 0)
      return rc;
    pthread_mutex_lock(&cc->lock);
    int cached = cc->head == b || b->prev || b->next;
    if (b->col[slot]) {
      tmp[slot] = made; // another thread made it meanwhile: use theirs
      c->col[slot] = b->col[slot];
    } else if (cached && cc->bytes + made->bytes <= cc->max_bytes) {
      b->col[slot] = made;
      cc->bytes += made->bytes;
      cc->info.bytes = cc->bytes;
      c->col[slot] = made;
    } else {
      tmp[slot] = made;
      c->col[slot] = made;
    }
    pthread_mutex_unlock(&cc->lock);
  }
  return 1;
}

int msi_sort(ms_store *s, uint32_t *out, size_t out_cap, size_t *out_len, size_t *out_total,
             uint32_t acct, uint32_t mbox, const uint32_t *keys, size_t key_count, size_t offset) {
  if (!key_count)
    return 0;
  int dates = 0;
  for (size_t i = 0; i < key_count; i++) {
    uint32_t k = keys[i] & ~(uint32_t)MS_SORT_REVERSE;
    if (k != MS_SORT_ARRIVAL && k != MS_SORT_SIZE && k != MS_SORT_DATE && col_slot(k) < 0)
      return 0;
    dates |= k == MS_SORT_DATE;
  }
  MDB_txn *t;
  int rc = txn_begin(s, MDB_RDONLY, &t);
  if (rc < 0)
    return rc;
  struct msr_mailbox m;
  struct msi_box *b = NULL;
  if ((rc = mbox_load(s, t, acct, mbox, &m)) == 0)
    rc = msi_get(s, t, acct, mbox, &m, 1, &b);
  if (rc <= 0) {
    txn_abort(s, t);
    return rc;
  }
  struct sort_ctx c = {b->v, keys, key_count, {NULL}};
  struct msi_col *tmp[MSI_COLS] = {NULL};
  if (dates && b->no_dates)
    rc = 0;
  else if (b->n > UINT32_MAX)
    rc = MS_ERR_LIMIT;
  else
    rc = cols_get(s, t, b, keys, key_count, &c, tmp);
  txn_abort(s, t);
  struct msi_cache *cc = s->index;
  uint32_t *idx = NULL;
  if (rc <= 0)
    goto done;
  pthread_mutex_lock(&cc->lock);
  const uint32_t *order = key_count == 1 && b->order && b->order_key == keys[0] ? b->order : NULL;
  pthread_mutex_unlock(&cc->lock);
  if (!order) {
    if (!(idx = malloc((b->n ? b->n : 1) * 2 * sizeof *idx))) {
      rc = -ENOMEM;
      goto done;
    }
    for (size_t i = 0; i < b->n; i++)
      idx[i] = (uint32_t)i;
    meta_sort_indices(idx, idx + b->n, b->n, ent_cmp_indices, &c);
    order = idx;
  }
  size_t n = 0;
  for (size_t i = offset; i < b->n && n < out_cap; i++)
    out[n++] = b->v[order[i]].uid;
  *out_len = n;
  if (out_total)
    *out_total = b->n;
  if (idx && key_count == 1) {
    // Keep this order with the array if it has none and the bound allows.
    pthread_mutex_lock(&cc->lock);
    int cached = cc->head == b || b->prev || b->next;
    uint64_t more = b->n * sizeof *idx;
    if (!b->order && cached && cc->bytes + more <= cc->max_bytes) {
      uint32_t *kept = realloc(idx, (b->n ? b->n : 1) * sizeof *idx);
      b->order = kept ? kept : idx;
      b->order_key = keys[0];
      cc->bytes += more;
      cc->info.bytes = cc->bytes;
      idx = NULL;
    }
    pthread_mutex_unlock(&cc->lock);
  }
  rc = 1;
done:
  free(idx);
  for (int i = 0; i < MSI_COLS; i++)
    col_free(tmp[i]);
  msi_release(s, b);
  return rc;
}

int ms_store_index_info(ms_store *store, struct ms_index_info *out) {
  if (!store || !out)
    return MS_ERR_INVALID_ARGUMENT;
  pthread_mutex_lock(&store->index->lock);
  *out = store->index->info;
  out->bytes = store->index->bytes;
  pthread_mutex_unlock(&store->index->lock);
  return 0;
}
