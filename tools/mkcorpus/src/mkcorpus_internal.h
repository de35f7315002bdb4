// mkcorpus_internal.h: the types and functions the files of mkcorpus share.
// mkcorpus is a tool, not a library: it dies on allocation failure and on I/O
// errors, and its only promise is that one seed and count give one output.
#ifndef MKCORPUS_INTERNAL_H
#define MKCORPUS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

// Limits. Every one bounds memory or recursion; none changes with input.
#define MKC_MAX_FORWARD_DEPTH 2        // message/rfc822 inside message/rfc822
#define MKC_MAX_RECIPIENTS 6           // To plus Cc of one message
#define MKC_MAX_THREAD_SIZE 100        // messages in one thread
#define MKC_MAX_ACTIVE_THREADS 64      // threads that may still get replies
#define MKC_MAX_REFERENCES 10          // Message-IDs kept in References
#define MKC_MAX_ATTACHMENTS 8          // attachments of one multipart/mixed
#define MKC_MAX_INLINE_IMAGES 5        // images of one multipart/related
#define MKC_MAX_BODY_WORDS 12000       // words of one text body
#define MKC_MSGID_MAX 128              // bytes of one Message-ID with brackets
#define MKC_SUBJECT_MAX 512            // bytes of one UTF-8 subject
#define MKC_DEFAULT_MAX_SIZE 10485760u // bytes of one message (10 MiB)
#define MKC_MIN_MAX_SIZE 16384u        // smallest --max-size a message fits in
#define MKC_HEADER_WIDTH 78            // fold header lines at this column

#if defined(__GNUC__)
#define MKC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define MKC_NORETURN __attribute__((noreturn))
#else
#define MKC_PRINTF(f, a)
#define MKC_NORETURN
#endif

// Buffers and allocation (buf.c).

struct mkc_buf {
  char *data;
  size_t len;
  size_t cap;
};

MKC_NORETURN void mkc_die(const char *fmt, ...) MKC_PRINTF(1, 2);
void *mkc_xmalloc(size_t size);
void *mkc_xcalloc(size_t count, size_t size);
void *mkc_xrealloc(void *ptr, size_t size);
void mkc_buf_init(struct mkc_buf *b);
void mkc_buf_cleanup(struct mkc_buf *b);
void mkc_buf_reserve(struct mkc_buf *b, size_t extra);
void mkc_buf_put(struct mkc_buf *b, const void *data, size_t len);
void mkc_buf_puts(struct mkc_buf *b, const char *s);
void mkc_buf_putc(struct mkc_buf *b, char c);
void mkc_buf_printf(struct mkc_buf *b, const char *fmt, ...) MKC_PRINTF(2, 3);
// mkc_buf_cstr terminates the contents with a NUL that `len` does not count.
const char *mkc_buf_cstr(struct mkc_buf *b);
bool mkc_is_ascii(const char *s, size_t len);
// mkc_copy_str copies `src` into `dst` of `cap` bytes, truncating at a UTF-8
// character boundary so that the copy stays valid UTF-8.
void mkc_copy_str(char *dst, size_t cap, const char *src);

// Random numbers (rng.c): xoshiro256** seeded through splitmix64.

struct mkc_rng {
  uint64_t s[4];
};

// Independent streams, so that the content of message N does not depend on
// how many random numbers the thread planner or message N-1 consumed.
enum mkc_stream {
  MKC_STREAM_PLAN = 1,
  MKC_STREAM_MESSAGE,
  MKC_STREAM_PERSON,
  MKC_STREAM_MAILDIR,
};

