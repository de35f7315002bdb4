// thread.c: the plan of the corpus, one message after another: whether a
// message starts a thread or answers one, who writes it to whom and when, its
// subject, Message-ID, In-Reply-To and References. The plan is made in order
// and never looks ahead, so the first N messages of a larger corpus are the
// corpus of N messages.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mkcorpus_internal.h"

#define CORPUS_EPOCH 1704067200  // 2024-01-01 00:00:00 UTC
#define MEAN_GAP_SECONDS 1500.0  // between two arrivals
#define THREAD_SIZE_EXPONENT 2.3 // P(size = s) proportional to s^-2.3
#define REPLY_PRESSURE 3.0       // higher: replies wait longer
#define CORRESPONDENTS 400       // people per language

struct member {
  char message_id[MKC_MSGID_MAX];
  int parent; // index into members, -1 for the first message
  struct mkc_person_key sender;
  int64_t date;
};

struct thread {
  uint32_t id;
  enum mkc_lang lang;
  enum mkc_kind kind;
  const struct mkc_mailing_list *list;
  char topic[MKC_SUBJECT_MAX];
  char root_subject[MKC_SUBJECT_MAX];
  struct mkc_person_key people[MKC_MAX_RECIPIENTS];
  size_t num_people;
  struct member members[MKC_MAX_THREAD_SIZE];
  size_t num_members;
  size_t target;
};

struct mkc_planner {
  uint64_t seed;
  struct mkc_rng rng;
  uint64_t next_index;
  uint32_t next_thread_id;
  int64_t clock;
  struct thread *active[MKC_MAX_ACTIVE_THREADS]; // most recently active first
  size_t num_active;
  size_t pending; // replies the active threads still expect
  struct mkc_cdf thread_sizes;
  struct mkc_person_key owner;
};

// Language of a new thread: English first, as in a mailbox in Europe that
// also corresponds with Russia, Japan and China.
static const unsigned language_weights[MKC_LANG_COUNT] = {50, 12, 9, 9, 8, 6, 6};
// Kinds of new threads. Newsletters and notifications are single messages,
// so a third of the new threads makes a fifth of the mail.
static const unsigned kind_weights[] = {[MKC_KIND_DIRECT] = 50,
                                        [MKC_KIND_LIST] = 12,
                                        [MKC_KIND_NEWSLETTER] = 33,
                                        [MKC_KIND_FORWARD] = 5};

struct mkc_planner *mkc_planner_new(uint64_t seed) {
  struct mkc_planner *p = mkc_xcalloc(1, sizeof *p);
  p->seed = seed;
  mkc_rng_seed(&p->rng, seed, MKC_STREAM_PLAN, 0);
  // Where in the year the corpus starts depends on the seed as well.
  p->clock = CORPUS_EPOCH + (int64_t)mkc_rng_below(&p->rng, 180 * 86400);
  mkc_cdf_power_law(&p->thread_sizes, MKC_MAX_THREAD_SIZE, THREAD_SIZE_EXPONENT);
  p->owner = (struct mkc_person_key){MKC_ROLE_OWNER, MKC_LANG_EN, 0};
  return p;
}

void mkc_planner_free(struct mkc_planner *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->num_active; i++)
    free(p->active[i]);
  mkc_cdf_cleanup(&p->thread_sizes);
  free(p);
}

