// thread.c: IMAP THREAD (RFC 5256 section 3): a mailbox's messages are
// threaded in memory, REFERENCES or ORDEREDSUBJECT, from the cached
// summaries, and printed as the THREAD response's list. The JMAP thread
// ids that delivery assigns from the thread index are thread_index.c's.
#include "meta.h"

#include "mailstore.h"
#include "store_internal.h"
#include "store_records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

// ---- RFC 5256 THREAD in memory ----

#define NONE UINT32_MAX

// forest is the containers of RFC 5256 section 3: msg is an item index or
// NONE for a dummy; first/next are the child lists being built.
struct forest {
  const struct mitems *m;
  uint32_t *msg, *parent, *first, *next;
  size_t n, cap;
};

static int forest_add(struct forest *f, uint32_t msg) {
  if (f->n == f->cap) {
    size_t cap = f->cap ? f->cap * 2 : 64;
    uint32_t **a[] = {&f->msg, &f->parent, &f->first, &f->next};
    for (size_t i = 0; i < 4; i++) {
      uint32_t *p = realloc(*a[i], cap * sizeof *p);
      if (!p)
        return -ENOMEM;
      *a[i] = p;
    }
    f->cap = cap;
  }
  if (f->n >= NONE - 1)
    return MS_ERR_LIMIT;
  f->msg[f->n] = msg;
  f->parent[f->n] = f->first[f->n] = f->next[f->n] = NONE;
  return (int)f->n++;
}

static void forest_free(struct forest *f) {
  free(f->msg);
  free(f->parent);
  free(f->first);
  free(f->next);
}

// idtab maps Message-IDs (arena strings) to containers; open addressing.
struct idtab {
  const char *base;
  uint32_t *slot; // container + 1, 0 empty
  const char **key;
  size_t *klen;
  size_t cap, used;
};

static uint64_t hash_bytes(const char *p, size_t n, int fold) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if (fold && c >= 'a' && c <= 'z')
      c -= 32;
    h = (h ^ c) * 1099511628211ull;
  }
  return h;
}

static int idtab_init(struct idtab *t, size_t expect) {
  t->cap = 64;
  while (t->cap < expect * 2)
    t->cap *= 2;
  t->used = 0;
  t->slot = calloc(t->cap, sizeof *t->slot);
  t->key = malloc(t->cap * sizeof *t->key);
  t->klen = malloc(t->cap * sizeof *t->klen);
  return t->slot && t->key && t->klen ? 0 : -ENOMEM;
}

static void idtab_free(struct idtab *t) {
  free(t->slot);
  free(t->key);
  free(t->klen);
}

// idtab_find returns the slot of key (p, n): its container + 1, or 0 in an
// empty slot where it may be inserted. fold compares without ASCII case.
static size_t idtab_find(const struct idtab *t, const char *p, size_t n, int fold) {
  size_t i = (size_t)hash_bytes(p, n, fold) & (t->cap - 1);
  while (t->slot[i]) {
    if (fold ? text_casecmp(t->key[i], t->klen[i], p, n) == 0
             : t->klen[i] == n && memcmp(t->key[i], p, n) == 0)
      return i;
    i = (i + 1) & (t->cap - 1);
  }
  return i;
}

static int idtab_put(struct idtab *t, size_t i, const char *p, size_t n, uint32_t c, int fold) {
  if (!t->slot[i])
    t->used++;
  t->slot[i] = c + 1;
  t->key[i] = p;
  t->klen[i] = n;
  if (t->used * 2 <= t->cap)
    return 0;
  struct idtab g;
  if (idtab_init(&g, t->cap) < 0) {
    idtab_free(&g);
    return -ENOMEM;
  }
  for (size_t j = 0; j < t->cap; j++)
    if (t->slot[j]) {
      size_t k = idtab_find(&g, t->key[j], t->klen[j], fold);
      g.slot[k] = t->slot[j];
      g.key[k] = t->key[j];
      g.klen[k] = t->klen[j];
      g.used++;
    }
  idtab_free(t);
  *t = g;
  return 0;
}