void mkc_rng_seed(struct mkc_rng *r, uint64_t seed, uint64_t stream, uint64_t index);
uint64_t mkc_rng_next(struct mkc_rng *r);
uint64_t mkc_rng_below(struct mkc_rng *r, uint64_t n);
int mkc_rng_between(struct mkc_rng *r, int lo, int hi);
// mkc_rng_ints draws out[i] from [bounds[2i], bounds[2i+1]], in order. C
// leaves the order in which a call's arguments are evaluated open, so a call
// must never draw twice in its argument list: compilers would disagree about
// which number goes where. Draw into locals with this instead.
void mkc_rng_ints(struct mkc_rng *r, int *out, size_t n, const int *bounds);
double mkc_rng_unit(struct mkc_rng *r);
bool mkc_rng_chance(struct mkc_rng *r, double p);
size_t mkc_rng_pick(struct mkc_rng *r, const unsigned *weights, size_t n);
void mkc_rng_fill(struct mkc_rng *r, void *out, size_t len);
void mkc_rng_hex(struct mkc_rng *r, char *out, size_t digits, bool upper);
void mkc_rng_alnum(struct mkc_rng *r, char *out, size_t len);
#define MKC_PICK(r, w) mkc_rng_pick((r), (w), sizeof(w) / sizeof((w)[0]))

// Distributions (dist.c), built only on + - * / and sqrt so that every
// IEEE 754 machine computes the same values (libm's exp/log/pow may differ
// in the last bit between versions and architectures).

double mkc_log(double x);
double mkc_exp(double x);
double mkc_lognormal(struct mkc_rng *r, double median, double sigma);
double mkc_pareto_truncated(struct mkc_rng *r, double xmin, double alpha, double xmax);
double mkc_exponential(struct mkc_rng *r, double mean);

struct mkc_cdf {
  double *cum;
  size_t n;
};

// mkc_cdf_power_law builds P(k) proportional to (k+1)^-exponent, k < n.
void mkc_cdf_power_law(struct mkc_cdf *t, size_t n, double exponent);
size_t mkc_cdf_sample(const struct mkc_cdf *t, struct mkc_rng *r);
// mkc_cdf_sample_from draws from the same law conditioned on k >= first.
size_t mkc_cdf_sample_from(const struct mkc_cdf *t, struct mkc_rng *r, size_t first);
void mkc_cdf_cleanup(struct mkc_cdf *t);

// Charsets (charset.c).

enum mkc_charset {
  MKC_CS_US_ASCII,
  MKC_CS_UTF_8,
  MKC_CS_ISO_8859_1,
  MKC_CS_ISO_8859_15,
  MKC_CS_WINDOWS_1252,
  MKC_CS_KOI8_R,
  MKC_CS_WINDOWS_1251,
  MKC_CS_ISO_2022_JP,
  MKC_CS_SHIFT_JIS,
  MKC_CS_GB2312,
  MKC_CS_GBK,
  MKC_CS_COUNT
};

const char *mkc_charset_name(enum mkc_charset cs);
const char *mkc_charset_label(enum mkc_charset cs, bool upper);
// mkc_charset_is_7bit: text in this charset never has a byte above 0x7F.
bool mkc_charset_is_7bit(enum mkc_charset cs);
bool mkc_charset_has_euro(enum mkc_charset cs);
bool mkc_charset_has_typographic(enum mkc_charset cs);
// mkc_charset_convert appends `utf8` converted to `cs` to `out`. Stateful
// charsets return to ASCII before every line break and at the end, as RFC
// 1468 requires. Returns false, with `out` unchanged, if a character has no
// representation in `cs`.
bool mkc_charset_convert(enum mkc_charset cs, const char *utf8, size_t len, struct mkc_buf *out);
void mkc_charset_cleanup(void);

// Transfer encodings (encode.c).

enum mkc_cte { MKC_CTE_7BIT, MKC_CTE_8BIT, MKC_CTE_QP, MKC_CTE_BASE64, MKC_CTE_COUNT };

const char *mkc_cte_name(enum mkc_cte cte);
void mkc_base64(struct mkc_buf *out, const void *in, size_t len, size_t line_len);
size_t mkc_base64_size(size_t raw, size_t line_len);
size_t mkc_base64_raw_for(size_t encoded, size_t line_len);
// mkc_qp_text encodes text whose lines end in CRLF; hard line breaks stay.
void mkc_qp_text(struct mkc_buf *out, const char *in, size_t len);
void mkc_encode_body(struct mkc_buf *out, enum mkc_cte cte, const char *in, size_t len);
uint32_t mkc_crc24(const void *data, size_t len);
size_t mkc_longest_line(const char *s, size_t len);

// Header fields (header.c). A field is a sequence of tokens that may be
// folded at the spaces between them.

