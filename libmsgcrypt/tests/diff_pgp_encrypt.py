"""diff_pgp_encrypt.py: interoperability of libmsgcrypt's OpenPGP encryption.

Messages made by the engine (through the diff_pgp_encrypt driver) are
decrypted by independent implementations, and the plaintext must come back:
  - pgp_decrypt_ref.py, written here from RFC 9580/9980 over Python's
    cryptography (first checked against RFC 9580 A.8 and RFC 9980's sample
    messages and intermediate values): X25519, X448, ML-KEM-768+X25519 and
    ML-KEM-1024+X448 keys, SEIPD v1 and v2 with OCB and GCM;
  - OpenPGP.js (npm openpgp): v6 X25519 and X448 keys, SEIPDv2 OCB and GCM,
    and v4 RSA, ECDH P-256/P-521 and legacy Curve25519 keys with v6 PKESKs
    (SEIPDv2) and v3 PKESKs (SEIPDv1);
  - Proton's fork (npm @protontech/openpgp): ML-KEM-768+X25519;
  - GnuPG (gpg), Sequoia (sq) and RNP (rnp): v4 RSA, ECDH on the NIST
    curves and legacy Curve25519 keys made by gpg, with SEIPDv1.
Usage: diff_pgp_encrypt.py DRIVER (TAP on stdout).
"""
import functools
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pgp_decrypt_ref as ref  # noqa: E402
from difftap import Tap, driver_run  # noqa: E402
import interop_pgp_encrypt_gnupg as gnupg  # noqa: E402

from cryptography.hazmat.primitives.asymmetric import mlkem, x448, x25519  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.environ.get('CORVID_VECTORS') or os.path.join(HERE, '..', '..', '..', 'shared',
                                                           'vectors')
NODE_SCRIPT = os.path.join(HERE, 'interop_pgp_encrypt.mjs')
FMT_AUTO, FMT_V1, FMT_OCB, FMT_GCM = 0, 1, 2, 3
FEAT_V1V2 = 9


def vec(rel):
    with open(os.path.join(VECTORS, rel), 'rb') as f:
        return f.read()


def spec(fields):
    return ','.join('%s=%s' % (k, v.hex() if isinstance(v, (bytes, bytearray)) else v)
                    for k, v in fields.items())


def key_spec(k, feat=FEAT_V1V2, **extra):
    f = {'v': k.version, 'algo': k.algo, 'fpr': k.fpr, 'feat': feat, 'ecc': k.ecc_public}
    if k.mlkem is not None:
        f['mlkem'] = k.mlkem.public_key().public_bytes_raw()
    f.update(extra)
    return spec(f)


def new_key(algo, version=6):
    n = ref.ECC_LEN[algo]
    if n == 32:
        sec = x25519.X25519PrivateKey.generate()
    else:
        sec = x448.X448PrivateKey.generate()
    mk = None
    if algo == 35:
        mk = mlkem.MLKEM768PrivateKey.generate()
    elif algo == 36:
        mk = mlkem.MLKEM1024PrivateKey.generate()
    fpr = os.urandom(32 if version == 6 else 20)
    return ref.SecretKey(version, algo, fpr, sec.private_bytes_raw(),
                         sec.public_key().public_bytes_raw(), mk)


@functools.lru_cache(maxsize=None)
def plaintext(n):
    """The pseudo-random bytes the driver makes for a length of -n."""
    return bytes(((i * 2654435761) & 0xFFFFFFFF) >> 13 & 0xFF for i in range(n))


def encrypt(driver, requests):
    """requests: (format, armor, size, [key specs]); returns messages or
    error strings."""
    lines = ['%d %d -%d %s' % (f, a, n, ' '.join(keys)) for f, a, n, keys in requests]
    out = []
    for ans in driver_run(driver, lines):
        if ans.startswith('ok '):
            out.append(bytes.fromhex(ans[3:]))
        else:
            out.append(ans)
    return out


