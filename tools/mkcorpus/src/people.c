// people.c: the correspondents of the corpus. A person is a pure function of
// the seed, a language and a number, so the planner can refer to people by
// key and rebuild them when needed; each has a name in their own script, an
// ASCII address, a time zone and the mail program that shapes their messages.
#include <stdio.h>
#include <string.h>

#include "mkcorpus_internal.h"

// Shares of mail programs among people (newsletters use MKC_MUA_BULK).
static const unsigned mua_weights[MKC_MUA_COUNT] = {
    [MKC_MUA_OUTLOOK] = 28, [MKC_MUA_GMAIL] = 25,    [MKC_MUA_THUNDERBIRD] = 13,
    [MKC_MUA_APPLE] = 13,   [MKC_MUA_ROUNDCUBE] = 9, [MKC_MUA_MUTT] = 4,
};

static const char *const mua_labels[MKC_MUA_COUNT] = {
    "outlook", "gmail", "thunderbird", "apple-mail", "roundcube", "mutt", "bulk-mailer",
};

struct newsletter {
  enum mkc_lang lang;
  const char *display;
  const char *addr;
};

static const struct newsletter newsletters[] = {
    {MKC_LANG_EN, "Example Shop", "news@shop.example"},
    {MKC_LANG_EN, "Tech Weekly", "newsletter@techweekly.example"},
    {MKC_LANG_EN, "City Library", "noreply@library.example"},
    {MKC_LANG_DE, "Beispielbahn", "newsletter@bahn.example"},
    {MKC_LANG_DE, "Stadtwerke Musterstadt", "info@stadtwerke.example"},
    {MKC_LANG_FR, "La Boutique Verte", "newsletter@boutique.example"},
    {MKC_LANG_FR, "Mairie de Villeneuve", "info@mairie.example"},
    {MKC_LANG_ES, "Tienda Ejemplo", "boletin@tienda.example"},
    {MKC_LANG_ES, "Ayuntamiento de Villanueva", "noticias@ayto.example"},
    {MKC_LANG_RU, "Магазин «Пример»", "news@magazin.example"},
    {MKC_LANG_JA, "サンプル通販", "info@tsuhan.example"},
    {MKC_LANG_ZH, "示例商城", "service@shangcheng.example"},
};

const char *mkc_mua_label(enum mkc_mua mua) {
  return mua_labels[mua];
}

const char *mkc_person_domain(const struct mkc_person *p) {
  const char *at = strchr(p->addr, '@');
  return at ? at + 1 : p->addr;
}

size_t mkc_newsletter_count(enum mkc_lang lang) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof newsletters / sizeof newsletters[0]; i++)
    n += newsletters[i].lang == lang;
  return n;
}

static const struct newsletter *newsletter_of(enum mkc_lang lang, uint32_t k) {
  size_t n = mkc_newsletter_count(lang);
  size_t want = n ? k % n : 0;
  for (size_t i = 0; i < sizeof newsletters / sizeof newsletters[0]; i++)
    if (newsletters[i].lang == lang && want-- == 0)
      return &newsletters[i];
  return &newsletters[0];
}

static void make_local_part(char *out, size_t cap, struct mkc_rng *r, const char *given,
                            const char *family) {
  static const unsigned weights[] = {40, 15, 8, 12, 10, 5, 5, 5};
  switch (MKC_PICK(r, weights)) {
  case 0:
    snprintf(out, cap, "%s.%s", given, family);
    break;
  case 1:
    snprintf(out, cap, "%c.%s", given[0], family);
    break;
  case 2:
    snprintf(out, cap, "%s_%s", given, family);
    break;
  case 3:
    snprintf(out, cap, "%s%s%02d", given, family, mkc_rng_between(r, 1, 99));
    break;
  case 4:
    snprintf(out, cap, "%s", given);
    break;
  case 5:
    snprintf(out, cap, "%s.%s", family, given);
    break;
  case 6:
    snprintf(out, cap, "%s-%s", given, family);
    break;
  default:
    snprintf(out, cap, "%s%c", family, given[0]);
    break;
  }
}

// The display name as the person's mail program shows it: mostly the native
// name, sometimes "Family, Given" or an initial (both need quoting), the
// romanized name, or no name at all.
static void make_display(struct mkc_person *p, struct mkc_rng *r, const struct mkc_lang_data *L,
                         const char *given, const char *family, const struct mkc_name *g,
                         const struct mkc_name *f) {
  static const unsigned weights[] = {78, 5, 4, 5, 8};
  size_t form = MKC_PICK(r, weights);
  if (L->family_first && form != 4)
    form = form == 3 ? 3 : 0;
  if (form == 0 && L->family_first)
    snprintf(p->display, sizeof p->display, "%s%s%s", family, L->name_space ? " " : "", given);
  else if (form == 0)
    snprintf(p->display, sizeof p->display, "%s %s", given, family);
  else if (form == 1)
    snprintf(p->display, sizeof p->display, "%s, %s", family, given);
  else if (form == 2)
    snprintf(p->display, sizeof p->display, "%.*s. %s", (unsigned char)given[0] >= 0xC0 ? 2 : 1,
             given, family);
  else if (form == 3) {
    snprintf(p->display, sizeof p->display, "%s %s", g->ascii, f->ascii);
    mkc_capitalize_first(p->display);
    char *space = strchr(p->display, ' ');
    if (space)
      mkc_capitalize_first(space + 1);
  } else
    p->display[0] = '\0';
}

