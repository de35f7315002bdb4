#!/usr/bin/env python3
"""interop_smime_trust.py: the trust-store procedure of SMIME-TRUST.md, run
against this machine's Debian packages and loaded by `msgcrypt describe
--trust`. Output is TAP.

  - p11-kit (Debian package p11-kit): `trust extract --filter=ca-anchors
    --purpose=email` as a PEM bundle and as a hashed directory; every
    certificate of the bundle, described alone, must reach an anchor of the
    store read from the file and from the directory (a chain of one: the
    certificate is an anchor), and must not with a store of one unrelated
    root;
  - NSS (Debian package libnss3-tools, and libnss3's built-in token): the
    shell block after "<!-- smime-roots-procedure -->" in SMIME-TRUST.md,
    run verbatim with DEST in a temporary directory; its bundle is loaded and
    checked the same way.
The sizes of both sets and their difference are printed as TAP comments:
they are the reason SMIME-TRUST.md takes the NSS route. A part whose tool is
missing is skipped with the package to install.

usage: interop_smime_trust.py MSGCRYPT SMIME-TRUST.md
"""
import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap  # noqa: E402

PEM = re.compile(rb'-----BEGIN CERTIFICATE-----\r?\n(.*?)-----END CERTIFICATE-----', re.S)
NSSCKBI = '/usr/lib/x86_64-linux-gnu/libnssckbi.so'


def run(cmd, env=None, timeout=120):
    return subprocess.run(cmd, capture_output=True, timeout=timeout, check=False, env=env)


def certs_of(path):
    """The DER certificates of a PEM bundle, in order."""
    with open(path, 'rb') as f:
        return [base64.b64decode(b''.join(m.split())) for m in PEM.findall(f.read())]


def pem(der):
    b = base64.b64encode(der)
    lines = [b[i:i + 64] for i in range(0, len(b), 64)]
    return b'-----BEGIN CERTIFICATE-----\n' + b'\n'.join(lines) + b'\n-----END CERTIFICATE-----\n'


def describe_each(tool, tmp, ders, trust):
    """{sha256 hex: (verdict, chain_length)} for every certificate of `ders`,
    each judged against the store `trust`. `msgcrypt describe` describes the
    non-CA certificates of a file when there are any (v1 roots have no
    basicConstraints), otherwise all of them: two calls cover every one."""
    out = {}
    todo = list(ders)
    for _ in range(2):
        if not todo:
            break
        path = os.path.join(tmp, 'batch.pem')
        with open(path, 'wb') as f:
            f.write(b''.join(pem(d) for d in todo))
        r = run([tool, 'describe', '--cert', path, '--trust', trust, '--json'])
        if r.returncode != 0:
            raise RuntimeError(r.stderr.decode(errors='replace'))
        for c in json.loads(r.stdout)['certificates']:
            out[c['fingerprint_sha256'].replace(':', '').lower()] = (c['verdict'],
                                                                     c['chain_length'])
        todo = [d for d in todo if hashlib.sha256(d).hexdigest() not in out]
    return out


def check_store(tap, tool, tmp, label, ders, stores, stranger):
    """Each certificate of `ders` must be an anchor of every store in
    `stores` (path, description): a chain of one, not self-signed or
    untrusted; and none may be with the store `stranger`."""
    want = fingerprints(ders)
    for path, what in stores + [(stranger, None)]:
        try:
            got = describe_each(tool, tmp, ders, path)
        except (RuntimeError, ValueError, KeyError) as e:
            tap.check(False, '%s: msgcrypt describe --trust %s' % (label, what or 'stranger'), e)
            continue
        if what is None:
            bad = [(k, v) for k, v in got.items() if v != ('self-signed', 0)]
            tap.check(set(got) == want and not bad,
                      '%s: with a store of one unrelated root none is trusted' % label, bad[:3])
        else:
            bad = [(k, v) for k, v in got.items()
                   if v[1] != 1 or v[0] in ('self-signed', 'untrusted')]
            tap.check(set(got) == want and not bad,
                      '%s: all %d certificates are anchors of the store read from %s'
                      % (label, len(want), what), bad[:3] or sorted(want - set(got))[:3])


