// charset.c: the charsets mkcorpus writes text in, and conversion from UTF-8
// into them through glibc's iconv. Conversion is strict (no transliteration),
// so a message never declares a charset its bytes are not in.
#include <errno.h>
#include <iconv.h>
#include <string.h>

#include "mkcorpus_internal.h"

struct charset_info {
  const char *name;  // MIME name, lower case
  const char *upper; // the same as many mail programs write it
  const char *iconv_name;
  bool seven_bit;
  bool euro;
  bool typographic;
};

static const struct charset_info charsets[MKC_CS_COUNT] = {
    [MKC_CS_US_ASCII] = {"us-ascii", "US-ASCII", "US-ASCII", true, false, false},
    [MKC_CS_UTF_8] = {"utf-8", "UTF-8", "UTF-8", false, true, true},
    [MKC_CS_ISO_8859_1] = {"iso-8859-1", "ISO-8859-1", "ISO-8859-1", false, false, false},
    [MKC_CS_ISO_8859_15] = {"iso-8859-15", "ISO-8859-15", "ISO-8859-15", false, true, false},
    [MKC_CS_WINDOWS_1252] = {"windows-1252", "Windows-1252", "WINDOWS-1252", false, true, true},
    [MKC_CS_KOI8_R] = {"koi8-r", "KOI8-R", "KOI8-R", false, false, false},
    [MKC_CS_WINDOWS_1251] = {"windows-1251", "Windows-1251", "WINDOWS-1251", false, true, true},
    [MKC_CS_ISO_2022_JP] = {"iso-2022-jp", "ISO-2022-JP", "ISO-2022-JP", true, false, false},
    [MKC_CS_SHIFT_JIS] = {"shift_jis", "Shift_JIS", "SHIFT_JIS", false, false, false},
    [MKC_CS_GB2312] = {"gb2312", "GB2312", "GB2312", false, false, false},
    [MKC_CS_GBK] = {"gbk", "GBK", "GBK", false, false, false},
};

// Opened on first use and kept: opening a converter costs far more than
// using one, and a corpus converts millions of lines.
static iconv_t converters[MKC_CS_COUNT];
static bool converter_open[MKC_CS_COUNT];

const char *mkc_charset_name(enum mkc_charset cs) {
  return charsets[cs].name;
}

const char *mkc_charset_label(enum mkc_charset cs, bool upper) {
  return upper ? charsets[cs].upper : charsets[cs].name;
}

bool mkc_charset_is_7bit(enum mkc_charset cs) {
  return charsets[cs].seven_bit;
}

bool mkc_charset_has_euro(enum mkc_charset cs) {
  return charsets[cs].euro;
}

bool mkc_charset_has_typographic(enum mkc_charset cs) {
  return charsets[cs].typographic;
}

static iconv_t converter(enum mkc_charset cs) {
  if (!converter_open[cs]) {
    converters[cs] = iconv_open(charsets[cs].iconv_name, "UTF-8");
    if (converters[cs] == (iconv_t)-1)
      mkc_die("iconv cannot convert UTF-8 to %s", charsets[cs].iconv_name);
    converter_open[cs] = true;
  }
  return converters[cs];
}

// Converts one line (no line break in it) and returns the shift state to
// ASCII at its end. A non-zero count of irreversible conversions is a failure
// too: the declared charset would not give the text back.
static bool convert_line(iconv_t cd, const char *in, size_t len, struct mkc_buf *out) {
  iconv(cd, NULL, NULL, NULL, NULL);
  char *src = (char *)in;
  size_t src_left = len;
  bool flushing = false;
  for (;;) {
    mkc_buf_reserve(out, src_left * 4 + 16);
    char *dst = out->data + out->len;
    size_t dst_left = out->cap - out->len - 1;
    size_t rc = flushing ? iconv(cd, NULL, NULL, &dst, &dst_left)
                         : iconv(cd, &src, &src_left, &dst, &dst_left);
    int err = errno;
    out->len = (size_t)(dst - out->data);
    if (rc == (size_t)-1 && err == E2BIG)
      continue;
    if (rc != 0)
      return false;
    if (flushing)
      return true;
    flushing = true;
  }
}

bool mkc_charset_convert(enum mkc_charset cs, const char *utf8, size_t len, struct mkc_buf *out) {
  if (cs == MKC_CS_UTF_8) {
    mkc_buf_put(out, utf8, len);
    return true;
  }
  if (cs == MKC_CS_US_ASCII) {
    if (!mkc_is_ascii(utf8, len))
      return false;
    mkc_buf_put(out, utf8, len);
    return true;
  }
  iconv_t cd = converter(cs);
  size_t start_len = out->len;
  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(utf8 + pos, '\n', len - pos);
    size_t line_end = nl ? (size_t)(nl - utf8) : len;
    size_t content_end = line_end;
    if (content_end > pos && utf8[content_end - 1] == '\r')
      content_end--;
    if (!convert_line(cd, utf8 + pos, content_end - pos, out)) {
      out->len = start_len;
      return false;
    }
    mkc_buf_put(out, utf8 + content_end, (nl ? line_end + 1 : line_end) - content_end);
    pos = nl ? line_end + 1 : len;
  }
  return true;
}

void mkc_charset_cleanup(void) {
  for (int cs = 0; cs < MKC_CS_COUNT; cs++) {
    if (converter_open[cs])
      iconv_close(converters[cs]);
    converter_open[cs] = false;
  }
}
