#!/usr/bin/env python3
"""interop_smime_bc.py: Bouncy Castle 1.72 (Debian packages libbcprov-java,
libbcpkix-java, libbcutil-java, run by default-jdk-headless) decrypts what
libmsgcrypt's mc_smime_encrypt and mc_smime_mime_encrypt write, through the
driver tests/diff_smime_cms.c. Output is TAP.

tests/interop/SmimeDecrypt.java is compiled with javac into a directory under
the build directory given (or a temporary one) and run once for the whole
batch: the driver first encrypts every case to files, one JVM decrypts them
all, then this script compares each output with the input. Bouncy Castle
reads everything that Debian 12's tools can: RSA PKCS#1 v1.5 and OAEP
(SHA-256), ECDH on P-256/384/521 (both encodings of the ephemeral key's
parameters), AES-256-CBC and AES-256-GCM (tag 16 written out, or 12 by
default), recipients by issuer and serial or subject key identifier.

usage: interop_smime_bc.py DRIVER [WORKDIR]
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smime_interop as si  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
JARS = ['/usr/share/java/bcprov.jar', '/usr/share/java/bcpkix.jar',
        '/usr/share/java/bcutil.jar']


def main():
    driver = sys.argv[1]
    missing = [t for t in ('java', 'javac') if shutil.which(t) is None]
    missing += [j for j in JARS if not os.path.isfile(j)]
    if missing:
        print('1..0 # SKIP missing %s (Debian packages default-jdk-headless libbcprov-java '
              'libbcpkix-java libbcutil-java)' % ', '.join(missing))
        return 0
    tap = si.Tap()
    tmp = tempfile.mkdtemp(prefix='smime-bc-')
    try:
        classes = os.path.join(sys.argv[2] if len(sys.argv) > 2 else tmp, 'smime-bc-classes')
        os.makedirs(classes, exist_ok=True)
        cp = ':'.join(JARS)
        r = si.run(['javac', '-nowarn', '-cp', cp, '-d', classes,
                    os.path.join(HERE, 'interop', 'SmimeDecrypt.java')], timeout=120)
        tap.check(r.returncode == 0, 'javac compiles interop/SmimeDecrypt.java', r.stderr)
        if r.returncode != 0:
            return tap.done()
        names = ['rsa2048', 'rsa3072', 'p256', 'p384', 'p521']
        certs = si.Certs(tap, tmp, names)

        # Every key type with every content encryption and both recipient
        # identifiers at 10 KiB; sizes around the block for two of them.
        cases = []
        for name in names:
            rsa = name.startswith('rsa')
            for content in (['--cbc'], ['--gcm'], ['--gcm', '--tag12']):
                extras = [[], ['--ski']]
                extras += [['--oaep'], ['--oaep', '--ski']] if rsa else [['--ec-named']]
                for extra in extras:
                    cases.append((content + extra, [name], (10240,)))
        cases.append(([], ['rsa2048'], (0, 1, 15, 16, 17, 1000, 100000)))
        cases.append((['--gcm'], ['p256'], (0, 1, 15, 16, 17, 1000, 100000)))
        cases.append((['--gcm'], ['p384', 'rsa3072', 'p521', 'rsa2048', 'p256'], (100,)))

        jobs, expect = [], {}
        for i, (flags, to, sizes) in enumerate(cases):
            for size in sizes:
                data = si.random_bytes(i * 1000 + size, size)
                desc = '%s to %s, %d bytes' % (' '.join(flags) or 'defaults', '+'.join(to), size)
                try:
                    der = si.encrypt(driver, flags, [certs.cert(n) for n in to], data)
                except RuntimeError as e:
                    tap.check(False, 'encrypt ' + desc, e)
                    continue
                msg = os.path.join(tmp, 'm%d.der' % len(jobs))
                with open(msg, 'wb') as f:
                    f.write(der)
                for n in to:
                    job = 'j%d' % len(jobs)
                    out = os.path.join(tmp, job + '.out')
                    jobs.append('\t'.join((job, certs.cert(n), certs.key(n), msg, out)))
                    expect[job] = ('Bouncy Castle (%s) decrypts %s' % (n, desc), out, data)
        # Damaged GCM messages must be refused: a bit in the tag, one in the
        # ciphertext.
        der = si.encrypt(driver, ['--gcm'], [certs.cert('p256')], b'attack at dawn\r\n' * 4)
        for back in (1, 20):
            bad = bytearray(der)
            bad[len(bad) - back] ^= 0x01
            msg = os.path.join(tmp, 'bad%d.der' % back)
            with open(msg, 'wb') as f:
                f.write(bytes(bad))
            job = 'bad%d' % back
            jobs.append('\t'.join((job, certs.cert('p256'), certs.key('p256'), msg,
                                   os.path.join(tmp, job + '.out'))))
        # Header protection: the S/MIME messages' DER goes through the same
        # batch; the decrypted entities are checked afterwards.
        hp = {}
        for mode, flags, name in (('at-rest', ['--gcm'], 'p384'),
                                  ('gateway', ['--oaep'], 'rsa3072')):
            try:
                out = si.encrypt(driver, ['--mime', '--hp-' + mode] + flags,
                                 [certs.cert(name)], si.HP_MESSAGE)
                der = si.p7m_der(out)
            except (RuntimeError, ValueError) as e:
                tap.check(False, 'S/MIME message with header protection ' + mode, e)
                continue
            msg = os.path.join(tmp, 'hp-%s.der' % mode)
            with open(msg, 'wb') as f:
                f.write(der)
            job = 'hp-' + mode
            hp[job] = (mode, out, os.path.join(tmp, job + '.out'))
            jobs.append('\t'.join((job, certs.cert(name), certs.key(name), msg, hp[job][2])))

        r = subprocess.run(['java', '-cp', cp + ':' + classes, 'SmimeDecrypt'],
                           input='\n'.join(jobs) + '\n', capture_output=True, text=True,
                           timeout=120, check=False)
        tap.check(r.returncode == 0, 'the Java decryptor ran %d jobs' % len(jobs), r.stderr)
        verdicts = {}
        for line in r.stdout.splitlines():
            word, job, *rest = line.split(' ', 2) + ['']
            verdicts[job] = (word, rest[0])
        for job, (desc, out, data) in expect.items():
            word, why = verdicts.get(job, ('missing', 'no answer'))
            got = open(out, 'rb').read() if word == 'ok' else None
            tap.check(got == data, desc, why or 'content differs')
        for back in (1, 20):
            word, why = verdicts.get('bad%d' % back, ('missing', ''))
            tap.check(word == 'error',
                      'Bouncy Castle refuses GCM with a flipped bit %d from the end' % back, why)
        for job, (mode, out, path) in hp.items():
            word, why = verdicts.get(job, ('missing', 'no answer'))
            tap.check(word == 'ok', 'Bouncy Castle decrypts the S/MIME message (%s)' % mode,
                      why)
            if word == 'ok':
                si.check_hp(tap, 'Bouncy Castle', mode, out, open(path, 'rb').read())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
