// corvid_errtext.h: the text of an OS error code, shared by every library's
// xx_strerror(). Private and header-only (see CONVENTIONS.md §1): it is never
// installed and adds no link dependency.
#ifndef CORVID_ERRTEXT_H
#define CORVID_ERRTEXT_H

#include <string.h>

// corvid_errno_text returns a static description of `errnum` (a positive errno
// value), or NULL when the C library does not know it. Unlike strerror(), the
// string is never rewritten by another call, so it is safe from any thread.
static inline const char *corvid_errno_text(int errnum) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  return strerrordesc_np(errnum);
#else
  (void)errnum;
  return NULL;
#endif
}

// corvid_errtext_generic describes the codes that are not a library's own: 0,
// OS errors (-1 … -4095), and anything else. Each library's xx_strerror() asks
// its own table first and falls back to this.
static inline const char *corvid_errtext_generic(int code) {
  if (code == 0)
    return "success";
  if (code < 0 && code >= -4095) {
    const char *text = corvid_errno_text(-code);
    return text != NULL ? text : "unknown system error";
  }
  return "unknown error";
}

// corvid_errtext_lookup describes `code` from a library's own table: `own`
// holds `num_own` texts for the codes first_code, first_code - 1, … (codes
// count down), and anything outside it is described by corvid_errtext_generic.
static inline const char *corvid_errtext_lookup(const char *const *own, size_t num_own,
                                                int first_code, int code) {
  long index = (long)first_code - code;
  if (index >= 0 && (size_t)index < num_own && own[index] != NULL)
    return own[index];
  return corvid_errtext_generic(code);
}

#endif // CORVID_ERRTEXT_H