struct mkc_hdr {
  struct mkc_buf *out;
  size_t column;
  const char *fold; // whitespace that starts a continuation line
  bool at_start;    // no token yet after "Name:"
  bool force_break; // fold before the next token
};

enum mkc_ew_context { MKC_EW_TEXT, MKC_EW_PHRASE };

void mkc_hdr_begin(struct mkc_hdr *h, struct mkc_buf *out, const char *name);
void mkc_hdr_token(struct mkc_hdr *h, const char *tok, size_t len);
void mkc_hdr_tok(struct mkc_hdr *h, const char *tok);
// mkc_hdr_glue appends to the previous token with no space and no fold.
void mkc_hdr_glue(struct mkc_hdr *h, const char *s);
void mkc_hdr_break(struct mkc_hdr *h);
void mkc_hdr_words(struct mkc_hdr *h, const char *text);
void mkc_hdr_end(struct mkc_hdr *h);
void mkc_hdr_simple(struct mkc_buf *out, const char *name, const char *value);
// mkc_hdr_encoded adds `utf8` as RFC 2047 encoded words in `cs` ('B' or 'Q'),
// each at most 75 characters. Returns false, adding nothing, if `cs` cannot
// represent the text.
bool mkc_hdr_encoded(struct mkc_hdr *h, const char *utf8, enum mkc_charset cs, char enc,
                     enum mkc_ew_context ctx, bool upper);
// mkc_hdr_text adds words as they are when they are ASCII, else encoded words
// in `cs`, falling back to UTF-8 when `cs` cannot represent them. Returns the
// charset of the encoded words, MKC_CS_COUNT if none were needed.
enum mkc_charset mkc_hdr_text(struct mkc_hdr *h, const char *utf8, enum mkc_charset cs, char enc,
                              enum mkc_ew_context ctx, bool upper);
// mkc_hdr_param adds "; name=value", quoting the value when it needs it.
void mkc_hdr_param(struct mkc_hdr *h, const char *name, const char *value, bool quote);
// mkc_hdr_param_2231 adds a parameter that may be long or non-ASCII, as RFC
// 2231 extended and/or continued sections when it has to.
void mkc_hdr_param_2231(struct mkc_hdr *h, const char *name, const char *utf8, enum mkc_charset cs,
                        const char *lang);

struct mkc_tm {
  int year, month, day, hour, minute, second, weekday; // month 1-12, weekday 0 = Sunday
};

void mkc_time_split(int64_t unix_seconds, struct mkc_tm *out);
// mkc_format_date writes an RFC 5322 date in the zone `tz_minutes` east of UTC.
void mkc_format_date(char *out, size_t cap, int64_t utc, int tz_minutes, bool pad_day);
void mkc_format_asctime(char *out, size_t cap, int64_t utc);
extern const char *const mkc_weekday_abbr[7];
extern const char *const mkc_month_abbr[12];

// Languages (lang_*.c, lexicon.c).

enum mkc_lang {
  MKC_LANG_EN,
  MKC_LANG_DE,
  MKC_LANG_FR,
  MKC_LANG_ES,
  MKC_LANG_RU,
  MKC_LANG_JA,
  MKC_LANG_ZH,
  MKC_LANG_COUNT
};

struct mkc_name {
  const char *native; // UTF-8, as written in the language
  const char *ascii;  // for the local part of addresses
};

struct mkc_mailing_list {
  const char *name;
  const char *domain;
  const char *description;
};