// container_for finds or creates the container of Message-ID (p, n).
static int container_for(struct forest *f, struct idtab *t, const char *p, size_t n) {
  size_t i = idtab_find(t, p, n, 0);
  if (t->slot[i])
    return (int)(t->slot[i] - 1);
  int c = forest_add(f, NONE);
  if (c < 0)
    return c;
  int rc = idtab_put(t, i, p, n, (uint32_t)c, 0);
  return rc < 0 ? rc : c;
}

// descends reports whether a is c or below c (walking a's parents).
static int descends(const struct forest *f, uint32_t a, uint32_t c) {
  for (; a != NONE; a = f->parent[a])
    if (a == c)
      return 1;
  return 0;
}

// would_loop reports whether making c the parent's child would close a
// loop, i.e. whether p is c or below it. During step 1 first[x] != NONE
// marks a container that has (had) a child: one that never had any, as a
// message's fresh container, cannot be above p, which spares the walk up
// a long chain for every message of it.
static int would_loop(const struct forest *f, uint32_t p, uint32_t c) {
  return p == c || (f->first[c] != NONE && descends(f, p, c));
}

// link_refs is step 1 of REFERENCES for item i.
static int link_refs(struct forest *f, struct idtab *t, uint32_t i) {
  const struct mitem *it = &f->m->v[i];
  const char *a = f->m->arena;
  const char *r = a + it->off[MF_REFERENCES];
  size_t rl = it->len[MF_REFERENCES];
  if (rl == 0) {
    // No References: the first In-Reply-To id is the only parent.
    r = a + it->off[MF_IN_REPLY_TO];
    rl = it->len[MF_IN_REPLY_TO];
  }
  uint32_t prev = NONE;
  for (size_t b = 0; b < rl;) {
    size_t e = b;
    while (e < rl && r[e] != ' ')
      e++;
    int c = container_for(f, t, r + b, e - b);
    if (c < 0)
      return c;
    uint32_t cu = (uint32_t)c;
    // 1.A: keep existing links, make no loop.
    if (prev != NONE && f->parent[cu] == NONE && !would_loop(f, prev, cu)) {
      f->parent[cu] = prev;
      f->first[prev] = prev;
    }
    prev = cu;
    b = e + 1;
  }
  // 1.B: the message's own container; a missing or repeated Message-ID
  // gets a container of its own.
  uint32_t own = NONE;
  size_t il = it->len[MF_MESSAGE_ID];
  if (il) {
    size_t k = idtab_find(t, a + it->off[MF_MESSAGE_ID], il, 0);
    if (t->slot[k] && f->msg[t->slot[k] - 1] == NONE) {
      own = t->slot[k] - 1;
      f->msg[own] = i;
    } else if (!t->slot[k]) {
      int c = forest_add(f, i);
      if (c < 0)
        return c;
      own = (uint32_t)c;
      int rc = idtab_put(t, k, a + it->off[MF_MESSAGE_ID], il, own, 0);
      if (rc < 0)
        return rc;
    }
  }
  if (own == NONE) {
    int c = forest_add(f, i);
    if (c < 0)
      return c;
    own = (uint32_t)c;
  }
  f->parent[own] = NONE;
  if (prev != NONE && !would_loop(f, prev, own)) {
    f->parent[own] = prev;
    f->first[prev] = prev;
  }
  return 0;
}

// Sorting siblings: by sent date, then sequence; a dummy by its first
// child (already sorted).
static uint32_t rep(const struct forest *f, uint32_t c) {
  while (f->msg[c] == NONE && f->first[c] != NONE)
    c = f->first[c];
  return f->msg[c];
}

static int sib_cmp(const struct forest *f, uint32_t a, uint32_t b) {
  uint32_t ma = rep(f, a), mb = rep(f, b);
  if (ma == NONE || mb == NONE)
    return ma == mb ? 0 : ma == NONE ? 1 : -1;
  int64_t da = f->m->v[ma].date, db = f->m->v[mb].date;
  if (da != db)
    return da < db ? -1 : 1;
  return ma < mb ? -1 : ma > mb;
}

