#!/usr/bin/env python3
"""interop_hp.py: header protection (RFC 9788) checked by independent tools.

gpg makes a certificate (Ed25519 primary, Curve25519 encryption subkey) in
a temporary GNUPGHOME; `msgcrypt encrypt-mime --protect-headers MODE`
encrypts messages to it; Python's email package reads the outer message,
gpg decrypts the second part and the email package reads the decrypted
Cryptographic Payload. For each mode the test checks the outer header
section field by field, the hp="cipher" parameter, the protected copies,
that the HP-Outer fields list exactly what the outer header carries, and
the Legacy Display Element (present only when a user-facing field is
hidden or altered: on the text/plain root, or on the first part of a
multipart/mixed). Gateway mode is RFC 9788's hcp_shy, recomputed here with
Python's email.utils. Output is TAP.

usage: interop_hp.py MSGCRYPT
"""
import datetime
import email
import email.policy
import email.utils
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

TOOL = sys.argv[1]

MSG = (b"From: Alice <alice@example.net>\r\n"
       b"To: Bob <bob@example.org>\r\n"
       b"Cc: Carol <carol@example.net>\r\n"
       b"Reply-To: Alice <alice@example.net>\r\n"
       b"Subject: Handling the Jones contract\r\n"
       b"Keywords: jones, contract\r\n"
       b"Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n"
       b"Message-ID: <20230111T210843Z.1234@lhp.example>\r\n"
       b"In-Reply-To: <20230110T100000Z.1@lhp.example>\r\n"
       b"References: <20230110T100000Z.1@lhp.example>\r\n"
       b"MIME-Version: 1.0\r\n"
       b"Content-Type: text/plain; charset=utf-8\r\n"
       b"\r\n"
       b"The draft is attached in spirit.\r\n")

MULTI = (b"From: Alice <alice@example.net>\n"
         b"To: Bob <bob@example.org>\n"
         b"Subject: =?utf-8?q?Caf=C3=A9_plans?=\n"
         b"Date: Wed, 11 Jan 2023 16:08:43 -0500\n"
         b"Message-ID: <m2@lhp.example>\n"
         b"MIME-Version: 1.0\n"
         b"Content-Type: multipart/mixed; boundary=\"xx\"\n"
         b"\n"
         b"--xx\nContent-Type: text/plain\n\nhello\n--xx--\n")

# The fields of each input, in order, without MIME-Version and Content-*.
FIELDS = {
    'msg': [('From', 'Alice <alice@example.net>'), ('To', 'Bob <bob@example.org>'),
            ('Cc', 'Carol <carol@example.net>'), ('Reply-To', 'Alice <alice@example.net>'),
            ('Subject', 'Handling the Jones contract'), ('Keywords', 'jones, contract'),
            ('Date', 'Wed, 11 Jan 2023 16:08:43 -0500'),
            ('Message-ID', '<20230111T210843Z.1234@lhp.example>'),
            ('In-Reply-To', '<20230110T100000Z.1@lhp.example>'),
            ('References', '<20230110T100000Z.1@lhp.example>')],
    'multi': [('From', 'Alice <alice@example.net>'), ('To', 'Bob <bob@example.org>'),
              ('Subject', '=?utf-8?q?Caf=C3=A9_plans?='),
              ('Date', 'Wed, 11 Jan 2023 16:08:43 -0500'), ('Message-ID', '<m2@lhp.example>')],
}

USER_FACING = ('subject', 'from', 'to', 'cc', 'date', 'reply-to', 'comments', 'keywords')

tap = Tap(diag_indent='  ')


def ok(cond, name, detail=''):
    # str(): a failure shows its detail even when that is an empty bytes or None.
    return tap.check(cond, name, str(detail))


def shy_value(name, value):
    """hcp_shy's changes beyond hcp_baseline (RFC 9788 §3.2.3): From without
    display names, Date in UTC."""
    if name.lower() == 'from':
        return ', '.join('<%s>' % a for _, a in email.utils.getaddresses([value]))
    if name.lower() == 'date':
        d = email.utils.parsedate_to_datetime(value).astimezone(datetime.timezone.utc)
        return d.strftime('%a, %d %b %Y %H:%M:%S +0000')
    return value


def hcp(mode, fields):
    """RFC 9788's hcp_no_confidentiality (at-rest) or hcp_shy (gateway)."""
    out = []
    for name, value in fields:
        if mode == 'gateway' and name.lower() in ('comments', 'keywords'):
            continue
        if mode == 'gateway' and name.lower() == 'subject':
            value = '[...]'
        elif mode == 'gateway':
            value = shy_value(name, value)
        out.append((name, value))
    return out


def legacy_lines(mode, fields, nl):
    """The Legacy Display Element: the user-facing fields the policy hid
    or altered, as "Name: value" lines, then an empty line."""
    shown = dict((n.lower(), v) for n, v in hcp(mode, fields))
    lines = [(n, v) for n, v in fields
             if n.lower() in USER_FACING and shown.get(n.lower()) != v]
    return ''.join('%s: %s%s' % (n, v, nl) for n, v in lines).encode() + nl.encode()


def raw_fields(msg):
    # compat32 keeps values as they were written (encoded words included).
    return [(k, v) for k, v in msg.items() if k.lower() != 'mime-version'
            and not k.lower().startswith('content-')]