struct mkc_lang_data {
  const char *code; // BCP 47 tag, also Content-Language
  const char *label;
  bool spaced;              // words are separated by spaces
  bool family_first;        // display names put the family name first
  bool name_space;          // a space between family and given name
  const char *const *words; // by falling frequency
  size_t num_words;
  const char *const *syllables; // for the long tail of rare words
  size_t num_syllables;
  const struct mkc_name *given;
  size_t num_given;
  const struct mkc_name *given_female; // only where surnames agree in gender
  size_t num_given_female;
  const char *female_surname_suffix; // appended for given_female names
  const char *female_surname_suffix_ascii;
  const struct mkc_name *family;
  size_t num_family;
  const char *const *domains;
  size_t num_domains;
  const char *const *greetings; // printf format with one %s: the name
  size_t num_greetings;
  const char *const *closings;
  size_t num_closings;
  const char *const *titles; // job titles for signatures
  size_t num_titles;
  const char *company;
  // Reply attribution line. %a weekday, %b month name, %d day, %m month,
  // %Y year, %H:%M time, %n the author's name.
  const char *attribution;
  const char *original_message;       // Outlook's separator before a quoted message
  const char *const *original_labels; // From, Sent, To, Subject
  const char *reply_prefix;           // what Outlook in this language writes
  const char *forward_prefix;
  const char *sentence_end;  // after a sentence; includes the space if spaced
  const char *question_open; // Spanish opens questions too
  const char *question_end;
  const char *comma;
  const char *quote_open; // typographic quotes, used when the charset has them
  const char *quote_close;
  const char *opener;              // a set phrase after the greeting, or NULL
  const unsigned *charset_weights; // indexed by enum mkc_charset
  const int *tz_minutes;
  size_t num_tz;
  const struct mkc_mailing_list *lists;
  size_t num_lists;
};

const struct mkc_lang_data *mkc_lang(enum mkc_lang lang);
extern const struct mkc_lang_data mkc_lang_en, mkc_lang_de, mkc_lang_fr, mkc_lang_es, mkc_lang_ru,
    mkc_lang_ja, mkc_lang_zh;

// MKC_COUNTED expands to an array and its length, for the pairs above.
#define MKC_COUNTED(a) a, sizeof(a) / sizeof((a)[0])

#define MKC_LEXICON_SIZE 20000 // words per language, hand-written ones first
#define MKC_ZIPF_EXPONENT 1.07

void mkc_lexicon_init(void);
void mkc_lexicon_cleanup(void);
const char *mkc_word(enum mkc_lang lang, struct mkc_rng *r);
// mkc_word_in_range draws with the Zipf weights restricted to ranks
// [first, MKC_LEXICON_SIZE): subjects and file names skip the function words.
const char *mkc_word_in_range(enum mkc_lang lang, struct mkc_rng *r, size_t first);
void mkc_capitalize_first(char *utf8);

// People and mail programs (people.c).

enum mkc_mua {
  MKC_MUA_OUTLOOK,
  MKC_MUA_GMAIL,
  MKC_MUA_THUNDERBIRD,
  MKC_MUA_APPLE,
  MKC_MUA_ROUNDCUBE,
  MKC_MUA_MUTT,
  MKC_MUA_BULK,
  MKC_MUA_COUNT
};

struct mkc_person {
  enum mkc_lang lang;
  enum mkc_mua mua;
  int tz_minutes;
  char display[160];   // UTF-8 display name, may be empty
  char greet[160];     // how a greeting addresses this person
  char signature[160]; // the name under a message
  char addr[128];
  const char *title;
};

enum mkc_role { MKC_ROLE_PERSON, MKC_ROLE_OWNER, MKC_ROLE_NEWSLETTER };

struct mkc_person_key {
  enum mkc_role role;
  enum mkc_lang lang;
  uint32_t k;
};

void mkc_person_make(struct mkc_person *out, uint64_t seed, struct mkc_person_key key);
const char *mkc_person_domain(const struct mkc_person *p);
const char *mkc_mua_label(enum mkc_mua mua);
size_t mkc_newsletter_count(enum mkc_lang lang);

// Thread planning (thread.c): who writes to whom, when, and in reply to what.

enum mkc_kind { MKC_KIND_DIRECT, MKC_KIND_LIST, MKC_KIND_NEWSLETTER, MKC_KIND_FORWARD };

struct mkc_plan {
  uint64_t index; // 0-based position in the corpus
  uint32_t thread_id;
  uint32_t thread_pos; // 0 for the message that started the thread
  enum mkc_lang lang;
  enum mkc_kind kind;
  const struct mkc_mailing_list *list;
  struct mkc_person from;
  struct mkc_person to[MKC_MAX_RECIPIENTS];
  size_t num_to;
  struct mkc_person cc[MKC_MAX_RECIPIENTS];
  size_t num_cc;
  struct mkc_person owner; // whose mailbox this is
  char subject[MKC_SUBJECT_MAX];
  char topic[MKC_SUBJECT_MAX]; // subject without Re:/Fwd:/[list] (Thread-Topic)
  char message_id[MKC_MSGID_MAX];
  char in_reply_to[MKC_MSGID_MAX];
  char references[MKC_MAX_REFERENCES * MKC_MSGID_MAX];
  int64_t date; // UTC seconds
  bool has_parent;
  struct mkc_person parent_from;
  int64_t parent_date;
};

