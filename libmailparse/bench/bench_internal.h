// bench_internal.h: what bench_mailparse.c, our adapter and every peer's
// adapter share. An implementation is a name, an optional set-up, and one
// function that does a mode's whole work on one message, so that the main
// loop measures ours and the peers alike. Included from C++ (mimetic, VMime).
#ifndef MP_BENCH_INTERNAL_H
#define MP_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// mpb_mode is what one call does with one message (README.md says exactly
// what each implementation does in each mode).
enum mpb_mode {
  // The whole message: header fields of every part typed, the MIME tree
  // built, every leaf body decoded to bytes, text bodies converted to UTF-8.
  MPB_FULL = 0,
  // Header-only parse: the top-level header section only (the message's
  // bytes up to the empty line that ends it), split into fields by the
  // implementation's own cheapest header parse, and every field's name and
  // raw value read (their lengths are the work). Nothing is typed or decoded
  // beyond what that parse does by itself (README.md says what each does).
  MPB_HEADERS = 1,
  // The same header section, and every field typed as in MPB_FULL.
  MPB_HEADERS_TYPED = 2,
};

// mpb_work counts what a call produced. Each implementation adds to it, so
// that nothing it computes is dead, and the main loop prints the totals of
// one round on stderr: decoded body bytes and header fields typed should be
// of the same order for every implementation of a mode.
struct mpb_work {
  uint64_t fields; // header fields typed or decoded
  uint64_t parts;  // leaf parts whose bodies were decoded
  uint64_t bytes;  // bytes of decoded output (bodies and header text)
};

// mpb_run_fn does `mode`'s work on the `len` bytes at `msg` (a whole message
// for MPB_FULL, its top-level header section for MPB_HEADERS and
// MPB_HEADERS_TYPED) and adds what
// it produced to `*work`. It returns 0, or non-zero when the implementation
// failed (the main loop reports the message and leaves the implementation
// out of the timing).
typedef int (*mpb_run_fn)(struct mpb_work *work, int mode, const uint8_t *msg, size_t len);

// mpb_impl is one implementation. `init`, when not NULL, runs once before
// the first message and returns 0 on success.
struct mpb_impl {
  const char *name;
  int (*init)(void);
  mpb_run_fn run;
};

// Ours (bench_ours.c).
extern const struct mpb_impl mpb_ours;

// mpb_ours_peak measures the memory our parser allocates for one message:
// it parses the `len` bytes at `msg` through an allocator that tracks the
// bytes live and returns the high-water mark in `*out_peak` (everything the
// parser allocates: handle, records, arena, scratch; the
// message buffer is the caller's). Returns 0, or the parser's error.
int mpb_ours_peak(uint64_t *out_peak, const uint8_t *msg, size_t len);

// The memory floor (bench_floor.c): reads every input byte once, parses
// nothing; measured only when --impl names "memread".
extern const struct mpb_impl mpb_floor;

// The peers, each defined only when its adapter is built (MPB_HAVE_*).
extern const struct mpb_impl mpb_peer_gmime;
extern const struct mpb_impl mpb_peer_libetpan;
extern const struct mpb_impl mpb_peer_dovecot;
extern const struct mpb_impl mpb_peer_mimetic;
extern const struct mpb_impl mpb_peer_vmime;

// Header field classes: which typed parser a field goes to, by name. Every
// implementation sorts its fields with this one function, so all of them
// type the same fields the same way.
enum mpb_field_class {
  MPB_F_UNSTRUCTURED = 0, // RFC 2047 decoding to UTF-8
  MPB_F_SUBJECT,          // RFC 2047 decoding (and the base subject, where offered)
  MPB_F_ADDRESS,          // From, To, Cc, Bcc, Reply-To, Sender, Resent-*
  MPB_F_DATE,             // Date, Resent-Date
  MPB_F_MSGID,            // Message-ID, In-Reply-To, References, Content-ID, Resent-Message-ID
  MPB_F_RECEIVED,         // Received
  MPB_F_CONTENT_TYPE,     // Content-Type
  MPB_F_DISPOSITION,      // Content-Disposition
  MPB_F_LIST_URIS,        // List-Help, -Subscribe, -Unsubscribe, -Post, -Owner, -Archive
  MPB_F_LIST_ID,          // List-Id
  MPB_F_RAW,              // Content-Transfer-Encoding, MIME-Version: used as they are
};

// mpb_field_class returns the class of the field named by the `len` bytes
// at `name` (any case).
int mpb_field_class(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif // MP_BENCH_INTERNAL_H