// sort_list sorts the list starting at *head (linked by next) in place;
// tmp has room for every container.
static void sort_list(struct forest *f, uint32_t *head, uint32_t *tmp, uint32_t *tmp2) {
  size_t n = 0;
  for (uint32_t c = *head; c != NONE; c = f->next[c])
    tmp[n++] = c;
  if (n < 2)
    return;
  // Bottom-up merge sort; sib_cmp is a total order, so stability is moot.
  uint32_t *src = tmp, *dst = tmp2;
  for (size_t w = 1; w < n; w *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * w) {
      size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        dst[o++] = sib_cmp(f, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid)
        dst[o++] = src[i++];
      while (j < hi)
        dst[o++] = src[j++];
    }
    uint32_t *x = src;
    src = dst;
    dst = x;
  }
  *head = src[0];
  for (size_t i = 0; i + 1 < n; i++)
    f->next[src[i]] = src[i + 1];
  f->next[src[n - 1]] = NONE;
}

// postorder writes every container below the roots list (children before
// parents) to order and returns their number.
static size_t postorder(const struct forest *f, uint32_t roots, uint32_t *order, uint32_t *stack,
                        uint8_t *seen) {
  size_t n = 0, sp = 0;
  for (uint32_t r = roots; r != NONE; r = f->next[r]) {
    stack[sp++] = r;
    while (sp) {
      uint32_t c = stack[sp - 1];
      if (!seen[c]) {
        seen[c] = 1;
        for (uint32_t k = f->first[c]; k != NONE; k = f->next[k])
          stack[sp++] = k;
      } else {
        sp--;
        order[n++] = c;
        seen[c] = 0;
      }
    }
  }
  return n;
}

// sort_all sorts every sibling set bottom-up, then the roots (steps 4, 6).
static void sort_all(struct forest *f, uint32_t *roots, uint32_t *w1, uint32_t *w2, uint32_t *w3,
                     uint8_t *seen) {
  size_t n = postorder(f, *roots, w1, w2, seen);
  for (size_t i = 0; i < n; i++)
    sort_list(f, &f->first[w1[i]], w2, w3);
  sort_list(f, roots, w2, w3);
}

// Output.
struct out {
  char *p;
  size_t cap, len;
};

static void put_ch(struct out *o, char c) {
  if (o->len < o->cap)
    o->p[o->len] = c;
  o->len++;
}

