"""Shared pieces of the S/MIME interoperability tests (interop_smime_gpgsm.py,
interop_smime_nss.py, interop_smime_bc.py): each encrypts with libmsgcrypt
through the driver tests/diff_smime_cms.c and has an independent program
decrypt the result. What they share lives here:
  - Certs: recipient certificates and keys made by the openssl command-line
    tool in a fresh directory, and PKCS#12 files of them in the legacy
    encryption (PBE-SHA1-3DES, SHA-1 MAC, certificate bag in the clear) that
    gpgsm 2.2 and NSS both import;
  - encrypt: one call of the driver;
  - p7m_der: the DER ContentInfo inside an S/MIME message;
  - HP_MESSAGE and check_hp: a message for header protection and the
    RFC 9788 checks of the decrypted Cryptographic Payload against the outer
    header (the same rules as tests/interop_hp.py, which checks PGP/MIME).
"""
import datetime
import email
import email.policy
import email.utils
import os
import random
import subprocess

from difftap import Tap  # noqa: F401 (re-exported for the scripts)


def run(cmd, data=b'', env=None, timeout=60):
    return subprocess.run(cmd, input=data, capture_output=True, timeout=timeout, check=False,
                          env=env)


class Certs:
    """Certificates made here; names are rsa2048, rsa3072, p256, p384, p521."""

    SPECS = {
        'rsa2048': (['-newkey', 'rsa:2048'], '0x01'),
        'rsa3072': (['-newkey', 'rsa:3072'], '0x80ff'),
        'p256': (['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '0x2a'),
        'p384': (['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], '0x2b'),
        'p521': (['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'], '0x2c'),
    }
    PASSWORD = 'interop'

    def __init__(self, tap, tmp, names):
        self.tmp = tmp
        self.paths = {}
        for name in names:
            spec, serial = self.SPECS[name]
            c, k = os.path.join(tmp, name + '.crt'), os.path.join(tmp, name + '.key')
            usage = 'keyEncipherment' if name.startswith('rsa') else 'keyAgreement'
            r = run(['openssl', 'req', '-x509'] + spec +
                    ['-nodes', '-keyout', k, '-out', c, '-days', '2', '-set_serial', serial,
                     '-subj', '/CN=%s/emailAddress=%s@example.org' % (name, name),
                     '-addext', 'keyUsage=' + usage,
                     '-addext', 'subjectKeyIdentifier=hash'])
            tap.check(r.returncode == 0, 'openssl makes the %s certificate' % name, r.stderr)
            self.paths[name] = (c, k)

    def cert(self, name):
        return self.paths[name][0]

    def key(self, name):
        return self.paths[name][1]

    def p12(self, name):
        """A PKCS#12 file of the certificate and key, password PASSWORD."""
        p = os.path.join(self.tmp, name + '.p12')
        c, k = self.paths[name]
        r = run(['openssl', 'pkcs12', '-export', '-in', c, '-inkey', k, '-out', p,
                 '-passout', 'pass:' + self.PASSWORD, '-certpbe', 'NONE',
                 '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1', '-name', name])
        if r.returncode != 0:
            raise RuntimeError('openssl pkcs12: ' + r.stderr.decode(errors='replace'))
        return p


def encrypt(driver, flags, certs, data):
    """Runs the driver; returns its output (DER, or an S/MIME message)."""
    r = run([driver] + flags + certs, data)
    if r.returncode != 0 or not r.stdout:
        raise RuntimeError('driver %s: status %d: %s' % (' '.join(flags), r.returncode,
                                                         r.stderr.decode(errors='replace')))
    return r.stdout


def p7m_der(message):
    """The Base64-decoded application/pkcs7-mime body of an S/MIME message."""
    m = email.message_from_bytes(message, policy=email.policy.compat32)
    if m.get_content_type() != 'application/pkcs7-mime':
        raise ValueError('not application/pkcs7-mime: ' + m.get_content_type())
    return m.get_payload(decode=True)


def random_bytes(seed, n):
    return random.Random(seed).randbytes(n)


# Header protection: the message, its fields in order (without MIME-Version
# and Content-*), and the body as the decrypted entity carries it (CRLF).
HP_MESSAGE = (b'From: Alice <alice@example.net>\n'
              b'To: Bob <bob@example.org>\n'
              b'Cc: Carol <carol@example.net>\n'
              b'Subject: Handling the Jones contract\n'
              b'Keywords: jones, contract\n'
              b'Date: Wed, 11 Jan 2023 16:08:43 -0500\n'
              b'Message-ID: <20230111T210843Z.1234@lhp.example>\n'
              b'References: <20230110T100000Z.1@lhp.example>\n'
              b'MIME-Version: 1.0\n'
              b'Content-Type: text/plain; charset=utf-8\n'
              b'\n'
              b'The draft is attached in spirit.\n')
HP_FIELDS = [('From', 'Alice <alice@example.net>'), ('To', 'Bob <bob@example.org>'),
             ('Cc', 'Carol <carol@example.net>'), ('Subject', 'Handling the Jones contract'),
             ('Keywords', 'jones, contract'), ('Date', 'Wed, 11 Jan 2023 16:08:43 -0500'),
             ('Message-ID', '<20230111T210843Z.1234@lhp.example>'),
             ('References', '<20230110T100000Z.1@lhp.example>')]
HP_BODY = b'The draft is attached in spirit.\r\n'


def _fields(msg):
    return [(k, v) for k, v in msg.items()
            if k.lower() != 'mime-version' and not k.lower().startswith('content-')]


def _shy(name, value):
    """hcp_shy beyond hcp_baseline (RFC 9788 §3.2.3): From without display
    names, Date in UTC."""
    if name.lower() == 'from':
        return ', '.join('<%s>' % a for _, a in email.utils.getaddresses([value]))
    if name.lower() == 'date':
        d = email.utils.parsedate_to_datetime(value).astimezone(datetime.timezone.utc)
        return d.strftime('%a, %d %b %Y %H:%M:%S +0000')
    return value


def _hcp(mode, fields):
    """RFC 9788 hcp_no_confidentiality (at-rest) or hcp_shy (gateway)."""
    out = []
    for name, value in fields:
        if mode == 'gateway' and name.lower() in ('comments', 'keywords'):
            continue
        out.append((name, '[...]' if mode == 'gateway' and name.lower() == 'subject'
                    else _shy(name, value) if mode == 'gateway' else value))
    return out


def check_hp(tap, who, mode, outer_message, inner):
    """RFC 9788 checks of the decrypted entity `inner` (what `who` gave back
    from `outer_message`, made in `mode`, at-rest or gateway)."""
    what = '%s, header protection %s' % (who, mode)
    outer = email.message_from_bytes(outer_message, policy=email.policy.compat32)
    want = _hcp(mode, HP_FIELDS)
    tap.check(_fields(outer) == want, what + ': outer header fields',
              '%r\n!=\n%r' % (_fields(outer), want))
    m = email.message_from_bytes(inner, policy=email.policy.compat32)
    tap.check(m.get_content_type() == 'text/plain' and m.get_param('hp') == 'cipher',
              what + ': text/plain with hp="cipher"', m.get('Content-Type'))
    protected = [(k, v) for k, v in _fields(m) if k.lower() != 'hp-outer']
    tap.check(protected == HP_FIELDS, what + ': protected copies of every field',
              '%r\n!=\n%r' % (protected, HP_FIELDS))
    hp_outer = [tuple(v.split(': ', 1)) for k, v in m.items() if k.lower() == 'hp-outer']
    tap.check(hp_outer == _fields(outer), what + ': HP-Outer lists the outer fields',
              '%r\n!=\n%r' % (hp_outer, _fields(outer)))
    body = m.get_payload(decode=True)
    if mode == 'gateway':
        # From, Subject, Keywords and Date are hidden or altered: a Legacy
        # Display Element repeats them (RFC 9788 §4.5.3.1) in header order,
        # then a blank line.
        want_body = (b'From: Alice <alice@example.net>\r\n'
                     b'Subject: Handling the Jones contract\r\nKeywords: jones, contract\r\n'
                     b'Date: Wed, 11 Jan 2023 16:08:43 -0500\r\n\r\n' + HP_BODY)
        tap.check(m.get_param('hp-legacy-display') == '1' and body == want_body,
                  what + ': hp-legacy-display="1" and the legacy display element', repr(body))
        tap.check(b'Jones' not in outer_message.split(b'\n\n', 1)[0],
                  what + ': the subject is absent from the outer header')
    else:
        tap.check(m.get_param('hp-legacy-display') is None and body == HP_BODY,
                  what + ': no legacy display, body unchanged', repr(body))