def check_reference(tap):
    """The reference decryptor against the published messages."""
    data, desc = ref.decrypt(ref.load_secret_subkeys(vec('rfc9580-appendixA/a4_secret.asc')),
                             vec('rfc9580-appendixA/a8_encrypted.asc'))
    tap.check(data == b'Hello, world!' and desc['aead'] == 2,
              'reference decryptor: RFC 9580 A.8 decrypts to "Hello, world!"')
    samples = [
        ('v6-eddsa-sample', 'v6-eddsa-sample-message.asc',
         '5bf078bf7977109db6dead92d3578b62d0ab0487ef84e8e0af08f4b4b229e590'),
        ('v4-eddsa-sample', 'v4-eddsa-sample-message-v1.asc',
         'c1591d7511f9f0213bfd57cf316e5ec0d40c4ea826fa989ab606aa3b8a1a2c1f'),
        ('v4-eddsa-sample', 'v4-eddsa-sample-message-v2.asc',
         '5c5652a690b55d1e9545fbd722f838cd8ff4d3657af5a9026d02f3185ca74993'),
        ('v6-mldsa-87-sample', 'v6-mldsa-87-sample-message.asc',
         'ef1e32906f67d39bc800d90cabb0033c77ca6dce8ffca3e96d9c7348e2e8c16e'),
    ]
    for key, msg, kek in samples:
        trace = {}
        keys = ref.load_secret_subkeys(vec('openpgp-pqc/%s-sk.asc' % key))
        data, desc = ref.decrypt(keys, vec('openpgp-pqc/' + msg), trace)
        tap.check(data == b'Testing\n' and trace.get('kek', b'').hex() == kek,
                  'reference decryptor: RFC 9980 %s gives the published KEK and "Testing\\n"' % msg)


def check_reference_peer(tap, driver):
    rng = random.Random(9580)
    cases = []
    for algo in (25, 26, 35, 36):
        for version in (6, 4):
            if algo in (25, 26) and version == 4:
                continue
            for fmt in (FMT_OCB, FMT_GCM, FMT_V1):
                # Beyond one 256 KiB chunk once per format, for one algorithm.
                sizes = (0, 5, 70001, 300000) if (algo, version) == (25, 6) else (0, 5, 70001)
                for size in sizes:
                    cases.append((new_key(algo, version), fmt, size, rng.randrange(3)))
    reqs = [(fmt, armor, size, [key_spec(k)]) for k, fmt, size, armor in cases]
    msgs = encrypt(driver, reqs)
    bad = []
    for (k, fmt, size, armor), msg in zip(cases, msgs):
        try:
            if isinstance(msg, str):
                raise ref.RefError(msg)
            data, desc = ref.decrypt([k], msg)
            want_v = 1 if fmt == FMT_V1 else 2
            ok = (data == plaintext(size) and desc['seipd'] == want_v and
                  desc['pkesk'] == (3 if want_v == 1 else 6) and
                  (want_v == 1 or desc['aead'] == fmt) and
                  (k.algo < 35 or desc['sym'] == 9) and
                  (armor == 0 or msg.startswith(b'-----BEGIN PGP MESSAGE-----\n')))
            if not ok:
                bad.append('algo %d v%d fmt %d size %d: %s' % (k.algo, k.version, fmt, size, desc))
        except Exception as e:  # noqa: BLE001 - every failure is a finding
            bad.append('algo %d v%d fmt %d size %d: %r' % (k.algo, k.version, fmt, size, e))
    tap.check(not bad, 'reference decryptor reads %d messages (X25519, X448, ML-KEM-768+X25519, '
              'ML-KEM-1024+X448; v4/v6 keys; SEIPDv1, v2 OCB, v2 GCM)' % len(cases),
              '\n'.join(bad[:10]))
    # A flipped bit anywhere after the PKESK is refused.
    k = new_key(25)
    msg = encrypt(driver, [(FMT_OCB, 0, 1000, [key_spec(k)])])[0]
    refused = 0
    for _ in range(20):
        m = bytearray(msg)
        pos = rng.randrange(len(msg) - 1100, len(msg))
        m[pos] ^= 1 << rng.randrange(8)
        try:
            ref.decrypt([k], bytes(m))
        except Exception:  # noqa: BLE001
            refused += 1
    tap.check(refused == 20, 'reference decryptor refuses 20 tampered messages (%d)' % refused)
    # Several keys of different kinds: each decrypts the same message.
    keys = [new_key(25), new_key(26), new_key(35), new_key(36)]
    msg = encrypt(driver, [(FMT_AUTO, 1, 4000, [key_spec(k) for k in keys])])[0]
    ok = all(ref.decrypt([k], msg)[0] == plaintext(4000) for k in keys)
    tap.check(ok, 'one message to four keys (25, 26, 35, 36): each key decrypts it')


