#!/usr/bin/env python3
"""interop_smime_nss.py: NSS's cmsutil (Debian package libnss3-tools, NSS
3.87, the CMS code of Thunderbird) decrypts what libmsgcrypt's
mc_smime_encrypt and mc_smime_mime_encrypt write, through the driver
tests/diff_smime_cms.c. Output is TAP.

The keys go into a temporary NSS database (certutil -N with an empty
password, pk12util -i of PKCS#12 files); `cmsutil -D` decrypts. NSS 3.87
reads RSA PKCS#1 v1.5 key transport with AES-256-CBC, recipients named by
issuer and serial number or by subject key identifier; it refuses RSA-OAEP,
AuthEnvelopedData and ECDH KeyAgreeRecipientInfo, and fails to parse a
message that has a KeyAgreeRecipientInfo for any recipient. The test checks both what
it reads and what it refuses, so that an NSS that learns more shows up here.

usage: interop_smime_nss.py DRIVER
"""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smime_interop as si  # noqa: E402


def main():
    driver = sys.argv[1]
    missing = [t for t in ('cmsutil', 'certutil', 'pk12util') if shutil.which(t) is None]
    if missing:
        print('1..0 # SKIP %s not installed (Debian package libnss3-tools)' % ', '.join(missing))
        return 0
    tap = si.Tap()
    tmp = tempfile.mkdtemp(prefix='smime-nss-')
    try:
        db = 'sql:' + os.path.join(tmp, 'nssdb')
        os.mkdir(os.path.join(tmp, 'nssdb'))
        r = si.run(['certutil', '-N', '-d', db, '--empty-password'])
        tap.check(r.returncode == 0, 'certutil makes an NSS database', r.stderr)
        certs = si.Certs(tap, tmp, ['rsa2048', 'rsa3072', 'p256'])
        for name in ('rsa2048', 'rsa3072', 'p256'):
            r = si.run(['pk12util', '-i', certs.p12(name), '-d', db, '-W', si.Certs.PASSWORD])
            tap.check(r.returncode == 0, 'pk12util imports the PKCS#12 file of ' + name,
                      r.stderr + r.stdout)
        msg = os.path.join(tmp, 'msg.der')

        def decrypt(der):
            with open(msg, 'wb') as f:
                f.write(der)
            return si.run(['cmsutil', '-D', '-i', msg, '-d', db])

        cases = [([], 'rsa2048', (0, 1, 15, 16, 17, 1000, 10240, 100000)),
                 (['--ski'], 'rsa2048', (1, 10240)),
                 (['--cbc', '--issuer'], 'rsa3072', (16, 10240))]
        for flags, name, sizes in cases:
            for size in sizes:
                data = si.random_bytes(size * 11 + len(flags), size)
                desc = '%s to %s, %d bytes' % (' '.join(flags) or 'defaults', name, size)
                try:
                    der = si.encrypt(driver, flags, [certs.cert(name)], data)
                except RuntimeError as e:
                    tap.check(False, 'encrypt ' + desc, e)
                    continue
                r = decrypt(der)
                tap.check(r.returncode == 0 and r.stdout == data, 'cmsutil decrypts ' + desc,
                          r.stderr)
        data = b'to both of you\r\n'
        der = si.encrypt(driver, [], [certs.cert('rsa3072'), certs.cert('rsa2048')], data)
        r = decrypt(der)
        tap.check(r.returncode == 0 and r.stdout == data,
                  'cmsutil decrypts a message to rsa3072 and rsa2048', r.stderr)
        # NSS 3.87 cannot parse a KeyAgreeRecipientInfo at all, so one
        # elliptic-curve recipient makes the message unreadable for the RSA
        # recipients too (docs/smime-clients.md).
        der = si.encrypt(driver, [], [certs.cert('p256'), certs.cert('rsa2048')], data)
        r = decrypt(der)
        tap.check(r.returncode != 0 and b'SEC_ERROR_BAD_DER' in r.stderr,
                  'cmsutil (NSS 3.87) refuses a message to p256 and rsa2048 as bad DER',
                  r.stderr)
        # CBC has no integrity. The 16-byte content is followed by a block of
        # padding (16 times 0x10); a bit flipped in the last byte of the
        # block before it flips the same bit of the last padding byte (0x11),
        # which no padding check accepts. (A flip in the last block itself
        # gives random padding, accepted now and then.)
        der = bytearray(si.encrypt(driver, [], [certs.cert('rsa2048')], b'attack at dawn\r\n'))
        der[-17] ^= 0x01
        r = decrypt(bytes(der))
        tap.check(r.returncode != 0 and r.stdout != b'attack at dawn\r\n',
                  'cmsutil refuses a message whose padding was damaged', r.stderr)
        # What NSS 3.87 does not read.
        for flags, name, what in ((['--oaep'], 'rsa2048', 'RSA-OAEP'),
                                  (['--gcm'], 'rsa2048', 'AuthEnvelopedData (GCM)'),
                                  ([], 'p256', 'ECDH KeyAgreeRecipientInfo')):
            r = decrypt(si.encrypt(driver, flags, [certs.cert(name)], b'x' * 100))
            tap.check(r.returncode != 0 and r.stdout != b'x' * 100,
                      'cmsutil (NSS 3.87) does not read ' + what, r.stderr)

        for mode in ('at-rest', 'gateway'):
            try:
                out = si.encrypt(driver, ['--mime', '--hp-' + mode], [certs.cert('rsa2048')],
                                 si.HP_MESSAGE)
                der = si.p7m_der(out)
            except (RuntimeError, ValueError) as e:
                tap.check(False, 'S/MIME message with header protection ' + mode, e)
                continue
            r = decrypt(der)
            tap.check(r.returncode == 0, 'cmsutil decrypts the S/MIME message (%s)' % mode,
                      r.stderr)
            if r.returncode == 0:
                si.check_hp(tap, 'cmsutil', mode, out, r.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
