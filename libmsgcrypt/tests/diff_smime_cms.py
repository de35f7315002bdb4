"""Interoperability of libmsgcrypt's CMS encryption (mc_smime_encrypt) with
independent decryptors, printed as TAP. The driver (tests/diff_smime_cms.c)
encrypts to certificates that the openssl command-line tool makes here, in
a fresh directory, and to the RFC 9935 ML-KEM certificates; each message is
then decrypted by `openssl cms -decrypt` (OpenSSL 3.0: RSA PKCS#1 v1.5 and
OAEP, ECDH on P-256/384/521, AES-256-CBC, AES-256-GCM with the 16-byte tag
written out) and by
tests/cms_decrypt_ref.py (cryptography 48; the only decryptor for X25519, X448 and ML-KEM),
and must give back the content. Tampered messages must be refused.
Usage: diff_smime_cms.py DRIVER
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap  # noqa: E402
import cms_decrypt_ref as ref  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VEC = os.environ.get('CORVID_VECTORS', os.path.join(HERE, '..', '..', '..', 'shared', 'vectors'))


def run(cmd, data=b''):
    return subprocess.run(cmd, input=data, capture_output=True, timeout=60, check=False)


def main():
    driver = sys.argv[1]
    tap = Tap()
    rng = random.Random(9936)
    tmp = tempfile.mkdtemp(prefix='smime-cms-')
    certs = {}
    for name, spec, serial in (('rsa2048', 'rsa:2048', '0x01'), ('rsa3072', 'rsa:3072', '0x80ff')):
        c, k = os.path.join(tmp, name + '.crt'), os.path.join(tmp, name + '.key')
        r = run(['openssl', 'req', '-x509', '-newkey', spec, '-nodes', '-keyout', k, '-out', c,
                 '-subj', '/CN=%s/emailAddress=%s@example.org' % (name, name), '-days', '2',
                 '-set_serial', serial, '-addext', 'keyUsage=keyEncipherment'])
        tap.check(r.returncode == 0, 'openssl makes the %s certificate' % name, r.stderr)
        certs[name] = (c, k)
    for name, curve in (('p256', 'P-256'), ('p384', 'P-384'), ('p521', 'P-521')):
        c, k = os.path.join(tmp, name + '.crt'), os.path.join(tmp, name + '.key')
        r = run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
                 'ec_paramgen_curve:' + curve, '-nodes', '-keyout', k, '-out', c,
                 '-subj', '/CN=%s' % name, '-days', '2', '-set_serial', '0x2a'])
        tap.check(r.returncode == 0, 'openssl makes the %s certificate' % name, r.stderr)
        certs[name] = (c, k)
    # X25519 and X448 keys cannot sign: an Ed25519 CA issues their
    # certificates for the public keys.
    ca_c, ca_k = os.path.join(tmp, 'ca.crt'), os.path.join(tmp, 'ca.key')
    r = run(['openssl', 'genpkey', '-algorithm', 'ED25519', '-out', ca_k])
    r2 = run(['openssl', 'req', '-x509', '-new', '-key', ca_k, '-subj', '/CN=ca', '-days', '2',
              '-out', ca_c])
    tap.check(r.returncode == 0 and r2.returncode == 0, 'openssl makes an Ed25519 CA')
    for name, alg, serial in (('x25519', 'X25519', '77'), ('x448', 'X448', '78')):
        c, k = os.path.join(tmp, name + '.crt'), os.path.join(tmp, name + '.key')
        pub = os.path.join(tmp, name + '.pub')
        ok = run(['openssl', 'genpkey', '-algorithm', alg, '-out', k]).returncode == 0
        ok = ok and run(['openssl', 'pkey', '-in', k, '-pubout', '-out', pub]).returncode == 0
        r = run(['openssl', 'x509', '-new', '-subj', '/CN=' + name, '-force_pubkey', pub,
                 '-CA', ca_c, '-CAkey', ca_k, '-days', '2', '-set_serial', serial, '-out', c])
        tap.check(ok and r.returncode == 0, 'openssl makes the %s certificate' % name, r.stderr)
        certs[name] = (c, k)
    for lvl in ('768', '1024'):
        d = os.path.join(VEC, 'rfc9935-kyber-certificates')
        certs['mlkem' + lvl] = (os.path.join(d, 'ML-KEM-%s.crt' % lvl),
                                os.path.join(d, 'ML-KEM-%s-seed.priv' % lvl))
    refkeys = {n: ref.Key(open(c, 'rb').read(), open(k, 'rb').read())
               for n, (c, k) in certs.items()}

    def encrypt(flags, names, data):
        r = run([driver] + flags + [certs[n][0] for n in names], data)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.decode(errors='replace'))
        return r.stdout

    def via_openssl(msg, name):
        p = os.path.join(tmp, 'msg.der')
        with open(p, 'wb') as f:
            f.write(msg)
        c, k = certs[name]
        return run(['openssl', 'cms', '-decrypt', '-inform', 'DER', '-in', p, '-recip', c,
                    '-inkey', k, '-binary'])

    sizes = [0, 1, 15, 16, 17, 1000, 10240]
    cases = []
    for flags in ([], ['--oaep'], ['--ski'], ['--oaep', '--ski'], ['--gcm'],
                  ['--gcm', '--oaep', '--ski']):
        cases.append((flags, ['rsa2048'], True))
    cases.append(([], ['rsa2048', 'rsa3072', 'p256'], True))
    cases.append((['--gcm', '--tag12'], ['rsa3072'], False))  # OpenSSL 3.0 wants 16 written
    cases.append(([], ['mlkem768'], False))
    cases.append(([], ['mlkem1024', 'mlkem768'], False))
    cases.append((['--cbc', '--issuer'], ['mlkem768'], False))
    cases.append(([], ['rsa2048', 'mlkem1024'], True))
    for ec_name in ('p256', 'p384', 'p521'):
        cases.append(([], [ec_name], True))
    cases.append((['--ski', '--gcm'], ['p256'], True))
    cases.append((['--ec-named'], ['p384'], True))
    cases.append(([], ['x25519'], False))
    cases.append(([], ['x448'], False))
    cases.append((['--gcm'], ['x25519', 'x448', 'p521', 'rsa3072', 'mlkem768'], False))
    for flags, names, openssl_reads in cases:
        many = len(names) == 1 and not flags and names[0] in ('rsa2048', 'p256', 'x25519',
                                                              'mlkem768')
        for size in sizes if many else sizes[2:5]:
            data = bytes(rng.getrandbits(8) for _ in range(size))
            desc = '%s to %s, %d bytes' % (' '.join(flags) or 'defaults', '+'.join(names), size)
            try:
                msg = encrypt(flags, names, data)
            except RuntimeError as e:
                tap.check(False, 'encrypt ' + desc, str(e))
                continue
            for n in names:
                try:
                    got = ref.decrypt(msg, refkeys[n])
                    tap.check(got == data, 'cms_decrypt_ref.py (%s) reads %s' % (n, desc))
                except Exception as e:  # noqa: BLE001
                    tap.check(False, 'cms_decrypt_ref.py (%s) reads %s' % (n, desc), repr(e))
                if openssl_reads and not n.startswith(('x', 'mlkem')):
                    r = via_openssl(msg, n)
                    tap.check(r.returncode == 0 and r.stdout == data,
                              'openssl cms -decrypt (%s) reads %s' % (n, desc), r.stderr)

    # S/MIME 4.0 messages: openssl cms (S/MIME input by default) reads the MIME wrapping and gives
    # back the inner entity in canonical form; the outer header keeps the
    # transport fields.
    mail = (b'From: Alice <alice@example.org>\nTo: bob@example.org\nSubject: lunch\n'
            b'Date: Mon, 30 Nov 2026 12:00:00 +0000\nMIME-Version: 1.0\n'
            b'Content-Type: text/plain; charset=utf-8\n\nSee you at noon.\n-- \nA\n')
    inner = (b'Content-Type: text/plain; charset=utf-8\r\n\r\nSee you at noon.\r\n'
             b'-- \r\nA\r\n')
    for flags, name, smime_type in (([], 'rsa2048', b'enveloped-data'),
                                    (['--gcm'], 'p256', b'authEnveloped-data')):
        try:
            out = encrypt(['--mime'] + flags, [name], mail)
        except RuntimeError as e:
            tap.check(False, 'S/MIME message to ' + name, str(e))
            continue
        head = out.split(b'\n\n', 1)[0]
        tap.check(head.startswith(b'From: Alice <alice@example.org>\nTo: bob@example.org\n'
                                  b'Subject: lunch\n') and
                  b'smime-type=' + smime_type + b';' in head and b'charset' not in head,
                  'S/MIME message to %s keeps the transport fields, smime-type %s'
                  % (name, smime_type.decode()), head.decode(errors='replace'))
        p = os.path.join(tmp, 'msg.eml')
        with open(p, 'wb') as f:
            f.write(out)
        c, k = certs[name]
        r = run(['openssl', 'cms', '-decrypt', '-in', p, '-recip', c, '-inkey', k, '-binary'])
        tap.check(r.returncode == 0 and r.stdout == inner,
                  'openssl cms -decrypt reads the S/MIME message to %s' % name,
                  r.stderr + r.stdout[:300])
    r = run([driver, '--mime', certs['rsa2048'][0]], b'no header here\n')
    tap.check(r.returncode != 0 and r.stdout == b'', 'a message without a header is refused')

    # Tampering: a flipped bit in the GCM ciphertext or tag is refused by
    # both; in CBC the last block's padding usually breaks.
    data = b'attack at dawn, the eagle has landed\r\n'
    for flags, name in ((['--gcm'], 'rsa2048'), ([], 'mlkem768')):
        msg = bytearray(encrypt(flags, [name], data))
        for back in (1, 20):  # in the tag, in the ciphertext
            m = bytearray(msg)
            m[len(m) - back] ^= 0x01
            try:
                ref.decrypt(bytes(m), refkeys[name])
                ok = False
            except Exception:  # noqa: BLE001
                ok = True
            tap.check(ok, 'cms_decrypt_ref.py refuses a flipped bit %d from the end (%s, %s)'
                      % (back, ' '.join(flags) or 'defaults', name))
            if name.startswith('rsa'):
                # openssl streams the plaintext out before it reaches the
                # tag: its exit status is the verdict.
                r = via_openssl(bytes(m), name)
                tap.check(r.returncode != 0,
                          'openssl refuses a flipped bit %d from the end' % back,
                          'status %d' % r.returncode)
    # A message to one key does not decrypt with another.
    msg = encrypt([], ['rsa2048'], data)
    try:
        ref.decrypt(msg, refkeys['rsa3072'])
        ok = False
    except ref.CmsError:
        ok = True
    tap.check(ok, 'a message to rsa2048 has no RecipientInfo for rsa3072')
    r = via_openssl(msg, 'rsa3072')
    tap.check(r.returncode != 0 or r.stdout != data, 'openssl with the wrong key fails')
    # Bad input to the driver: a file that is not a certificate.
    bad = os.path.join(tmp, 'bad.crt')
    with open(bad, 'wb') as f:
        f.write(b'-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')
    r = run([driver, bad], b'x')
    tap.check(r.returncode != 0 and r.stdout == b'', 'a broken certificate gives no output')
    subprocess.run(['rm', '-rf', tmp], check=False)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
