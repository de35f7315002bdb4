#!/usr/bin/env python3
"""`msgcrypt encrypt-mime --cert`: S/MIME messages that OpenSSL decrypts.

Certificates and keys are made by the openssl CLI in a temporary folder;
`openssl cms -decrypt` (a separate process, never linked with our
BoringSSL-based code) reads what the tool writes. Checks: the outer header
keeps the transport fields and carries application/pkcs7-mime, the
decrypted entity is the message's Content-* fields and body in canonical
CRLF form, for RSA (PKCS#1 v1.5 and OAEP) and P-256 recipients with CBC and
GCM content; bad certificates and bad usage write nothing on stdout.

Usage: test_encrypt_mime_smime.py MSGCRYPT VECTORS_DIR
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

tool = sys.argv[1]
pgp_cert = os.path.join(sys.argv[2], 'rfc9580-appendixA', 'a3_cert.asc')
tap = Tap(diag_lines=20)
check = tap.check


def openssl(*args, data=None):
    return subprocess.run(['openssl', *args], input=data, capture_output=True)


def make_cert(d, name, key_args, usage):
    key, pem = os.path.join(d, name + '.key'), os.path.join(d, name + '.pem')
    p = openssl('req', '-x509', *key_args, '-nodes', '-keyout', key, '-out', pem,
                '-subj', '/CN=%s/emailAddress=%s@example.org' % (name, name), '-days', '30',
                '-addext', 'basicConstraints=critical,CA:FALSE',
                '-addext', 'keyUsage=' + usage,
                '-addext', 'extendedKeyUsage=emailProtection')
    if p.returncode != 0:
        sys.exit('openssl req failed: ' + p.stderr.decode())
    return key, pem


MESSAGE = (b'From: Bob <bob@example.org>\n'
           b'To: alice@example.org\n'
           b'Subject: quarterly figures\n'
           b'Message-ID: <m1@example.org>\n'
           b'MIME-Version: 1.0\n'
           b'Content-Type: text/plain; charset=utf-8\n'
           b'Content-Transfer-Encoding: 8bit\n'
           b'\n'
           b'Hello S/MIME,\nline two \xc3\xa9\n')
INNER = (b'Content-Type: text/plain; charset=utf-8\r\n'
         b'Content-Transfer-Encoding: 8bit\r\n'
         b'\r\n'
         b'Hello S/MIME,\r\nline two \xc3\xa9\r\n')


def encrypt(*args, data=MESSAGE):
    return subprocess.run([tool, 'encrypt-mime', *args], input=data, capture_output=True)


with tempfile.TemporaryDirectory() as d:
    rsa_key, rsa_pem = make_cert(d, 'alice', ['-newkey', 'rsa:3072'], 'keyEncipherment')
    ec_key, ec_pem = make_cert(d, 'carol', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
                               'keyAgreement')
    cases = [
        ('RSA-3072 PKCS#1 v1.5, CBC', [rsa_pem], [], rsa_key, rsa_pem, b'enveloped-data'),
        ('RSA-3072 OAEP, CBC', [rsa_pem], ['--rsa', 'oaep'], rsa_key, rsa_pem, b'enveloped-data'),
        ('RSA-3072, GCM', [rsa_pem], ['--content', 'gcm'], rsa_key, rsa_pem,
         b'authEnveloped-data'),
        ('P-256, CBC', [ec_pem], [], ec_key, ec_pem, b'enveloped-data'),
        ('two recipients, read by the second', [rsa_pem, ec_pem], [], ec_key, ec_pem,
         b'enveloped-data'),
    ]
    for name, pems, extra, key, pem, smime_type in cases:
        args = []
        for p in pems:
            args += ['--cert', p]
        p = encrypt(*args, *extra)
        check(p.returncode == 0 and p.stderr == b'', name + ': exit 0, nothing on stderr',
              p.stderr.decode(errors='replace'))
        out = p.stdout
        head = out.split(b'\n\n', 1)[0]
        check(b'Subject: quarterly figures' in head and b'Message-ID: <m1@example.org>' in head
              and b'application/pkcs7-mime' in head and smime_type in head
              and b'Content-Transfer-Encoding: base64' in head
              and b'charset=utf-8' not in head,
              name + ': outer header keeps transport fields, hides Content-*', head.decode())
        path = os.path.join(d, 'out.eml')
        with open(path, 'wb') as f:
            f.write(out)
        dec = openssl('cms', '-decrypt', '-inkey', key, '-recip', pem, '-in', path)
        check(dec.returncode == 0 and dec.stdout == INNER,
              name + ': openssl cms -decrypt gives the canonical inner entity',
              dec.stderr.decode(errors='replace') + repr(dec.stdout[:200]))

    # RFC 9788 header protection: the outer Subject is hidden in gateway
    # mode and kept at rest; the decrypted payload carries hp="cipher", the
    # protected fields and one HP-Outer field per outer field.
    for mode in ('at-rest', 'gateway'):
        p = encrypt('--cert', rsa_pem, '--protect-headers', mode)
        check(p.returncode == 0, 'header protection %s: exit 0' % mode, p.stderr.decode())
        head = p.stdout.split(b'\n\n', 1)[0]
        want_subject = b'Subject: [...]' if mode == 'gateway' else b'Subject: quarterly figures'
        check(want_subject in head and b'application/pkcs7-mime' in head,
              'header protection %s: outer Subject' % mode, head.decode())
        path = os.path.join(d, 'hp.eml')
        with open(path, 'wb') as f:
            f.write(p.stdout)
        dec = openssl('cms', '-decrypt', '-inkey', rsa_key, '-recip', rsa_pem, '-in', path)
        inner_head = dec.stdout.split(b'\r\n\r\n', 1)[0]
        hp_outer = [l for l in inner_head.split(b'\r\n') if l.lower().startswith(b'hp-outer:')]
        check(dec.returncode == 0 and b'hp="cipher"' in inner_head
              and b'Subject: quarterly figures' in inner_head
              and b'From: Bob <bob@example.org>' in inner_head
              and b'HP-Outer: Subject: ' + want_subject[len(b'Subject: '):] in hp_outer
              and all(b'\n' not in l for l in hp_outer)
              and b'line two \xc3\xa9\r\n' in dec.stdout,
              'header protection %s: openssl decrypts the protected header' % mode,
              dec.stderr.decode(errors='replace') + repr(dec.stdout[:600]))

    not_cert = os.path.join(d, 'junk.pem')
    with open(not_cert, 'wb') as f:
        f.write(b'-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
    for name, args, code in (
            ('not a certificate', ['--cert', not_cert], 1),
            ('missing file', ['--cert', os.path.join(d, 'absent.pem')], 1),
            ('unknown content encryption', ['--cert', rsa_pem, '--content', 'rc2'], 2),
            ('unknown header protection', ['--cert', rsa_pem, '--protect-headers', 'all'], 2),
            ('keys and certificates together', ['--cert', rsa_pem, '--key', pgp_cert], 2)):
        p = encrypt(*args)
        check(p.returncode == code and p.stdout == b'' and p.stderr != b'',
              name + ': exit %d, message, nothing on stdout' % code,
              'rc %d, stderr %r' % (p.returncode, p.stderr))
    p = encrypt('--cert', rsa_pem, data=b'no header here')
    check(p.returncode == 1 and p.stdout == b'', 'stdin without a header: exit 1, nothing out',
          p.stderr.decode(errors='replace'))

sys.exit(tap.done())
