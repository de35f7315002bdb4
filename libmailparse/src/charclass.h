// charclass.h: byte classes of the RFC 5322 and RFC 2045 grammars as one
// table lookup each. The typed parsers and the structure parser ask "is this
// a special?" for every byte of every structured value, and a strchr() over
// the class's characters showed up in their profiles.
#ifndef MP_CHARCLASS_H
#define MP_CHARCLASS_H

#include <stdbool.h>
#include <stdint.h>

enum {
  MP_CC_SPECIAL = 1,  // RFC 5322 §3.2.3 specials: ()<>[]:;@\,."
  MP_CC_TSPECIAL = 2, // RFC 2045 §5.1 tspecials: ()<>@,;:\"/[]?=
  MP_CC_ATOM_END = 4, // what stops the typed tokenizer's atom loop: specials,
                      // white space and '=' (a possible encoded word)
  MP_CC_WSP = 8,      // white space between tokens: SP, HT, CR, LF
  MP_CC_OPENER = 16,  // opens a token the inline tokenizer leaves to the
                      // full one: '(' comment, '"' quoted string, '['
                      // domain literal
};

static const uint8_t mp_charclass[256] = {
    ['('] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END | MP_CC_OPENER,
    [')'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['<'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['>'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['['] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END | MP_CC_OPENER,
    [']'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    [':'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    [';'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['@'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['\\'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    [','] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END,
    ['"'] = MP_CC_SPECIAL | MP_CC_TSPECIAL | MP_CC_ATOM_END | MP_CC_OPENER,
    ['.'] = MP_CC_SPECIAL | MP_CC_ATOM_END,
    ['/'] = MP_CC_TSPECIAL,
    ['?'] = MP_CC_TSPECIAL,
    ['='] = MP_CC_TSPECIAL | MP_CC_ATOM_END,
    [' '] = MP_CC_ATOM_END | MP_CC_WSP,
    ['\t'] = MP_CC_ATOM_END | MP_CC_WSP,
    ['\r'] = MP_CC_ATOM_END | MP_CC_WSP,
    ['\n'] = MP_CC_ATOM_END | MP_CC_WSP,
};

static inline bool mp_is_special(uint8_t b) {
  return (mp_charclass[b] & MP_CC_SPECIAL) != 0;
}

static inline bool mp_is_tspecial(uint8_t b) {
  return (mp_charclass[b] & MP_CC_TSPECIAL) != 0;
}

#endif // MP_CHARCLASS_H
