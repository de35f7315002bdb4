#!/usr/bin/env python3
"""Tests of the msgcrypt command (TAP): `selftest` prints one well-formed line
per self-test of the library, every one "ok" (or "skip" for the AES-NI path on
a CPU without AES-NI), covering every algorithm, and exits 0; --version prints
the library version from msgcrypt.h; --help lists the commands; bad usage
exits 2; and, with MSGCRYPT_FAILING (the command linked to a fake self-test
table with one passing, one failing and one unavailable test), the FAIL and
skip lines and exit status 1.

usage: test_msgcrypt_tool.py MSGCRYPT MSGCRYPT_FAILING HEADER
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

ALGORITHMS = [
    'SHA3-224', 'SHA3-256', 'SHA3-384', 'SHA3-512', 'SHAKE128', 'SHAKE256',
    'ML-KEM-512', 'ML-KEM-768', 'ML-KEM-1024', 'ML-DSA-44', 'ML-DSA-65', 'ML-DSA-87',
    'X448', 'Ed448', 'Ed448ph', 'AES-OCB/AES-NI', 'AES-OCB/BoringSSL',
    'SHA-1', 'SHA-256', 'SHA-384', 'SHA-512', 'HKDF-SHA256', 'AES-CFB', 'AES-GCM',
    'AES-KW', 'RSA encryption', 'ECDH P-256', 'ECDH P-384', 'ECDH P-521', 'X25519',
]
LINE = re.compile(r'^(ok|FAIL|skip)\s+(.+?) \(([^()]+)\)(: .*)?$')

tool, failing_tool, header = sys.argv[1], sys.argv[2], sys.argv[3]
tap = Tap()
check = tap.check


def run(*args, program=None):
    return subprocess.run([program or tool, *args], capture_output=True, text=True, timeout=120)


p = run('selftest')
check(p.returncode == 0, 'selftest exits 0', p.stdout + p.stderr)
lines = p.stdout.splitlines()
parsed = [LINE.match(line) for line in lines]
check(all(parsed), 'every line is "STATUS  NAME (DETAIL)"', p.stdout)
names = [m.group(2) for m in parsed if m]
check(names == ALGORITHMS, 'one line per algorithm, in order', '\n'.join(names))
statuses = {m.group(2): m.group(1) for m in parsed if m}
bad = [n for n, s in statuses.items() if s != 'ok' and not (n == 'AES-OCB/AES-NI' and s == 'skip')]
check(not bad, 'every self-test passes', bad)
check(all(line[:6] in ('ok    ', 'FAIL  ', 'skip  ') for line in lines),
      'status column is 6 wide', p.stdout)
for line in lines:
    if line.startswith('ok    ML-KEM-768'):
        check(line == 'ok    ML-KEM-768 (keygen, encaps, decaps, implicit rejection)',
              'ML-KEM-768 line', line)
check(p.stderr == '', 'nothing on stderr', p.stderr)

version = re.search(r'#define MC_VERSION_STRING "([^"]+)"', open(header).read()).group(1)
p = run('--version')
check(p.returncode == 0 and p.stdout == 'msgcrypt (libmsgcrypt) %s\n' % version,
      '--version prints the library version', p.stdout)
p = run('--help')
check(p.returncode == 0 and 'selftest' in p.stdout and p.stdout.startswith('usage:'),
      '--help lists the commands', p.stdout)
for args, what in (((), 'no command'), (('frobnicate',), 'unknown command'),
                   (('selftest', 'extra'), 'selftest with an argument')):
    p = run(*args)
    check(p.returncode == 2 and p.stdout == '' and p.stderr != '',
          what + ' exits 2 with a message', p.stdout + p.stderr)

p = run('selftest', program=failing_tool)
check(p.returncode == 1, 'a failed self-test exits 1', p.stdout + p.stderr)
check(p.stdout.splitlines() == [
    'ok    Fake-OK (fake)',
    'FAIL  Fake-FAIL (fake): a known-answer self-test failed',
    'skip  Fake-SKIP (fake): not available on this CPU',
], 'FAIL and skip lines', p.stdout)
check(p.stderr == 'msgcrypt: 1 of 3 self-tests failed\n', 'failure count on stderr', p.stderr)

sys.exit(tap.done())