void mkc_make_message_id(char *out, size_t cap, struct mkc_rng *r, const struct mkc_person *from,
                         int64_t date) {
  char a[48], b[48], c[48], d[48], e[48];
  const char *domain = mkc_person_domain(from);
  struct mkc_tm tm;
  mkc_time_split(date, &tm);
  switch (from->mua) {
  case MKC_MUA_OUTLOOK:
    mkc_rng_hex(r, a, 12, false);
    mkc_rng_hex(r, b, 8, false);
    mkc_rng_hex(r, c, 8, false);
    snprintf(out, cap, "<%s$%s$%s$@%s>", a, b, c, domain);
    break;
  case MKC_MUA_GMAIL:
    mkc_rng_alnum(r, a, 30);
    mkc_rng_alnum(r, b, 8);
    snprintf(out, cap, "<CA%s+%s@mail.gmail.example>", a, b);
    break;
  case MKC_MUA_THUNDERBIRD:
  case MKC_MUA_APPLE: {
    bool upper = from->mua == MKC_MUA_APPLE;
    mkc_rng_hex(r, a, 8, upper);
    mkc_rng_hex(r, b, 4, upper);
    mkc_rng_hex(r, c, 4, upper);
    mkc_rng_hex(r, d, 4, upper);
    mkc_rng_hex(r, e, 12, upper);
    snprintf(out, cap, "<%s-%s-%s-%s-%s@%s>", a, b, c, d, e, domain);
    break;
  }
  case MKC_MUA_ROUNDCUBE:
    mkc_rng_hex(r, a, 32, false);
    snprintf(out, cap, "<%s@%s>", a, domain);
    break;
  case MKC_MUA_MUTT: {
    int v[2];
    mkc_rng_ints(r, v, 2, (const int[]){0, 3, 1000, 99999});
    snprintf(out, cap, "<%04d%02d%02d%02d%02d%02d.G%c%d@%s>", tm.year, tm.month, tm.day, tm.hour,
             tm.minute, tm.second, 'A' + v[0], v[1], domain);
    break;
  }
  default: {
    int v[3];
    mkc_rng_ints(r, v, 3, (const int[]){100000, 999999999, 1, 9999, 0, 999});
    snprintf(out, cap, "<%d.%d.%lld%03d@%s>", v[0], v[1], (long long)date, v[2], domain);
    break;
  }
  }
}

void mkc_make_subject(char *out, size_t cap, struct mkc_rng *r, enum mkc_lang lang) {
  const struct mkc_lang_data *L = mkc_lang(lang);
  struct mkc_buf s;
  mkc_buf_init(&s);
  if (lang == MKC_LANG_JA && mkc_rng_chance(r, 0.1))
    mkc_buf_puts(&s, mkc_rng_chance(r, 0.5) ? "【重要】" : "【ご確認】");
  // Subjects skip the function words at the top of the ranking.
  mkc_text_words(&s, r, lang, (size_t)mkc_rng_between(r, 2, 7), 25);
  if (mkc_rng_chance(r, 0.15)) {
    static const char *const forms[] = {" %d", " #%d", " (%d)", " - %d"};
    const char *form = forms[mkc_rng_below(r, 4)];
    mkc_buf_printf(&s, form, mkc_rng_between(r, 2, 9999));
  }
  if (L->spaced && mkc_rng_chance(r, 0.08))
    mkc_buf_puts(&s, L->question_end);
  mkc_copy_str(out, cap, mkc_buf_cstr(&s));
  mkc_capitalize_first(out);
  mkc_buf_cleanup(&s);
}

static struct mkc_person_key random_person(struct mkc_rng *r, enum mkc_lang lang) {
  // Same language mostly; a squared uniform makes a few people write often.
  if (mkc_rng_chance(r, 0.12))
    lang = (enum mkc_lang)MKC_PICK(r, language_weights);
  double u = mkc_rng_unit(r);
  return (struct mkc_person_key){MKC_ROLE_PERSON, lang, (uint32_t)(u * u * CORRESPONDENTS)};
}

static bool same_key(struct mkc_person_key a, struct mkc_person_key b) {
  return a.role == b.role && a.lang == b.lang && a.k == b.k;
}

static void list_address(struct mkc_person *out, const struct mkc_mailing_list *list,
                         enum mkc_lang lang) {
  memset(out, 0, sizeof *out);
  out->lang = lang;
  snprintf(out->addr, sizeof out->addr, "%s@%s", list->name, list->domain);
  snprintf(out->display, sizeof out->display, "%s", list->description);
}

static void fill_prefixed_subject(char *out, size_t cap, const char *prefix, const char *subject) {
  struct mkc_buf s;
  mkc_buf_init(&s);
  mkc_buf_puts(&s, prefix);
  mkc_buf_puts(&s, subject);
  mkc_copy_str(out, cap, mkc_buf_cstr(&s));
  mkc_buf_cleanup(&s);
}