static void put_uid(struct out *o, uint32_t v) {
  char b[10];
  int n = 0;
  do {
    b[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n)
    put_ch(o, b[--n]);
}

// print writes one thread (RFC 5256 section 4: thread-list) without
// recursion: a chain of single children is one run of numbers, a node with
// several children opens one list per child. stack needs a slot per
// container.
static void print(const struct forest *f, uint32_t root, struct out *o, uint32_t *stack) {
  size_t sp = 0;
  uint32_t c = root;
  int first = 1;
  put_ch(o, '(');
  for (;;) {
    if (f->msg[c] != NONE) {
      if (!first)
        put_ch(o, ' ');
      put_uid(o, f->m->v[f->msg[c]].uid);
      first = 0;
    }
    uint32_t k = f->first[c];
    if (k != NONE && f->next[k] == NONE) {
      c = k;
      continue;
    }
    if (k != NONE) {
      if (!first)
        put_ch(o, ' ');
      put_ch(o, '(');
      stack[sp++] = k;
      c = k;
      first = 1;
      continue;
    }
    // A leaf: close the lists that end here and open the next sibling's.
    for (;;) {
      if (!sp) {
        put_ch(o, ')');
        return;
      }
      put_ch(o, ')');
      uint32_t nx = f->next[stack[sp - 1]];
      if (nx != NONE) {
        stack[sp - 1] = nx;
        put_ch(o, '(');
        c = nx;
        first = 1;
        break;
      }
      sp--;
    }
  }
}

// subject_of gives a root's subject: its message's, or its first child's.
static uint32_t subject_msg(const struct forest *f, uint32_t c) {
  return rep(f, c);
}

// references_thread runs RFC 5256 REFERENCES steps 1 to 6 and leaves the
// sorted roots in *roots.
static int references_thread(struct forest *f, uint32_t *roots, uint32_t **work, uint8_t **seen) {
  const struct mitems *m = f->m;
  struct idtab t;
  int rc = idtab_init(&t, m->n + 16);
  for (size_t i = 0; rc == 0 && i < m->n; i++)
    rc = link_refs(f, &t, (uint32_t)i);
  idtab_free(&t);
  if (rc < 0)
    return rc;
  size_t n = f->n;
  // Working arrays: three of n containers, plus room for new dummies
  // (at most one per root in step 5).
  size_t cap = 2 * n + 2;
  uint32_t *w = malloc(5 * cap * sizeof *w);
  uint8_t *sn = calloc(cap, 1);
  *work = w;
  *seen = sn;
  if (!w || !sn)
    return -ENOMEM;
  uint32_t *w1 = w, *w2 = w + cap, *w3 = w + 2 * cap, *rh = w + 3 * cap, *rt = w + 4 * cap;
  // Step 2: child lists from the parent links, in container order.
  *roots = NONE;
  for (size_t i = 0; i < n; i++)
    f->first[i] = NONE;
  for (size_t i = n; i-- > 0;) {
    uint32_t p = f->parent[i];
    uint32_t *h = p == NONE ? roots : &f->first[p];
    f->next[i] = *h;
    *h = (uint32_t)i;
  }
  // Step 3: prune dummies, bottom-up. rh/rt hold the list each container
  // leaves in its parent's place.
  size_t no = postorder(f, *roots, w1, w2, sn);
  for (size_t x = 0; x < no; x++) {
    uint32_t c = w1[x], h = NONE, tl = NONE;
    for (uint32_t k = f->first[c], nk; k != NONE; k = nk) {
      nk = f->next[k];
      if (rh[k] == NONE)
        continue;
      if (h == NONE)
        h = rh[k];
      else
        f->next[tl] = rh[k];
      tl = rt[k];
    }
    f->first[c] = h;
    if (tl != NONE)
      f->next[tl] = NONE;
    if (f->msg[c] != NONE) {
      rh[c] = rt[c] = c;
    } else if (h == NONE) {
      rh[c] = rt[c] = NONE;
    } else if (f->parent[c] != NONE || f->next[h] == NONE) {
      rh[c] = h;
      rt[c] = tl;
    } else {
      rh[c] = rt[c] = c;
    }
  }
  uint32_t nr = NONE, nrt = NONE;
  for (uint32_t r = *roots, nx; r != NONE; r = nx) {
    nx = f->next[r];
    if (rh[r] == NONE)
      continue;
    if (nr == NONE)
      nr = rh[r];
    else
      f->next[nrt] = rh[r];
    nrt = rt[r];
  }
  if (nrt != NONE)
    f->next[nrt] = NONE;
  *roots = nr;
  // Step 4.
  sort_all(f, roots, w1, w2, w3, sn);
  // Step 5: merge roots by base subject.
  size_t nroots = 0;
  for (uint32_t r = *roots; r != NONE; r = f->next[r])
    w1[nroots++] = r;
  struct idtab st;
  if ((rc = idtab_init(&st, nroots + 16)) < 0) {
    idtab_free(&st);
    return rc;
  }
  const char *a = m->arena;
#define SUBJ(c) (a + m->v[subject_msg(f, c)].off[MF_SUBJECT])
#define SUBJLEN(c) (m->v[subject_msg(f, c)].len[MF_SUBJECT])
#define REPLY(c) ((m->v[subject_msg(f, c)].flags & MS_SUMMARY_REPLY) != 0)
#define DUMMY(c) (f->msg[c] == NONE)
  for (size_t i = 0; rc == 0 && i < nroots; i++) {
    uint32_t c = w1[i];
    if (!SUBJLEN(c))
      continue;
    size_t k = idtab_find(&st, SUBJ(c), SUBJLEN(c), 1);
    if (!st.slot[k]) {
      rc = idtab_put(&st, k, SUBJ(c), SUBJLEN(c), c, 1);
      continue;
    }
    uint32_t e = st.slot[k] - 1;
    if ((DUMMY(c) && !DUMMY(e)) || (!DUMMY(e) && !DUMMY(c) && REPLY(e) && !REPLY(c)))
      st.slot[k] = c + 1;
  }
  // w3 marks removed roots; new dummies are appended to w1.
  for (size_t i = 0; i < nroots; i++)
    w3[w1[i]] = 0;
  size_t total = nroots;
  for (size_t i = 0; rc == 0 && i < nroots; i++) {
    uint32_t c = w1[i];
    if (w3[c] || !SUBJLEN(c))
      continue;
    size_t k = idtab_find(&st, SUBJ(c), SUBJLEN(c), 1);
    uint32_t e = st.slot[k] - 1;
    if (e == c)
      continue;
    if (DUMMY(e) && DUMMY(c)) {
      // 5.C.i: c's children join e's.
      uint32_t k2 = f->first[c];
      while (k2 != NONE) {
        uint32_t nx = f->next[k2];
        f->next[k2] = f->first[e];
        f->first[e] = k2;
        k2 = nx;
      }
      f->first[c] = NONE;
      w3[c] = 1;
    } else if (DUMMY(e) || DUMMY(c)) {
      // 5.C.ii: the message goes under the dummy.
      uint32_t d = DUMMY(e) ? e : c, x = DUMMY(e) ? c : e;
      f->next[x] = f->first[d];
      f->first[d] = x;
      w3[x] = 1;
      st.slot[k] = d + 1;
    } else if (!REPLY(e) && REPLY(c)) {
      // 5.C.iii.
      f->next[c] = f->first[e];
      f->first[e] = c;
      w3[c] = 1;
    } else {
      // 5.C.iv: both under a new dummy, which takes e's place.
      int dn = forest_add(f, NONE);
      if (dn < 0) {
        rc = dn;
        break;
      }
      uint32_t d = (uint32_t)dn;
      if (d >= cap) {
        rc = MS_ERR_CORRUPT;
        break;
      }
      f->first[d] = e;
      f->next[e] = c;
      f->next[c] = NONE;
      w3[e] = w3[c] = 1;
      w3[d] = 0;
      w1[total++] = d;
      st.slot[k] = d + 1;
    }
  }
#undef SUBJ
#undef SUBJLEN
#undef REPLY
#undef DUMMY
  idtab_free(&st);
  if (rc < 0)
    return rc;
  nr = NONE;
  for (size_t i = total; i-- > 0;)
    if (!w3[w1[i]]) {
      f->next[w1[i]] = nr;
      nr = w1[i];
    }
  *roots = nr;
  // Step 6.
  sort_all(f, roots, w1, w2, w3, sn);
  return 0;
}

// ORDEREDSUBJECT ordering: base subject, then sent date, then sequence.
struct os_ctx {
  const struct mitems *m;
};

static int os_cmp(const struct mitems *m, uint32_t a, uint32_t b) {
  const struct mitem *x = &m->v[a], *y = &m->v[b];
  int r = text_casecmp(m->arena + x->off[MF_SUBJECT], x->len[MF_SUBJECT],
                       m->arena + y->off[MF_SUBJECT], y->len[MF_SUBJECT]);
  if (r)
    return r;
  if (x->date != y->date)
    return x->date < y->date ? -1 : 1;
  return a < b ? -1 : a > b;
}

static int orderedsubject_thread(struct forest *f, uint32_t *roots, uint32_t **work,
                                 uint8_t **seen) {
  const struct mitems *m = f->m;
  for (size_t i = 0; i < m->n; i++) {
    int c = forest_add(f, (uint32_t)i);
    if (c < 0)
      return c;
  }
  size_t n = m->n, cap = n + 2;
  uint32_t *w = malloc(3 * cap * sizeof *w);
  uint8_t *sn = calloc(cap, 1);
  *work = w;
  *seen = sn;
  if (!w || !sn)
    return -ENOMEM;
  uint32_t *src = w, *dst = w + cap;
  for (size_t i = 0; i < n; i++)
    src[i] = (uint32_t)i;
  for (size_t wd = 1; wd < n; wd *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * wd) {
      size_t mid = lo + wd < n ? lo + wd : n, hi = lo + 2 * wd < n ? lo + 2 * wd : n;
      size_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        dst[o++] = os_cmp(m, src[j], src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid)
        dst[o++] = src[i++];
      while (j < hi)
        dst[o++] = src[j++];
    }
    uint32_t *x = src;
    src = dst;
    dst = x;
  }
  // Each run of one subject: the first message is the root, the others
  // its children in the same order.
  uint32_t nr = NONE, last = NONE, tail = NONE;
  for (size_t i = 0; i < n; i++) {
    uint32_t c = src[i];
    const struct mitem *it = &m->v[c];
    if (last != NONE &&
        text_casecmp(m->arena + m->v[last].off[MF_SUBJECT], m->v[last].len[MF_SUBJECT],
                     m->arena + it->off[MF_SUBJECT], it->len[MF_SUBJECT]) == 0) {
      if (tail == last)
        f->first[last] = c;
      else
        f->next[tail] = c;
      tail = c;
      continue;
    }
    f->next[c] = nr;
    nr = c;
    last = tail = c;
  }
  *roots = nr;
  // Threads in order of their first message's sent date.
  uint32_t *w3 = w + 2 * cap;
  sort_list(f, roots, w3, dst);
  return 0;
}

