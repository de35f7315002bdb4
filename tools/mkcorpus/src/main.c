// main.c: mkcorpus's command line. It reads the options, then plans,
// generates and writes the messages one at a time, so memory use is bounded
// by the largest message, not by the size of the corpus.
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corvid_parse.h"
#include "mkcorpus_internal.h"

struct options {
  uint64_t seed;
  uint64_t count;
  enum mkc_format format;
  const char *out;
  size_t max_size;
  bool stats;
};

static void usage(FILE *f) {
  fprintf(f,
          "usage: mkcorpus --seed N --count N --format maildir|mbox|eml --out PATH\n"
          "                [--max-size BYTES] [--stats]\n"
          "\n"
          "Writes COUNT realistic, deterministic e-mail messages: the same seed and count\n"
          "give the same bytes on every run and machine.\n"
          "\n"
          "  --format maildir  PATH is a Maildir (cur/, new/, tmp/), CRLF line ends\n"
          "  --format mbox     PATH is one mboxrd file, LF line ends\n"
          "  --format eml      PATH is a directory of 000001.eml ..., CRLF line ends\n"
          "  --out -           write no messages; print --stats to stdout\n"
          "  --max-size BYTES  largest message (default %u, at least %u)\n"
          "  --stats           print sizes and the MIME, encoding and charset mix\n"
          "                    (to stderr, or to stdout with --out -)\n",
          MKC_DEFAULT_MAX_SIZE, MKC_MIN_MAX_SIZE);
}

// parse_number reads a plain decimal number (corvid_parse.h).
static uint64_t parse_number(const char *text, const char *option) {
  uint64_t v;
  if (corvid_parse_u64(text, 0, UINT64_MAX, &v) < 0)
    mkc_die("%s needs a non-negative integer, not \"%s\"", option, text);
  return v;
}

static enum mkc_format parse_format(const char *text) {
  if (!strcmp(text, "maildir"))
    return MKC_FORMAT_MAILDIR;
  if (!strcmp(text, "mbox"))
    return MKC_FORMAT_MBOX;
  if (!strcmp(text, "eml"))
    return MKC_FORMAT_EML;
  mkc_die("--format must be maildir, mbox or eml, not \"%s\"", text);
}

static void parse_options(int argc, char **argv, struct options *o) {
  static const struct option longopts[] = {
      {"seed", required_argument, NULL, 's'},     {"count", required_argument, NULL, 'c'},
      {"format", required_argument, NULL, 'f'},   {"out", required_argument, NULL, 'o'},
      {"max-size", required_argument, NULL, 'm'}, {"stats", no_argument, NULL, 'S'},
      {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
  };
  bool have_seed = false, have_count = false, have_format = false;
  *o = (struct options){.max_size = MKC_DEFAULT_MAX_SIZE};
  int c;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
    case 's':
      o->seed = parse_number(optarg, "--seed");
      have_seed = true;
      break;
    case 'c':
      o->count = parse_number(optarg, "--count");
      have_count = true;
      break;
    case 'f':
      o->format = parse_format(optarg);
      have_format = true;
      break;
    case 'o':
      o->out = optarg;
      break;
    case 'm':
      o->max_size = (size_t)parse_number(optarg, "--max-size");
      break;
    case 'S':
      o->stats = true;
      break;
    case 'h':
      usage(stdout);
      exit(0);
    default:
      usage(stderr);
      exit(2);
    }
  }
  if (optind != argc || !have_seed || !have_count || !o->out ||
      (!have_format && strcmp(o->out, "-") != 0)) {
    usage(stderr);
    exit(2);
  }
  if (o->max_size < MKC_MIN_MAX_SIZE)
    mkc_die("--max-size must be at least %u", MKC_MIN_MAX_SIZE);
  if (!strcmp(o->out, "-"))
    o->format = MKC_FORMAT_NONE;
}

int main(int argc, char **argv) {
  struct options o;
  parse_options(argc, argv, &o);
  mkc_lexicon_init();
  struct mkc_planner *planner = mkc_planner_new(o.seed);
  struct mkc_writer *writer = mkc_writer_open(o.format, o.out, o.seed);
  struct mkc_stats *stats = o.stats ? mkc_stats_new() : NULL;
  struct mkc_plan *plan = mkc_xmalloc(sizeof *plan);
  struct mkc_buf message;
  mkc_buf_init(&message);
  for (uint64_t i = 0; i < o.count; i++) {
    struct mkc_msg_stats msg_stats;
    mkc_planner_next(planner, plan);
    mkc_message_generate(&message, o.seed, plan, o.max_size, &msg_stats);
    mkc_writer_put(writer, &message, plan);
    if (stats)
      mkc_stats_add(stats, &msg_stats);
  }
  mkc_writer_close(writer);
  if (stats) {
    FILE *report = o.format == MKC_FORMAT_NONE ? stdout : stderr;
    mkc_stats_print(stats, report, o.seed);
    // A report that did not reach its file is an error, not a success.
    if (fflush(report) != 0 || ferror(report))
      mkc_die("cannot write the statistics: %s", strerror(errno));
  }
  mkc_stats_free(stats);
  mkc_buf_cleanup(&message);
  free(plan);
  mkc_planner_free(planner);
  mkc_lexicon_cleanup();
  mkc_charset_cleanup();
  return 0;
}