static const char *reply_prefix(const struct mkc_person *from) {
  return from->mua == MKC_MUA_OUTLOOK ? mkc_lang(from->lang)->reply_prefix : "Re: ";
}

static const char *forward_prefix(const struct mkc_person *from) {
  return from->mua == MKC_MUA_OUTLOOK ? mkc_lang(from->lang)->forward_prefix : "Fwd: ";
}

static size_t participant_count(struct mkc_rng *r, enum mkc_kind kind) {
  static const unsigned direct[] = {55, 25, 12, 8};
  if (kind == MKC_KIND_LIST)
    return (size_t)mkc_rng_between(r, 2, MKC_MAX_RECIPIENTS);
  return 1 + MKC_PICK(r, direct);
}

// Fills the participants: in direct mail the owner and 1-4 others, on a list
// 2-6 members who may or may not include the owner.
static void choose_people(struct mkc_planner *p, struct thread *t) {
  size_t others = participant_count(&p->rng, t->kind);
  t->num_people = 0;
  if (t->kind != MKC_KIND_LIST || mkc_rng_chance(&p->rng, 0.3))
    t->people[t->num_people++] = p->owner;
  while (others-- > 0 && t->num_people < MKC_MAX_RECIPIENTS) {
    struct mkc_person_key k = random_person(&p->rng, t->lang);
    bool seen = false;
    for (size_t i = 0; i < t->num_people; i++)
      seen |= same_key(t->people[i], k);
    if (!seen)
      t->people[t->num_people++] = k;
  }
  if (t->num_people < 2)
    t->people[t->num_people++] =
        (struct mkc_person_key){MKC_ROLE_PERSON, t->lang, CORRESPONDENTS + t->id};
}

static void add_recipient(struct mkc_person *list, size_t *n, const struct mkc_person *p) {
  if (*n < MKC_MAX_RECIPIENTS)
    list[(*n)++] = *p;
}

// To and Cc of a message from `sender` within thread `t`; `addressee` is the
// person the message answers (or -1).
static void address_message(struct mkc_planner *p, const struct thread *t, struct mkc_plan *out,
                            struct mkc_person_key sender, const struct mkc_person_key *addressee) {
  struct mkc_person person;
  if (t->kind == MKC_KIND_LIST) {
    list_address(&person, t->list, t->lang);
    add_recipient(out->to, &out->num_to, &person);
    if (addressee && mkc_rng_chance(&p->rng, 0.3)) {
      mkc_person_make(&person, p->seed, *addressee);
      add_recipient(out->cc, &out->num_cc, &person);
    }
    return;
  }
  if (addressee) {
    mkc_person_make(&person, p->seed, *addressee);
    add_recipient(out->to, &out->num_to, &person);
  }
  bool reply_all = !addressee || mkc_rng_chance(&p->rng, 0.5);
  for (size_t i = 0; i < t->num_people && reply_all; i++) {
    if (same_key(t->people[i], sender) || (addressee && same_key(t->people[i], *addressee)))
      continue;
    mkc_person_make(&person, p->seed, t->people[i]);
    if (out->num_to == 0 || (!addressee && mkc_rng_chance(&p->rng, 0.5)))
      add_recipient(out->to, &out->num_to, &person);
    else
      add_recipient(out->cc, &out->num_cc, &person);
  }
  if (out->num_to == 0) {
    mkc_person_make(&person, p->seed, p->owner);
    add_recipient(out->to, &out->num_to, &person);
  }
}

static void remember(struct mkc_planner *p, struct thread *t) {
  if (p->num_active == MKC_MAX_ACTIVE_THREADS) {
    // The least recently active thread gets no more replies.
    struct thread *oldest = p->active[--p->num_active];
    p->pending -= oldest->target - oldest->num_members;
    free(oldest);
  }
  memmove(p->active + 1, p->active, p->num_active * sizeof p->active[0]);
  p->active[0] = t;
  p->num_active++;
  p->pending += t->target - t->num_members;
}