def check(home, key, label, src, mode):
    env = dict(os.environ, GNUPGHOME=home)
    r = subprocess.run([TOOL, 'encrypt-mime', '--key', key, '--protect-headers', mode],
                       input=src, capture_output=True, timeout=60)
    ok(r.returncode == 0, '%s %s: encrypt-mime exits 0' % (label, mode), r.stderr)
    if r.returncode != 0:
        return
    outer = email.message_from_bytes(r.stdout, policy=email.policy.compat32)
    want_outer = hcp(mode, FIELDS[label])
    ok(raw_fields(outer) == want_outer, '%s %s: outer header fields' % (label, mode),
       '%r\n!=\n%r' % (raw_fields(outer), want_outer))
    ok(outer.get_content_type() == 'multipart/encrypted', '%s %s: multipart/encrypted' %
       (label, mode))
    parts = outer.get_payload()
    armored = parts[1].get_payload(decode=True)
    d = subprocess.run(['gpg', '--batch', '--quiet', '--decrypt'], input=armored,
                       capture_output=True, env=env, timeout=60)
    ok(d.returncode == 0, '%s %s: gpg decrypts' % (label, mode), d.stderr)
    if d.returncode != 0:
        return
    inner = email.message_from_bytes(d.stdout, policy=email.policy.compat32)
    ok(inner.get_param('hp') == 'cipher', '%s %s: hp="cipher"' % (label, mode),
       inner.get('Content-Type'))
    protected = [(k, v) for k, v in raw_fields(inner) if k.lower() != 'hp-outer']
    ok(protected == FIELDS[label], '%s %s: protected fields' % (label, mode),
       '%r\n!=\n%r' % (protected, FIELDS[label]))
    hp_outer = [tuple(v.split(': ', 1)) for k, v in inner.items() if k.lower() == 'hp-outer']
    ok(hp_outer == raw_fields(outer), '%s %s: HP-Outer lists the outer fields' % (label, mode),
       '%r\n!=\n%r' % (hp_outer, raw_fields(outer)))
    legacy = inner.get_param('hp-legacy-display')
    body = inner.get_payload(decode=not inner.is_multipart())
    if mode == 'gateway' and label == 'msg':
        ok(legacy == '1', '%s %s: hp-legacy-display="1"' % (label, mode))
        want = legacy_lines(mode, FIELDS[label], '\r\n') + b'The draft is attached in spirit.\r\n'
        ok(want.startswith(b'From: Alice <alice@example.net>\r\nSubject: Handling the Jones'),
           '%s %s: the legacy display shows the real From and Subject' % (label, mode), want)
        ok(body == want, '%s %s: legacy display element then the body' % (label, mode),
           '%r' % body)
    elif label == 'msg':
        ok(legacy is None, '%s %s: no legacy display' % (label, mode))
        ok(body == b'The draft is attached in spirit.\r\n', '%s %s: body' % (label, mode),
           '%r' % body)
    else:
        ok(legacy is None and inner.get_content_type() == 'multipart/mixed'
           and inner.get_param('boundary') == 'xx',
           '%s %s: multipart payload, no legacy display on its root' % (label, mode))
        # The first part is the main body part: in gateway mode it carries
        # the Legacy Display Element (RFC 9788 §4.5), marked on its own
        # Content-Type.
        child = inner.get_payload(0)
        want = 'hello'
        if mode == 'gateway':
            want = legacy_lines(mode, FIELDS[label], '\n').decode() + 'hello'
        ok(child.get_payload() == want and
           child.get_param('hp-legacy-display') == ('1' if mode == 'gateway' else None),
           '%s %s: child part' % (label, mode), '%r %r' % (child.get_payload(), child.items()))
        if mode == 'gateway':
            # Outside the ciphertext: its armor is random Base64, which
            # contains any three letters now and then.
            clear = re.sub(rb'-----BEGIN PGP MESSAGE-----.*?-----END PGP MESSAGE-----', b'',
                           r.stdout, flags=re.S)
            ok(b'-----BEGIN PGP MESSAGE-----' in r.stdout and b'Caf' not in clear,
               '%s %s: subject absent from the output' % (label, mode))


def main():
    with tempfile.TemporaryDirectory(prefix='interop_hp.') as home:
        env = dict(os.environ, GNUPGHOME=home)
        gpg = ['gpg', '--batch', '--passphrase', '', '--quiet']
        subprocess.run(gpg + ['--quick-gen-key', 'Bob <bob@example.org>', 'ed25519', 'cert',
                              'never'], env=env, check=True, capture_output=True, timeout=60)
        lst = subprocess.run(['gpg', '--with-colons', '-k', 'bob@example.org'], env=env,
                             check=True, capture_output=True, text=True).stdout
        fpr = [l.split(':')[9] for l in lst.splitlines() if l.startswith('fpr:')][0]
        subprocess.run(gpg + ['--quick-add-key', fpr, 'cv25519', 'encr', 'never'], env=env,
                       check=True, capture_output=True, timeout=60)
        key = os.path.join(home, 'bob.pgp')
        with open(key, 'wb') as f:
            f.write(subprocess.run(['gpg', '--export', fpr], env=env, check=True,
                                   capture_output=True).stdout)
        for mode in ('at-rest', 'gateway'):
            check(home, key, 'msg', MSG, mode)
            check(home, key, 'multi', MULTI, mode)
        r = subprocess.run([TOOL, 'encrypt-mime', '--key', key, '--protect-headers', 'bogus'],
                           input=MSG, capture_output=True, timeout=60)
        ok(r.returncode != 0 and r.stdout == b'' and b'at-rest, gateway' in r.stderr,
           'unknown mode refused, nothing on stdout', r.stderr)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
