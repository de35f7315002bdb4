#!/usr/bin/env python3
"""Checks that a shared library exports exactly the functions its public
header declares with the library's API macro, all under the library prefix.

usage: check_symbols.py LIBRARY.so HEADER.h PREFIX_   (prints TAP)
"""
import re
import subprocess
import sys


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
    checks = [
        ('header declares at least one function', bool(want), ''),
        ('every export carries the prefix ' + prefix,
         all(n.startswith(prefix) for n in have),
         ' '.join(sorted(n for n in have if not n.startswith(prefix)))),
        ('every declared function is exported', want <= have,
         ' '.join(sorted(want - have))),
        ('nothing undeclared is exported', have <= want,
         ' '.join(sorted(have - want))),
    ]
    print('TAP version 13')
    print(f'1..{len(checks)}')
    for i, (name, ok, detail) in enumerate(checks, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {name}")
        if not ok and detail:
            print(f'# {detail}')
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == '__main__':
    sys.exit(main())