static void add_member(struct thread *t, const struct mkc_plan *plan, int parent,
                       struct mkc_person_key sender) {
  struct member *m = &t->members[t->num_members++];
  mkc_copy_str(m->message_id, sizeof m->message_id, plan->message_id);
  m->parent = parent;
  m->sender = sender;
  m->date = plan->date;
}

static void plan_new_thread(struct mkc_planner *p, struct mkc_plan *out) {
  struct thread *t = mkc_xcalloc(1, sizeof *t);
  t->id = p->next_thread_id++;
  t->lang = (enum mkc_lang)MKC_PICK(&p->rng, language_weights);
  t->kind = (enum mkc_kind)MKC_PICK(&p->rng, kind_weights);
  t->list = t->kind == MKC_KIND_LIST
                ? &mkc_lang(t->lang)->lists[mkc_rng_below(&p->rng, mkc_lang(t->lang)->num_lists)]
                : NULL;
  t->target = t->kind == MKC_KIND_NEWSLETTER ? 1 : 1 + mkc_cdf_sample(&p->thread_sizes, &p->rng);
  mkc_make_subject(t->topic, sizeof t->topic, &p->rng, t->lang);
  choose_people(p, t);

  struct mkc_person_key sender = t->people[1];
  if (t->kind == MKC_KIND_NEWSLETTER)
    sender = (struct mkc_person_key){MKC_ROLE_NEWSLETTER, t->lang,
                                     (uint32_t)mkc_rng_below(&p->rng, 1000)};
  else if (mkc_rng_chance(&p->rng, 0.25))
    sender = t->people[0]; // mail the owner sent
  mkc_person_make(&out->from, p->seed, sender);
  if (t->kind == MKC_KIND_NEWSLETTER) {
    mkc_person_make(&out->to[0], p->seed, p->owner);
    out->num_to = 1;
  } else {
    address_message(p, t, out, sender, NULL);
  }

  char list_tag[64];
  snprintf(list_tag, sizeof list_tag, "[%s] ", t->list ? t->list->name : "");
  if (t->kind == MKC_KIND_LIST)
    fill_prefixed_subject(t->root_subject, sizeof t->root_subject, list_tag, t->topic);
  else if (t->kind == MKC_KIND_FORWARD)
    fill_prefixed_subject(t->root_subject, sizeof t->root_subject, forward_prefix(&out->from),
                          t->topic);
  else
    mkc_copy_str(t->root_subject, sizeof t->root_subject, t->topic);

  out->thread_id = t->id;
  out->lang = t->lang;
  out->kind = t->kind;
  out->list = t->list;
  mkc_copy_str(out->subject, sizeof out->subject, t->root_subject);
  mkc_copy_str(out->topic, sizeof out->topic, t->topic);
  mkc_make_message_id(out->message_id, sizeof out->message_id, &p->rng, &out->from, out->date);
  add_member(t, out, -1, sender);
  if (t->target > 1)
    remember(p, t);
  else
    free(t);
}

static void write_references(char *out, size_t cap, const struct thread *t, int parent) {
  // Walk from the parent to the root (bounded by the thread size), then keep
  // the root and the nearest ancestors, as mail programs trim the field.
  int chain[MKC_MAX_THREAD_SIZE];
  size_t n = 0;
  for (int m = parent; m >= 0 && n < MKC_MAX_THREAD_SIZE; m = t->members[m].parent)
    chain[n++] = m;
  size_t keep_near = n < MKC_MAX_REFERENCES ? n : MKC_MAX_REFERENCES - 1;
  size_t len = 0;
  out[0] = '\0';
  if (n > keep_near)
    len += (size_t)snprintf(out + len, cap - len, "%s", t->members[chain[n - 1]].message_id);
  for (size_t i = keep_near; i-- > 0 && len < cap;)
    len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? " " : "",
                            t->members[chain[i]].message_id);
}

