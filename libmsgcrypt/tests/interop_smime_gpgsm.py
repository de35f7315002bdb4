#!/usr/bin/env python3
"""interop_smime_gpgsm.py: GnuPG's gpgsm 2.2 (Debian package gpgsm) decrypts
what libmsgcrypt's mc_smime_encrypt and mc_smime_mime_encrypt write, through
the driver tests/diff_smime_cms.c. Output is TAP.

gpgsm 2.2 reads RSA PKCS#1 v1.5 key transport only (no OAEP, no ECDH: its
PKCS#12 import of an EC key crashes), recipients named by issuer and serial
number only (not by subject key identifier), AES-256-CBC EnvelopedData, and
AES-256-GCM AuthEnvelopedData only in the encoding of the compatibility
switch MC_SMIME_GCM_TAG12_DEFAULT (12-byte tag, aes-ICVlen left at its
DEFAULT): with aes-ICVlen 16 written out it stops with "error getting IV:
Buffer too short". The test checks both sides of that statement, so that a
gpgsm that learns more shows up here. The key goes in through a PKCS#12 file
into a temporary GNUPGHOME; its agent is stopped at the end.

usage: interop_smime_gpgsm.py DRIVER
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smime_interop as si  # noqa: E402


def main():
    driver = sys.argv[1]
    tap = si.Tap()
    if shutil.which('gpgsm') is None:
        print('1..0 # SKIP gpgsm not installed (Debian package gpgsm)')
        return 0
    version = si.run(['gpgsm', '--version']).stdout.split(b'\n', 1)[0].decode()
    tap.note(version)
    tmp = tempfile.mkdtemp(prefix='smime-gpgsm-')
    home = os.path.join(tmp, 'gnupg')
    os.mkdir(home, 0o700)
    env = dict(os.environ, GNUPGHOME=home)
    with open(os.path.join(home, 'gpg-agent.conf'), 'w', encoding='ascii') as f:
        # The agent re-derives the key's protection from the passphrase at
        # every decryption; the smallest S2K count keeps that cheap.
        f.write('allow-loopback-pinentry\ns2k-count 65536\n')
    def gpgsm(args):
        # The passphrase of the PKCS#12 file, which the agent then keeps on
        # the imported key, comes on stdin; the input is a file.
        return subprocess.run(['gpgsm', '--batch', '--disable-crl-checks',
                               '--pinentry-mode', 'loopback', '--passphrase-fd', '0'] + args,
                              input=si.Certs.PASSWORD.encode() + b'\n', capture_output=True,
                              timeout=60, check=False, env=env)

    try:
        certs = si.Certs(tap, tmp, ['rsa2048', 'rsa3072'])
        for name in ('rsa2048', 'rsa3072'):
            r = gpgsm(['--import', certs.p12(name)])
            tap.check(r.returncode == 0 and b'secret keys imported: 1' in r.stderr,
                      'gpgsm imports the PKCS#12 file of %s' % name, r.stderr)
        msg = os.path.join(tmp, 'msg.der')

        def decrypt(der):
            with open(msg, 'wb') as f:
                f.write(der)
            return gpgsm(['--decrypt', msg])

        # What gpgsm reads: PKCS#1 v1.5 with CBC, and GCM in the tag-12
        # encoding, recipients named by issuer and serial number.
        cases = [([], 'rsa2048', (0, 15, 16, 10240, 100000)),
                 (['--cbc', '--issuer'], 'rsa3072', (10240,)),
                 (['--gcm', '--tag12'], 'rsa2048', (0, 17, 10240)),
                 (['--gcm', '--tag12'], 'rsa3072', (1000,))]
        for flags, name, sizes in cases:
            for size in sizes:
                data = si.random_bytes(size * 7 + len(flags), size)
                desc = '%s to %s, %d bytes' % (' '.join(flags) or 'defaults', name, size)
                try:
                    der = si.encrypt(driver, flags, [certs.cert(name)], data)
                except RuntimeError as e:
                    tap.check(False, 'encrypt ' + desc, e)
                    continue
                r = decrypt(der)
                tap.check(r.returncode == 0 and r.stdout == data, 'gpgsm decrypts ' + desc,
                          r.stderr)
        # Two recipients: each key alone opens the message.
        data = b'to both of you\r\n'
        der = si.encrypt(driver, [], [certs.cert('rsa3072'), certs.cert('rsa2048')], data)
        r = decrypt(der)
        tap.check(r.returncode == 0 and r.stdout == data,
                  'gpgsm decrypts a message to rsa3072 and rsa2048', r.stderr)

        # GCM: gpgsm checks the tag; it refuses the other encoding and OAEP.
        data = b'attack at dawn\r\n' * 10
        der = bytearray(si.encrypt(driver, ['--gcm', '--tag12'], [certs.cert('rsa2048')], data))
        for back, where in ((1, 'the tag'), (20, 'the ciphertext')):
            bad = bytearray(der)
            bad[len(bad) - back] ^= 0x01
            r = decrypt(bytes(bad))
            tap.check(r.returncode != 0 and b'not authentic' in r.stderr,
                      'gpgsm refuses GCM with a flipped bit in %s' % where, r.stderr)
        r = decrypt(si.encrypt(driver, ['--gcm'], [certs.cert('rsa2048')], data))
        tap.check(r.returncode != 0 and r.stdout != data,
                  'gpgsm 2.2 does not read GCM with aes-ICVlen 16 written out (the default)',
                  r.stderr)
        r = decrypt(si.encrypt(driver, ['--oaep'], [certs.cert('rsa2048')], data))
        tap.check(r.returncode != 0 and r.stdout != data, 'gpgsm 2.2 does not read RSA-OAEP',
                  r.stderr)
        # libksba 1.6 reads only issuerAndSerialNumber recipient identifiers,
        # which is why MC_SMIME_RID_AUTO uses them for RSA.
        r = decrypt(si.encrypt(driver, ['--ski'], [certs.cert('rsa2048')], data))
        tap.check(r.returncode != 0 and r.stdout != data,
                  'gpgsm 2.2 does not find its key by subject key identifier', r.stderr)

        # S/MIME messages, header protection included: gpgsm gives back the
        # inner entity, which must carry RFC 9788's protected header.
        for flags, mode in (([], 'at-rest'), (['--gcm', '--tag12'], 'gateway')):
            try:
                out = si.encrypt(driver, ['--mime', '--hp-' + mode] + flags,
                                 [certs.cert('rsa2048')], si.HP_MESSAGE)
                der = si.p7m_der(out)
            except (RuntimeError, ValueError) as e:
                tap.check(False, 'S/MIME message with header protection ' + mode, e)
                continue
            r = decrypt(der)
            tap.check(r.returncode == 0, 'gpgsm decrypts the S/MIME message (%s%s)'
                      % (mode, ', ' + ' '.join(flags) if flags else ''), r.stderr)
            if r.returncode == 0:
                si.check_hp(tap, 'gpgsm', mode, out, r.stdout)
    finally:
        subprocess.run(['gpgconf', '--kill', 'gpg-agent'], env=env, capture_output=True,
                       timeout=30, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
