#!/usr/bin/env python3
"""Checks that a shared library exports exactly the functions its public
header declares with the library's API macro, all under the library prefix.

usage: check_symbols.py LIBRARY.so HEADER.h PREFIX_   (prints TAP)
"""
import re
import subprocess
import sys

from corvid_tap import Tap  # beside this script, which is on sys.path


def exported(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        # Version-node markers ("A") are not symbols of ours.
        if len(parts) == 3 and parts[1] != 'A':
            names.add(parts[2].split('@')[0])
    return names


def declared(header, api_macro):
    text = open(header, encoding='utf-8').read()
    # Drop comments so that prose mentioning a function does not count.
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    # Drop preprocessor lines (with continuations): the macro's own definition.
    text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', '', text, flags=re.M)
    decl = re.compile(re.escape(api_macro) + r'\b[^;{]*?\b(\w+)\s*\(', re.S)
    return set(decl.findall(text))


def main():
    lib, header, prefix = sys.argv[1:4]
    api_macro = prefix.rstrip('_').upper() + '_API'
    have, want = exported(lib), declared(header, api_macro)
    tap = Tap(tap_version=True)
    tap.check(bool(want), 'header declares at least one function')
    tap.check(all(n.startswith(prefix) for n in have), 'every export carries the prefix ' + prefix,
              ' '.join(sorted(n for n in have if not n.startswith(prefix))))
    tap.check(want <= have, 'every declared function is exported', ' '.join(sorted(want - have)))
    tap.check(have <= want, 'nothing undeclared is exported', ' '.join(sorted(have - want)))
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