def check_format_selection(tap, driver):
    cases = [
        # (feature octets, AEAD prefs per key, want (seipd, aead, sym))
        ([9, 9], ['0902', '0902'], (2, 2, 9)),
        ([9, 9], ['09030902', '0903'], (2, 3, 9)),
        ([9, 9], ['09030902', '0902'], (2, 2, 9)),
        ([9, 1], ['0902', ''], (1, None, 7)),
        ([9, 9], ['0702', '0902'], (2, 2, 7)),
    ]
    bad = []
    for feats, aeads, want in cases:
        keys = [new_key(25) for _ in feats]
        specs = [key_spec(k, feat=f, **({'paead': bytes.fromhex(a)} if a else {}))
                 for k, f, a in zip(keys, feats, aeads)]
        msg = encrypt(driver, [(FMT_AUTO, 0, 10, specs)])[0]
        _, desc = ref.decrypt(keys[:1], msg)
        got = (desc['seipd'], desc.get('aead'), desc['sym'])
        if got != want:
            bad.append('%s %s: got %s, want %s' % (feats, aeads, got, want))
    # Post-quantum among the keys: AES-256 even when another key lists none.
    keys = [new_key(35), new_key(25)]
    msg = encrypt(driver, [(FMT_AUTO, 0, 10, [key_spec(keys[0]), key_spec(keys[1], feat=1)])])[0]
    _, desc = ref.decrypt(keys[:1], msg)
    if (desc['seipd'], desc['sym']) != (1, 9):
        bad.append('PQ + v1-only key: got %s' % desc)
    tap.check(not bad, 'format selection from Features and AEAD preferences', '\n'.join(bad))


def node(pkg, *args, input=None):
    return subprocess.run(['node', NODE_SCRIPT, pkg] + list(args), capture_output=True,
                          input=input, timeout=300, check=False)