def fingerprints(ders):
    return {hashlib.sha256(d).hexdigest() for d in ders}


def main():
    tool, doc = sys.argv[1], sys.argv[2]
    tap = Tap()
    have_trust = shutil.which('trust') is not None
    have_nss = all(shutil.which(t) for t in ('certutil', 'modutil')) and os.path.exists(NSSCKBI)
    if not have_trust and not have_nss:
        print('1..0 # SKIP neither p11-kit\'s trust (Debian package p11-kit) nor NSS\'s '
              'certutil/modutil (libnss3-tools) is installed')
        return 0
    tmp = tempfile.mkdtemp(prefix='smime-trust-')
    try:
        stranger = os.path.join(tmp, 'stranger.pem')
        r = run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
                 'ec_paramgen_curve:P-256', '-nodes', '-keyout', os.path.join(tmp, 's.key'),
                 '-out', stranger, '-subj', '/CN=unrelated root', '-days', '2'])
        tap.check(r.returncode == 0, 'openssl makes an unrelated root', r.stderr)
        sets = {}
        if have_trust:
            bundle = os.path.join(tmp, 'p11-email.pem')
            hashed = os.path.join(tmp, 'p11-email.d')
            r = run(['trust', 'extract', '--format=pem-bundle', '--filter=ca-anchors',
                     '--purpose=email', bundle])
            r2 = run(['trust', 'extract', '--format=pem-directory-hash', '--filter=ca-anchors',
                      '--purpose=email', hashed])
            ders = certs_of(bundle) if r.returncode == 0 else []
            tap.check(r.returncode == 0 and r2.returncode == 0 and ders,
                      'trust extract --purpose=email writes a bundle and a hashed directory',
                      r.stderr + r2.stderr)
            if ders:
                sets['p11-kit'] = fingerprints(ders)
                check_store(tap, tool, tmp, 'p11-kit', ders,
                            [(bundle, 'the PEM bundle'), (hashed, 'the hashed directory')],
                            stranger)
        else:
            tap.note('p11-kit part skipped: no `trust` (Debian package p11-kit)')
        if have_nss:
            with open(doc, encoding='utf-8') as f:
                text = f.read()
            block = text.split('<!-- smime-roots-procedure -->', 1)[1]
            block = block.split('```sh\n', 1)[1].split('```', 1)[0]
            dest = os.path.join(tmp, 'nss-email.pem')
            r = subprocess.run(['sh', '-c', block], capture_output=True, timeout=120,
                               check=False, env=dict(os.environ, DEST=dest, TMPDIR=tmp))
            ders = certs_of(dest) if r.returncode == 0 and os.path.exists(dest) else []
            tap.check(r.returncode == 0 and len(ders) >= 20,
                      'the procedure of SMIME-TRUST.md writes the NSS e-mail roots (%d)'
                      % len(ders), r.stderr)
            if ders:
                sets['nss'] = fingerprints(ders)
                check_store(tap, tool, tmp, 'NSS e-mail roots', ders,
                            [(dest, 'the PEM bundle')], stranger)
        else:
            tap.note('NSS part skipped: no certutil/modutil (Debian package libnss3-tools) '
                     'or no %s (libnss3)' % NSSCKBI)
        if len(sets) == 2:
            n, p = sets['nss'], sets['p11-kit']
            tap.note('distinct roots: NSS e-mail %d, p11-kit --purpose=email %d; in both %d, '
                     'p11-kit only (not trusted by Mozilla for e-mail) %d, NSS only %d'
                     % (len(n), len(p), len(n & p), len(p - n), len(n - p)))
        r = run([tool, 'describe', '--cert', stranger, '--trust', os.path.join(tmp, 'none')])
        tap.check(r.returncode == 1 and r.stdout == b'',
                  'a missing --trust path is refused with status 1 and no output', r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