static void make_private_person(struct mkc_person *p, struct mkc_rng *r, enum mkc_lang lang) {
  const struct mkc_lang_data *L = mkc_lang(lang);
  bool female = L->num_given_female && mkc_rng_chance(r, 0.45);
  const struct mkc_name *g = female ? &L->given_female[mkc_rng_below(r, L->num_given_female)]
                                    : &L->given[mkc_rng_below(r, L->num_given)];
  const struct mkc_name *f = &L->family[mkc_rng_below(r, L->num_family)];
  char family[96], family_ascii[64];
  snprintf(family, sizeof family, "%s%s", f->native, female ? L->female_surname_suffix : "");
  snprintf(family_ascii, sizeof family_ascii, "%s%s", f->ascii,
           female ? L->female_surname_suffix_ascii : "");
  make_display(p, r, L, g->native, family, g, f);
  // Japanese mail greets by family name, Chinese by the full name.
  if (lang == MKC_LANG_JA)
    mkc_copy_str(p->greet, sizeof p->greet, family);
  else if (lang == MKC_LANG_ZH)
    snprintf(p->greet, sizeof p->greet, "%s%s", family, g->native);
  else
    mkc_copy_str(p->greet, sizeof p->greet, g->native);
  if (L->family_first)
    snprintf(p->signature, sizeof p->signature, "%s%s%s", family, L->name_space ? " " : "",
             g->native);
  else
    snprintf(p->signature, sizeof p->signature, "%s %s", g->native, family);
  char local[96];
  make_local_part(local, sizeof local, r, g->ascii, family_ascii);
  // Lower-case domains first: a few providers carry most of the mail.
  size_t d = mkc_rng_below(r, L->num_domains);
  if (mkc_rng_chance(r, 0.5))
    d = 0;
  snprintf(p->addr, sizeof p->addr, "%s@%s", local, L->domains[d]);
  p->title = L->titles[mkc_rng_below(r, L->num_titles)];
}

void mkc_person_make(struct mkc_person *out, uint64_t seed, struct mkc_person_key key) {
  struct mkc_rng r;
  uint64_t id = ((uint64_t)key.role << 40) | ((uint64_t)key.lang << 32) | key.k;
  mkc_rng_seed(&r, seed, MKC_STREAM_PERSON, id);
  memset(out, 0, sizeof *out);
  out->lang = key.lang;
  const struct mkc_lang_data *L = mkc_lang(key.lang);
  out->tz_minutes = L->tz_minutes[mkc_rng_below(&r, L->num_tz)];
  if (key.role == MKC_ROLE_NEWSLETTER) {
    const struct newsletter *n = newsletter_of(key.lang, key.k);
    out->mua = MKC_MUA_BULK;
    mkc_copy_str(out->display, sizeof out->display, n->display);
    mkc_copy_str(out->signature, sizeof out->signature, n->display);
    mkc_copy_str(out->addr, sizeof out->addr, n->addr);
    out->title = "";
    return;
  }
  out->mua = (enum mkc_mua)MKC_PICK(&r, mua_weights);
  make_private_person(out, &r, key.lang);
  if (key.role == MKC_ROLE_OWNER) {
    // The mailbox owner reads every language, so their name must fit every
    // charset: an ASCII name, whatever the language of the seed's draw.
    static const struct mkc_name owners[] = {
        {"Alex Morgan", "alex.morgan"},   {"Sam Taylor", "sam.taylor"},
        {"Jordan Lee", "jordan.lee"},     {"Robin Clark", "robin.clark"},
        {"Casey Walker", "casey.walker"},
    };
    const struct mkc_name *o = &owners[mkc_rng_below(&r, sizeof owners / sizeof owners[0])];
    char domain[96];
    mkc_copy_str(domain, sizeof domain, mkc_person_domain(out));
    mkc_copy_str(out->display, sizeof out->display, o->native);
    mkc_copy_str(out->signature, sizeof out->signature, o->native);
    snprintf(out->greet, sizeof out->greet, "%.*s", (int)strcspn(o->native, " "), o->native);
    snprintf(out->addr, sizeof out->addr, "%s@%s", o->ascii, domain);
  }
}