def check_js(tap, driver, tmp):
    nm = os.environ.get('CORVID_NODE_MODULES', '')
    for pkg in ('openpgp', '@protontech/openpgp'):
        tap.check(os.path.isfile(os.path.join(nm, pkg, 'package.json')),
                  '%s is installed in CORVID_NODE_MODULES' % pkg,
                  'CORVID_NODE_MODULES=%r: run npm install of tests/interop/package.json' % nm)
    # OpenPGP.js: the RFC 9580 A.4 key and fresh v6 X25519 and X448 keys.
    v4_types = ('rsa2048', 'ecc:nistP256', 'ecc:nistP521', 'ecc:curve25519Legacy')
    r = node('openpgp', 'gen-many', tmp, 'curve25519', 'curve448', *v4_types)
    tap.check(r.returncode == 0, 'OpenPGP.js generates v6 X25519 and X448 keys and v4 %s keys'
              % ', '.join(v4_types), r.stderr.decode()[-500:])
    keyfiles = [os.path.join(VECTORS, 'rfc9580-appendixA', 'a4_secret.asc')]
    keyfiles += [os.path.join(tmp, t + '.asc') for t in ('curve25519', 'curve448')]
    jobs = []  # (package, key file, key spec, reference key or None, label, format, size, armor)
    for path in keyfiles:
        with open(path, 'rb') as f:
            subkeys = [k for k in ref.load_secret_subkeys(f.read()) if k.algo in (25, 26)]
        for k in subkeys:
            label = 'v6 %s' % {25: 'X25519', 26: 'X448'}[k.algo]
            for fmt, size, armor in ((FMT_OCB, 13, 1), (FMT_GCM, 300000, 0),
                                     (FMT_OCB, 70001, 2)):
                jobs.append(('openpgp', path, key_spec(k), k, label, fmt, size, armor))
    # v4 RSA and ECDH keys made by OpenPGP.js: v6 PKESKs before SEIPDv2 (which
    # gpg 2.2, sq 0.27 and rnp 0.16 cannot read) and v3 PKESKs before SEIPDv1.
    for t in v4_types:
        base = os.path.join(tmp, t.replace(':', '-'))
        path = base + '.asc'
        subs = []
        if os.path.exists(base + '.pub'):
            with open(base + '.pub', 'rb') as f:
                subs = list(gnupg.public_subkeys(f.read()))
        tap.check(len(subs) == 1, 'read the encryption subkey of the v4 %s key' % t)
        for desc, fields in subs:
            fields['feat'] = FEAT_V1V2
            for fmt, size, armor in ((FMT_OCB, 70000, 1), (FMT_GCM, 20, 0), (FMT_V1, 9000, 2)):
                jobs.append(('openpgp', path, spec(fields), None, 'v4 ' + desc, fmt, size, armor))
    pq = [('v6-eddsa-sample-sk.asc', (FMT_AUTO, FMT_OCB, FMT_GCM)),
          ('v4-eddsa-sample-sk.asc', (FMT_AUTO, FMT_V1, FMT_GCM)),
          ('v6-mldsa-65-sample-sk.asc', (FMT_OCB,))]
    for name, fmts in pq:
        path = os.path.join(VECTORS, 'openpgp-pqc', name)
        with open(path, 'rb') as f:
            k = [k for k in ref.load_secret_subkeys(f.read()) if k.algo == 35][0]
        for fmt in fmts:
            jobs.append(('@protontech/openpgp', path, key_spec(k), k,
                         'v%d ML-KEM-768+X25519' % k.version, fmt, 70000, 1))
    msgs = encrypt(driver, [(fmt, armor, size, [ks]) for _, _, ks, _, _, fmt, size, armor in jobs])
    # One node process per package decrypts all of its messages.
    answers = {}
    for pkg in ('openpgp', '@protontech/openpgp'):
        lines = []
        for i, (job, msg) in enumerate(zip(jobs, msgs)):
            if job[0] != pkg:
                continue
            mpath = os.path.join(tmp, 'js%d.pgp' % i)
            with open(mpath, 'wb') as f:
                f.write(msg if isinstance(msg, bytes) else b'')
            lines.append((i, '%s %s' % (job[1], mpath)))
        r = node(pkg, 'decrypt-many', input='\n'.join(l for _, l in lines).encode() + b'\n')
        out = r.stdout.decode().splitlines()
        for n, (i, _) in enumerate(lines):
            answers[i] = out[n] if n < len(out) else 'ERR no answer: ' + r.stderr.decode()[-300:]
    results = {}
    for i, ((pkg, path, _, k, label, fmt, size, armor), msg) in enumerate(zip(jobs, msgs)):
        ans = answers[i]
        ok = (isinstance(msg, bytes) and not ans.startswith('ERR') and
              bytes.fromhex(ans) == plaintext(size))
        # The reference decryptor agrees on every message it can read.
        if ok and k is not None:
            ok = ref.decrypt([k], msg)[0] == plaintext(size)
        results.setdefault((pkg, label), []).append(
            None if ok else 'fmt %d size %d %s: %s' % (fmt, size, os.path.basename(path),
                                                       ans[:300]))
    for (pkg, label), res in sorted(results.items()):
        errs = [e for e in res if e]
        tap.check(not errs, '%s decrypts %d messages to %s keys' % (pkg, len(res), label),
                  '\n'.join(errs[:5]))