struct mkc_planner;
struct mkc_planner *mkc_planner_new(uint64_t seed);
void mkc_planner_next(struct mkc_planner *p, struct mkc_plan *out);
void mkc_planner_free(struct mkc_planner *p);
// mkc_plan_standalone makes the plan of a message that is not part of the
// corpus' threads: the original inside a forwarded message.
void mkc_plan_standalone(struct mkc_plan *out, struct mkc_rng *r, uint64_t seed,
                         const struct mkc_plan *outer);
void mkc_make_message_id(char *out, size_t cap, struct mkc_rng *r, const struct mkc_person *from,
                         int64_t date);
void mkc_make_subject(char *out, size_t cap, struct mkc_rng *r, enum mkc_lang lang);

// Body text (text.c).

enum mkc_block_kind {
  MKC_BLOCK_BLANK,      // an empty line
  MKC_BLOCK_LINE,       // one line kept as it is: greeting, closing, name
  MKC_BLOCK_PARA,       // a paragraph to wrap
  MKC_BLOCK_HEADING,    // a newsletter's section title
  MKC_BLOCK_LINK,       // a URL on its own line
  MKC_BLOCK_QUOTE_HEAD, // "On ... wrote:" or Outlook's separator
  MKC_BLOCK_QUOTE,      // a quoted paragraph, `depth` levels deep
  MKC_BLOCK_SIG_SEP,    // "-- "
  MKC_BLOCK_SIG,        // a signature line
};

struct mkc_block {
  enum mkc_block_kind kind;
  unsigned depth;
  struct mkc_buf text; // UTF-8, no line breaks
};

struct mkc_body {
  enum mkc_lang lang;
  enum mkc_mua mua; // the author's program, whose HTML style rendering follows
  bool newsletter;
  struct mkc_block *blocks;
  size_t num_blocks;
  size_t cap_blocks;
};

struct mkc_body_spec {
  enum mkc_lang lang;
  size_t words;     // of new text, quoted text comes on top
  bool euro;        // the charset has the euro sign
  bool typographic; // the charset has curly quotes and dashes
  bool newsletter;
  double scale; // < 1 when the message is regenerated smaller
  const struct mkc_person *from;
  const struct mkc_person *to; // NULL: no greeting
  const struct mkc_plan *plan; // for quoting the parent
};

void mkc_body_compose(struct mkc_body *b, struct mkc_rng *r, const struct mkc_body_spec *spec);
void mkc_body_cleanup(struct mkc_body *b);
void mkc_body_render_plain(const struct mkc_body *b, struct mkc_buf *out, bool flowed);
void mkc_body_render_html(const struct mkc_body *b, struct mkc_buf *out, const char *charset_label,
                          const char *const *image_cids, size_t num_images);
// mkc_text_words appends `n` Zipf-drawn words as one sentence-like run.
void mkc_text_words(struct mkc_buf *out, struct mkc_rng *r, enum mkc_lang lang, size_t n,
                    size_t first_rank);
// mkc_text_wrap breaks `utf8` into CRLF-terminated lines of at most `width`
// columns, each starting with `prefix`; `spaced` text breaks only at spaces.
void mkc_text_wrap(struct mkc_buf *out, const char *utf8, size_t len, const char *prefix,
                   size_t width, bool flowed, bool spaced);

// Statistics (stats.c).

enum mkc_shape {
  MKC_SHAPE_PLAIN,
  MKC_SHAPE_HTML,
  MKC_SHAPE_ALTERNATIVE,
  MKC_SHAPE_MIXED,
  MKC_SHAPE_RELATED,
  MKC_SHAPE_FORWARD,
  MKC_SHAPE_SIGNED_PGP,
  MKC_SHAPE_SIGNED_SMIME,
  MKC_SHAPE_COUNT
};

