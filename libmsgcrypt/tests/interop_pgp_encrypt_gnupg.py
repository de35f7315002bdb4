"""interop_pgp_encrypt_gnupg.py: the GnuPG-family part of
diff_pgp_encrypt.py. gpg makes a v4 certificate with RSA-2048, RSA-4096,
ECDH P-256/P-384/P-521 and legacy Curve25519 encryption subkeys in a
temporary home and imports an RSA-8192 test key it made once (making one
takes it about a minute; pgp_encrypt_rsa8192.asc); this module reads the
public subkeys itself (RFC 9580 §5.5.2, v4 packets), has the engine encrypt
to each of them (SEIPDv1, v3 PKESK, as gpg 2.2's Features ask) and to all of
them at once, and checks that gpg, sq (with the exported secret keys) and
rnp (likewise) all return the plaintext.
"""
import hashlib
import os
import subprocess

import pgp_decrypt_ref as ref

SUBKEYS = ['rsa2048', 'rsa4096', 'nistp256', 'nistp384', 'nistp521', 'cv25519']
HERE = os.path.dirname(os.path.abspath(__file__))
RSA8192_KEY = os.path.join(HERE, 'pgp_encrypt_rsa8192.asc')
RSA8192_FPR = '15DBCDC9A5A213C9472542E93C3C9A7482732100'
OIDS = {
    '2a8648ce3d030107': 'P-256',
    '2b81040022': 'P-384',
    '2b81040023': 'P-521',
    '2b060104019755010501': 'Curve25519 (legacy)',
}


def read_mpi(b, pos):
    bits = int.from_bytes(b[pos:pos + 2], 'big')
    n = (bits + 7) // 8
    return b[pos + 2:pos + 2 + n], pos + 2 + n


def public_subkeys(data):
    """Yields (description, key spec fields) for each v4 encryption subkey."""
    for tag, b in ref.packets(data):
        if tag != 14 or b[0] != 4:
            continue
        algo = b[5]
        f = {'v': 4, 'algo': algo}
        pos = 6
        if algo == 1:
            f['n'], pos = read_mpi(b, pos)
            f['e'], pos = read_mpi(b, pos)
            desc = 'RSA-%d' % (len(f['n']) * 8)
        elif algo == 18:
            oid = b[pos + 1:pos + 1 + b[pos]]
            pos += 1 + b[pos]
            f['oid'] = oid
            f['point'], pos = read_mpi(b, pos)
            kdf = b[pos:pos + 1 + b[pos]]
            pos += 1 + b[pos]
            f['kh'], f['kc'] = kdf[2], kdf[3]
            desc = 'ECDH %s' % OIDS.get(oid.hex(), oid.hex())
        else:
            continue
        f['fpr'] = hashlib.sha1(b'\x99' + len(b[:pos]).to_bytes(2, 'big') + b[:pos]).digest()
        # gpg 2.2's Features (MDC only) and its default cipher preferences.
        f['feat'] = 1
        f['psym'] = bytes([9, 8, 7, 2])
        yield desc, f


def run(args, env, timeout=300, **kw):
    return subprocess.run(args, env=env, capture_output=True, timeout=timeout, check=False, **kw)


def check_gnupg_family(tap, driver, tmp, encrypt, plaintext, spec):
    home = os.path.join(tmp, 'gnupg')
    os.mkdir(home, 0o700)
    env = dict(os.environ, GNUPGHOME=home, LC_ALL='C')
    gpg = ['gpg', '--batch', '--no-tty', '--pinentry-mode', 'loopback', '--passphrase', '']
    r = run(gpg + ['--quick-gen-key', 'peer <peer@example.org>', 'ed25519', 'cert', 'never'], env)
    ok = r.returncode == 0
    fpr = ''
    if ok:
        r = run(gpg + ['--with-colons', '--list-keys'], env)
        fpr = [l.split(':')[9] for l in r.stdout.decode().splitlines() if l.startswith('fpr:')][0]
    for algo in SUBKEYS:
        if ok:
            r = run(gpg + ['--quick-add-key', fpr, algo, 'encr', 'never'], env)
            ok = r.returncode == 0
    tap.check(ok, 'gpg makes a v4 certificate with %s encryption subkeys' % ', '.join(SUBKEYS),
              r.stderr.decode()[-500:])
    if not ok:
        return
    # RSA-8192 takes gpg about a minute to make, so a key it made once is
    # kept with the tests (an unprotected test key, nothing else).
    r = run(gpg + ['--import', RSA8192_KEY], env)
    ok = r.returncode == 0
    tap.check(ok, 'gpg imports the RSA-8192 test key', r.stderr.decode()[-300:])
    fprs = [fpr, RSA8192_FPR]
    pub = run(gpg + ['--export'] + fprs, env).stdout
    secret_path = os.path.join(tmp, 'secret.asc')
    with open(secret_path, 'wb') as f:
        f.write(run(gpg + ['--armor', '--export-secret-keys'] + fprs, env).stdout)
    subkeys = list(public_subkeys(pub))
    tap.check(len(subkeys) == len(SUBKEYS) + 1, 'read %d v4 encryption subkeys' % len(subkeys))
    # armor: 0 binary, 1 armored by the streaming encryptor, 2 armored in
    # place by the one-shot call (diff_pgp_encrypt.c).
    jobs = [([d], [f], 20000, i % 3) for i, (d, f) in enumerate(subkeys)]
    # Every subkey in one message, and a message across partial pieces.
    jobs.append(([d for d, _ in subkeys], [f for _, f in subkeys], 100000, 1))
    jobs.append(([d for d, _ in subkeys], [f for _, f in subkeys], 100001, 2))
    msgs = encrypt(driver, [(0, armor, size, [spec(f) for f in fields])
                            for _, fields, size, armor in jobs])
    rnp_home = os.path.join(tmp, 'rnp')
    os.mkdir(rnp_home, 0o700)
    peers = {
        'gpg': lambda m: run(gpg + ['--decrypt', m], env),
        'sq': lambda m: run(['sq', 'decrypt', '--recipient-key', secret_path, m], env),
        'rnp': lambda m: run(['rnp', '--homedir', rnp_home, '--keyfile', secret_path,
                              '--password', '', '--decrypt', m, '--output', '-'], env),
    }
    for name, peer in peers.items():
        errs = []
        for i, ((descs, _, size, armor), msg) in enumerate(zip(jobs, msgs)):
            if not isinstance(msg, bytes):
                errs.append('%s: engine error %s' % (descs, msg))
                continue
            path = os.path.join(tmp, 'gmsg%d.pgp' % i)
            with open(path, 'wb') as f:
                f.write(msg)
            # One message per key; the all-keys message is read with the
            # secret key of whichever PKESK the peer tries first.
            r = peer(path)
            if r.returncode != 0 or r.stdout != plaintext(size):
                errs.append('%s (armor %d): status %d: %s' % (', '.join(descs), armor,
                                                              r.returncode,
                                                              r.stderr.decode()[-300:]))
        tap.check(not errs, '%s decrypts SEIPDv1 messages to %s and to all of them at once' % (
            name, ', '.join(d for d, _ in subkeys)), '\n'.join(errs))