def check_tool(tap, driver, tmp):
    """msgcrypt encrypt / encrypt-mime, found next to the driver's build."""
    tool = os.path.join(os.path.dirname(os.path.abspath(driver)), '..', 'tools', 'msgcrypt',
                        'msgcrypt')
    tap.check(os.access(tool, os.X_OK), 'msgcrypt tool is built', tool)
    if not os.access(tool, os.X_OK):
        return
    a3 = os.path.join(VECTORS, 'rfc9580-appendixA', 'a3_cert.asc')
    pq = os.path.join(VECTORS, 'openpgp-pqc', 'v6-eddsa-sample-pk.asc')
    keys = (ref.load_secret_subkeys(vec('rfc9580-appendixA/a4_secret.asc')) +
            ref.load_secret_subkeys(vec('openpgp-pqc/v6-eddsa-sample-sk.asc')))
    r = subprocess.run([tool, 'encrypt', '--key', a3, '--key', pq, '--armor'],
                       input=b'tool plaintext\n', capture_output=True, timeout=60, check=False)
    ok = r.returncode == 0 and r.stdout.startswith(b'-----BEGIN PGP MESSAGE-----')
    if ok:
        for k in keys:
            data, desc = ref.decrypt([k], r.stdout)
            ok &= data == b'tool plaintext\n' and desc['sym'] == 9 and desc['seipd'] == 2
    tap.check(ok, 'msgcrypt encrypt --armor to an X25519 and an ML-KEM-768+X25519 certificate',
              r.stderr.decode()[-300:])
    mime = (b'From: Alice <alice@example.org>\r\nTo: bob@example.org\r\nSubject: tool\r\n'
            b'Content-Type: text/plain; charset=utf-8\r\n\r\nHi Bob\r\n')
    r = subprocess.run([tool, 'encrypt-mime', '--key', a3], input=mime, capture_output=True,
                       timeout=60, check=False)
    ok = r.returncode == 0 and r.stdout.startswith(
        b'From: Alice <alice@example.org>\r\nTo: bob@example.org\r\nSubject: tool\r\n'
        b'MIME-Version: 1.0\r\nContent-Type: multipart/encrypted;')
    if ok:
        armored = r.stdout[r.stdout.index(b'-----BEGIN PGP MESSAGE-----'):]
        data, _ = ref.decrypt(keys, armored)
        ok = data == b'Content-Type: text/plain; charset=utf-8\r\n\r\nHi Bob\r\n'
    tap.check(ok, 'msgcrypt encrypt-mime keeps the transport header and encrypts the entity',
              r.stderr.decode()[-300:])
    bad = [(['encrypt', '--key', os.path.join(HERE, 'pgp_decrypt_ref.py')], b'x', 1),
           (['encrypt', '--key', os.path.join(tmp, 'missing.asc')], b'x', 1),
           (['encrypt-mime', '--key', a3], b'no header at all', 1),
           (['encrypt'], b'x', 2),
           (['encrypt', '--key', a3, '--format', 'rot13'], b'x', 2)]
    errs = []
    for args, stdin, want in bad:
        r = subprocess.run([tool] + args, input=stdin, capture_output=True, timeout=60,
                           check=False)
        if r.returncode != want or r.stdout or not r.stderr.strip():
            errs.append('%s: status %d, %d bytes out' % (args, r.returncode, len(r.stdout)))
    tap.check(not errs, 'bad keys, bad MIME and bad usage: exit 1/2, a message, nothing on stdout',
              '\n'.join(errs))
    # 100 MB through the tool: constant memory, and the reference decrypts it.
    size = 100 << 20
    out_path = os.path.join(tmp, 'big.pgp')
    with open(out_path, 'wb') as out:
        p = subprocess.Popen([tool, 'encrypt', '--key', a3], stdin=subprocess.PIPE, stdout=out)
        block = bytes(range(256)) * 4096
        h = hashlib.sha256()
        for _ in range(size // len(block)):
            p.stdin.write(block)
            h.update(block)
        # The peak RSS of the tool's own address space (rusage would count
        # the forked Python it started as), read while all input is in.
        with open('/proc/%d/status' % p.pid) as st:
            rss_kib = int([l.split()[1] for l in st if l.startswith('VmHWM:')][0])
        p.stdin.close()
        p.wait(timeout=300)
    with open(out_path, 'rb') as f:
        data, _ = ref.decrypt(keys, f.read())
    ok = p.returncode == 0 and hashlib.sha256(data).digest() == h.digest()
    tap.check(ok and rss_kib < 32 * 1024,
              'msgcrypt encrypt streams 100 MiB in constant memory (peak RSS %d KiB)'
              % rss_kib)
    os.unlink(out_path)


def main():
    tap = Tap()
    driver = sys.argv[1]
    check_reference(tap)
    check_reference_peer(tap, driver)
    check_format_selection(tap, driver)
    tmp = tempfile.mkdtemp(prefix='pgpe-interop-')
    try:
        check_js(tap, driver, tmp)
        check_tool(tap, driver, tmp)
        if os.environ.get('PGPE_SKIP_GNUPG') is None:
            gnupg.check_gnupg_family(tap, driver, tmp, encrypt, plaintext, spec)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