static struct mkc_person_key reply_sender(struct mkc_planner *p, const struct thread *t,
                                          struct mkc_person_key parent_sender) {
  for (size_t i = 0; i < t->num_people; i++)
    if (t->people[i].role == MKC_ROLE_OWNER && !same_key(parent_sender, p->owner) &&
        mkc_rng_chance(&p->rng, 0.35))
      return p->owner;
  for (int tries = 0; tries < 8; tries++) {
    struct mkc_person_key k = t->people[mkc_rng_below(&p->rng, t->num_people)];
    if (!same_key(k, parent_sender))
      return k;
  }
  return t->people[0];
}

static void plan_reply(struct mkc_planner *p, size_t slot, struct mkc_plan *out) {
  struct thread *t = p->active[slot];
  int parent = (int)t->num_members - 1;
  if (parent > 0 && mkc_rng_chance(&p->rng, 0.35))
    parent = (int)mkc_rng_below(&p->rng, t->num_members);
  const struct member *pm = &t->members[parent];
  struct mkc_person_key sender = reply_sender(p, t, pm->sender);
  mkc_person_make(&out->from, p->seed, sender);
  address_message(p, t, out, sender, &pm->sender);

  out->thread_id = t->id;
  out->thread_pos = (uint32_t)t->num_members;
  out->lang = t->lang;
  out->kind = t->kind == MKC_KIND_FORWARD ? MKC_KIND_DIRECT : t->kind;
  out->list = t->list;
  fill_prefixed_subject(out->subject, sizeof out->subject, reply_prefix(&out->from),
                        t->root_subject);
  mkc_copy_str(out->topic, sizeof out->topic, t->topic);
  mkc_make_message_id(out->message_id, sizeof out->message_id, &p->rng, &out->from, out->date);
  mkc_copy_str(out->in_reply_to, sizeof out->in_reply_to, pm->message_id);
  write_references(out->references, sizeof out->references, t, parent);
  out->has_parent = true;
  mkc_person_make(&out->parent_from, p->seed, pm->sender);
  out->parent_date = pm->date;

  add_member(t, out, parent, sender);
  p->pending--;
  memmove(p->active + 1, p->active, slot * sizeof p->active[0]);
  p->active[0] = t;
  if (t->num_members >= t->target) {
    memmove(p->active, p->active + 1, (p->num_active - 1) * sizeof p->active[0]);
    p->num_active--;
    free(t);
  }
}

void mkc_planner_next(struct mkc_planner *p, struct mkc_plan *out) {
  memset(out, 0, sizeof *out);
  out->index = p->next_index++;
  p->clock += 1 + (int64_t)mkc_exponential(&p->rng, MEAN_GAP_SECONDS);
  out->date = p->clock;
  mkc_person_make(&out->owner, p->seed, p->owner);
  double reply_chance = (double)p->pending / ((double)p->pending + REPLY_PRESSURE);
  if (p->num_active > 0 && mkc_rng_chance(&p->rng, reply_chance)) {
    // Recently active threads get the answers, geometrically.
    size_t slot = 0;
    while (slot + 1 < p->num_active && !mkc_rng_chance(&p->rng, 0.35))
      slot++;
    plan_reply(p, slot, out);
  } else {
    plan_new_thread(p, out);
  }
}

void mkc_plan_standalone(struct mkc_plan *out, struct mkc_rng *r, uint64_t seed,
                         const struct mkc_plan *outer) {
  memset(out, 0, sizeof *out);
  out->index = outer->index;
  out->lang = outer->lang;
  out->kind = MKC_KIND_DIRECT;
  out->thread_id = outer->thread_id;
  out->owner = outer->owner;
  struct mkc_person_key from = random_person(r, outer->lang);
  from.k += CORRESPONDENTS; // people the owner does not otherwise hear from
  mkc_person_make(&out->from, seed, from);
  out->to[0] = outer->from;
  out->num_to = 1;
  out->date = outer->date - 60 - (int64_t)mkc_exponential(r, 3 * 86400.0);
  mkc_copy_str(out->subject, sizeof out->subject, outer->topic);
  mkc_copy_str(out->topic, sizeof out->topic, outer->topic);
  mkc_make_message_id(out->message_id, sizeof out->message_id, r, &out->from, out->date);
}