int thread_run(const struct mitems *m, int algorithm, char *out, size_t out_cap, size_t *out_len,
               size_t *out_threads) {
  struct forest f = {.m = m};
  uint32_t roots = NONE, *work = NULL;
  uint8_t *seen = NULL;
  int rc = m->n >= NONE / 4                    ? MS_ERR_LIMIT
           : algorithm == MS_THREAD_REFERENCES ? references_thread(&f, &roots, &work, &seen)
                                               : orderedsubject_thread(&f, &roots, &work, &seen);
  *out_len = 0;
  *out_threads = 0;
  if (rc == 0) {
    struct out o = {.p = out, .cap = out_cap};
    size_t nt = 0;
    for (uint32_t r = roots; r != NONE; r = f.next[r], nt++)
      print(&f, r, &o, work);
    *out_len = o.len;
    *out_threads = nt;
    if (o.len > out_cap)
      rc = MS_ERR_LIMIT;
  }
  free(work);
  free(seen);
  forest_free(&f);
  return rc;
}

int ms_mailbox_thread(ms_store *store, char *out, size_t out_cap, size_t *out_len,
                      size_t *out_threads, uint32_t account, uint32_t mailbox, const uint32_t *uids,
                      size_t uid_count, int algorithm) {
  if (!store || !out_len || (!out && out_cap) ||
      (algorithm != MS_THREAD_REFERENCES && algorithm != MS_THREAD_ORDEREDSUBJECT))
    return MS_ERR_INVALID_ARGUMENT;
  *out_len = 0;
  if (out_threads)
    *out_threads = 0;
  unsigned want = 1u << MF_SUBJECT;
  if (algorithm == MS_THREAD_REFERENCES)
    want |= 1u << MF_MESSAGE_ID | 1u << MF_IN_REPLY_TO | 1u << MF_REFERENCES;
  struct mitems m;
  int rc = mitems_load(store, &m, account, mailbox, want, uids, uid_count);
  if (rc < 0)
    return rc;
  size_t nt = 0;
  rc = thread_run(&m, algorithm, out, out_cap, out_len, &nt);
  if (out_threads)
    *out_threads = nt;
  mitems_free(&m);
  return rc;
}
