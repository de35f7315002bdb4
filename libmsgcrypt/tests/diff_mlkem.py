#!/usr/bin/env python3
"""Differential test of ML-KEM (FIPS 203) against two independent peers.

usage: diff_mlkem.py DRIVER   (prints TAP; DRIVER is the diff_mlkem program)

For every level it draws random (d, z, m) triples and runs them through
libmsgcrypt (the driver's line protocol), @noble/post-quantum (node, from
CORVID_NODE_MODULES) and Python's cryptography (OpenSSL inside; it has
ML-KEM-768 and ML-KEM-1024 only, and takes no caller-chosen m). Compared byte
for byte:
  - keygen from the seed d || z: public and private key (noble), public key
    (cryptography, which exposes no expanded private key);
  - encapsulation with m: ciphertext and shared secret (noble; equal
    ciphertexts and secrets make noble's decapsulation of ours redundant);
  - decapsulation of our ciphertexts (cryptography), of cryptography's own
    random encapsulations (ours), and of a ciphertext with one bit flipped,
    where all three must give the same implicit-rejection secret;
  - public keys with one coefficient pushed to q..4095: everyone refuses them.
MLKEM_DIFF_CASES sets the cases per level (default 1000) and MLKEM_DIFF_SEED
the PRNG seed (printed, to replay a failure).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap, driver_run, find_noble, flip_bit, node_popen  # noqa: E402

LEVELS = (512, 768, 1024)
K = {512: 2, 768: 3, 1024: 4}
Q = 3329

NODE_SCRIPT = r"""
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
const root = process.env.CORVID_NODE_MODULES;
const mod = await import(pathToFileURL(root + '/@noble/post-quantum/ml-kem.js').href);
const kems = { 512: mod.ml_kem512, 768: mod.ml_kem768, 1024: mod.ml_kem1024 };
const hex = (b) => Buffer.from(b).toString('hex');
const bin = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const out = [];
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line), kem = kems[c.level];
  const r = {};
  try {
    if (c.op === 'case') {
      const { publicKey, secretKey } = kem.keygen(bin(c.seed));
      const { cipherText, sharedSecret } = kem.encapsulate(publicKey, bin(c.m));
      r.pk = hex(publicKey); r.sk = hex(secretKey); r.ct = hex(cipherText);
      r.ss = hex(sharedSecret);
      r.ss_rej = hex(kem.decapsulate(bin(c.tampered), secretKey));
    } else {
      try {
        kem.encapsulate(bin(c.pk), bin(c.m));
        r.accepted = true;
      } catch (e) {
        r.accepted = false;
      }
    }
  } catch (e) {
    r.error = String(e);
  }
  out.push(JSON.stringify(r));
}
process.stdout.write(out.join('\n') + '\n');
"""



def bad_public_key(rng, pk, level):
    """Sets one 12-bit coefficient of the t-hat encoding to a value >= q."""
    b = bytearray(pk)
    i = rng.randrange(256 * K[level])
    v = rng.randrange(Q, 4096)
    off = 3 * (i // 2)
    if i % 2 == 0:
        b[off] = v & 0xff
        b[off + 1] = (b[off + 1] & 0xf0) | (v >> 8)
    else:
        b[off + 1] = (b[off + 1] & 0x0f) | ((v & 0x0f) << 4)
        b[off + 2] = v >> 4
    return bytes(b)


def first_mismatch(pairs):
    """Returns the index of the first unequal pair, or None."""
    for i, (a, b) in enumerate(pairs):
        if a != b:
            return i
    return None


def check_all(tap, desc, pairs):
    bad = first_mismatch(pairs)
    tap.check(bad is None, '%s (%d cases)' % (desc, len(pairs)),
              None if bad is None else 'case %d: %r != %r' % (bad, pairs[bad][0][:80],
                                                             pairs[bad][1][:80]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    driver = sys.argv[1]
    n = int(os.environ.get('MLKEM_DIFF_CASES', '1000'))
    n_bad = max(1, n // 10)
    seed = int(os.environ.get('MLKEM_DIFF_SEED', str(random.SystemRandom().randrange(2**32))))
    rng = random.Random(seed)
    tap = Tap()
    tap.note('MLKEM_DIFF_SEED=%d, %d cases per level' % (seed, n))

    # Peers: both must be present; a missing peer is a failure, not a skip.
    node_modules, have_noble = find_noble(tap, 'post-quantum', 'ml-kem.js')
    try:
        from cryptography.hazmat.primitives.asymmetric import mlkem as crypto_mlkem
        import cryptography
        tap.check(True, 'cryptography %s provides ML-KEM' % cryptography.__version__)
    except ImportError as e:
        crypto_mlkem = None
        tap.check(False, 'cryptography provides ML-KEM', str(e))
    crypto_classes = {}
    if crypto_mlkem is not None:
        crypto_classes = {768: (crypto_mlkem.MLKEM768PrivateKey, crypto_mlkem.MLKEM768PublicKey),
                          1024: (crypto_mlkem.MLKEM1024PrivateKey,
                                 crypto_mlkem.MLKEM1024PublicKey)}
    tap.note('cryptography has no ML-KEM-512: that level is compared with noble only')

    for level in LEVELS:
        seeds = [rng.randbytes(64) for _ in range(n)]
        ms = [rng.randbytes(32) for _ in range(n)]

        # Ours: keygen, encaps, decaps, decaps of a tampered ciphertext.
        keys = [line.split() for line in
                driver_run(driver, ['K %d %s' % (level, s.hex()) for s in seeds])]
        pks = [bytes.fromhex(k[0]) for k in keys]
        sks = [bytes.fromhex(k[1]) for k in keys]
        enc = [line.split() for line in driver_run(
            driver, ['E %d %s %s' % (level, pk.hex(), m.hex()) for pk, m in zip(pks, ms)])]
        cts = [bytes.fromhex(e[0]) for e in enc]
        sss = [e[1] for e in enc]
        tampered = [flip_bit(rng, ct) for ct in cts]
        dec = driver_run(driver, ['D %d %s %s' % (level, sk.hex(), ct.hex())
                                  for sk, ct in zip(sks, cts)])
        rej = driver_run(driver, ['D %d %s %s' % (level, sk.hex(), ct.hex())
                                  for sk, ct in zip(sks, tampered)])
        check_all(tap, 'ML-KEM-%d: libmsgcrypt decapsulates its own ciphertexts' % level,
                  list(zip(dec, sss)))
        tap.check(all(r != s for r, s in zip(rej, sss)),
                  'ML-KEM-%d: tampered ciphertexts give a different secret' % level)
        bad_pks = [bad_public_key(rng, pks[i], level) for i in range(n_bad)]
        bad_ms = [rng.randbytes(32) for _ in range(n_bad)]
        ours_bad = driver_run(driver, ['E %d %s %s' % (level, pk.hex(), m.hex())
                                       for pk, m in zip(bad_pks, bad_ms)])
        tap.check(all(line == 'error -10302' for line in ours_bad),
                  'ML-KEM-%d: libmsgcrypt refuses %d public keys with a coefficient >= q' %
                  (level, n_bad))

        # noble.
        if have_noble:
            reqs = [json.dumps({'op': 'case', 'level': level, 'seed': s.hex(), 'm': m.hex(),
                                'tampered': t.hex()})
                    for s, m, t in zip(seeds, ms, tampered)]
            reqs += [json.dumps({'op': 'encaps', 'level': level, 'pk': pk.hex(), 'm': m.hex()})
                     for pk, m in zip(bad_pks, bad_ms)]
            noble = node_popen(NODE_SCRIPT, node_modules)
            out, err = noble.communicate('\n'.join(reqs) + '\n')
            lines = out.splitlines()
            if noble.returncode != 0 or len(lines) != len(reqs):
                tap.check(False, 'ML-KEM-%d: noble ran' % level, err.strip()[-300:])
            else:
                got = [json.loads(line) for line in lines]
                errors = [g['error'] for g in got if 'error' in g]
                tap.check(not errors, 'ML-KEM-%d: noble ran every case' % level,
                          errors[0] if errors else None)
                cases, bads = got[:n], got[n:]
                name = 'ML-KEM-%d vs noble' % level
                check_all(tap, name + ': keygen(d || z) public key',
                          [(g.get('pk'), pk.hex()) for g, pk in zip(cases, pks)])
                check_all(tap, name + ': keygen(d || z) private key',
                          [(g.get('sk'), sk.hex()) for g, sk in zip(cases, sks)])
                check_all(tap, name + ': encapsulate(pk, m) ciphertext',
                          [(g.get('ct'), ct.hex()) for g, ct in zip(cases, cts)])
                check_all(tap, name + ': encapsulate(pk, m) shared secret',
                          [(g.get('ss'), ss) for g, ss in zip(cases, sss)])
                check_all(tap, name + ': implicit rejection of a flipped bit',
                          [(g.get('ss_rej'), r) for g, r in zip(cases, rej)])
                tap.check(all(g.get('accepted') is False for g in bads),
                          name + ': noble refuses the %d public keys with a coefficient >= q' %
                          n_bad)

        # cryptography (OpenSSL): 768 and 1024.
        if level in crypto_classes:
            priv_cls, pub_cls = crypto_classes[level]
            name = 'ML-KEM-%d vs cryptography' % level
            privs = [priv_cls.from_seed_bytes(s) for s in seeds]
            check_all(tap, name + ': from_seed_bytes(d || z) public key',
                      [(p.public_key().public_bytes_raw(), pk) for p, pk in zip(privs, pks)])
            check_all(tap, name + ': OpenSSL decapsulates our ciphertexts',
                      [(p.decapsulate(ct).hex(), ss) for p, ct, ss in zip(privs, cts, sss)])
            check_all(tap, name + ': implicit rejection of a flipped bit',
                      [(p.decapsulate(t).hex(), r) for p, t, r in zip(privs, tampered, rej)])
            theirs = [p.public_key().encapsulate() for p in privs]
            ours = driver_run(driver, ['D %d %s %s' % (level, sk.hex(), ct.hex())
                                       for sk, (_, ct) in zip(sks, theirs)])
            check_all(tap, name + ': we decapsulate OpenSSL\'s random encapsulations',
                      [(o, ss.hex()) for o, (ss, _) in zip(ours, theirs)])
            refused = 0
            for pk in bad_pks:
                try:
                    pub_cls.from_public_bytes(pk).encapsulate()
                except ValueError:
                    refused += 1
            tap.check(refused == n_bad,
                      name + ': OpenSSL refuses the %d public keys with a coefficient >= q' %
                      n_bad, '%d of %d refused' % (refused, n_bad))
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