struct mkc_msg_stats {
  enum mkc_shape shape;
  enum mkc_lang lang;
  size_t size;
  unsigned cte[MKC_CTE_COUNT];       // leaf parts per transfer encoding
  unsigned charset[MKC_CS_COUNT];    // text parts per charset
  unsigned ew_charset[MKC_CS_COUNT]; // header fields with encoded words
  unsigned charset_fallbacks;        // text that the chosen charset could not hold
  unsigned attachments;
  size_t attachment_bytes[MKC_MAX_ATTACHMENTS * (MKC_MAX_FORWARD_DEPTH + 1)];
  unsigned num_attachment_sizes;
  unsigned inline_images;
  unsigned filenames_2231;
  unsigned size_retries;
  bool is_reply;
  uint32_t thread_id;
};

struct mkc_stats;
struct mkc_stats *mkc_stats_new(void);
void mkc_stats_add(struct mkc_stats *s, const struct mkc_msg_stats *m);
void mkc_stats_print(struct mkc_stats *s, FILE *file, uint64_t seed);
void mkc_stats_free(struct mkc_stats *s);
const char *mkc_shape_label(enum mkc_shape shape);

// Messages (message.c, mime.c, attach.c).

struct mkc_ctx {
  struct mkc_rng *rng;
  uint64_t seed;
  const struct mkc_plan *plan;
  const struct mkc_person *sender; // whose mail program writes the MIME
  enum mkc_charset charset;        // of the message's text
  enum mkc_charset header_charset; // of its encoded words
  char header_encoding;            // 'B' or 'Q'
  bool upper_labels;               // "UTF-8" rather than "utf-8"
  size_t budget;                   // bytes that attachments may still take
  double scale;                    // < 1 when a message is regenerated smaller
  int depth;                       // message/rfc822 nesting
  bool seven_bit;                  // inside multipart/signed
  unsigned boundary_serial;
  struct mkc_msg_stats *stats;
};

void mkc_message_generate(struct mkc_buf *out, uint64_t seed, const struct mkc_plan *plan,
                          size_t max_size, struct mkc_msg_stats *stats);
void mkc_message_write(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan,
                       enum mkc_shape shape);

// Header fields added in transit (transport.c).
void mkc_transport_headers(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan);
void mkc_transport_received(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan);
void mkc_transport_dkim(struct mkc_ctx *ctx, struct mkc_buf *out, const struct mkc_plan *plan);

// A MIME entity: its Content-* fields, an empty line, and its body.
void mkc_part_text(struct mkc_ctx *ctx, struct mkc_buf *out, const char *subtype, const char *utf8,
                   size_t len, bool flowed);
void mkc_part_multipart(struct mkc_ctx *ctx, struct mkc_buf *out, const char *subtype,
                        const char *extra_params, struct mkc_buf *parts, size_t num_parts);
void mkc_part_body_of_shape(struct mkc_ctx *ctx, struct mkc_buf *out, enum mkc_shape shape,
                            const struct mkc_plan *plan);
void mkc_part_attachment(struct mkc_ctx *ctx, struct mkc_buf *out, enum mkc_lang lang);
void mkc_part_inline_image(struct mkc_ctx *ctx, struct mkc_buf *out, char *cid, size_t cid_cap);
void mkc_part_signature(struct mkc_ctx *ctx, struct mkc_buf *out, bool smime);
enum mkc_cte mkc_choose_text_cte(struct mkc_ctx *ctx, const char *bytes, size_t len, bool html);
void mkc_note_cte(struct mkc_ctx *ctx, enum mkc_cte cte);

// Output (output.c).

enum mkc_format { MKC_FORMAT_MAILDIR, MKC_FORMAT_MBOX, MKC_FORMAT_EML, MKC_FORMAT_NONE };

struct mkc_writer;
struct mkc_writer *mkc_writer_open(enum mkc_format format, const char *path, uint64_t seed);
void mkc_writer_put(struct mkc_writer *w, const struct mkc_buf *msg, const struct mkc_plan *plan);
void mkc_writer_close(struct mkc_writer *w);

#endif
