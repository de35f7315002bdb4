#!/usr/bin/env python3
"""Differential test of ML-DSA (FIPS 204) against two independent peers.

usage: diff_mldsa.py DRIVER   (prints TAP; DRIVER is the diff_mldsa program)

For every level it draws random (seed, message, context) triples, messages of
0 to 4000 bytes and contexts of 0 to 255, and runs them through libmsgcrypt
(the driver's line protocol), @noble/post-quantum (node, from
CORVID_NODE_MODULES) and Python's cryptography (OpenSSL inside, which signs
only hedged and exposes no expanded private key). Checked:
  - keygen from the seed: public and private key equal noble's byte for byte,
    public key equals cryptography's from_seed_bytes;
  - deterministic signatures equal noble's sign(..., {extraEntropy: false});
  - our deterministic and hedged signatures verify under both peers, and
    cryptography's own (hedged) signatures verify under ours;
  - a signature with one bit flipped, or checked against another context,
    is refused by all three (by noble on every fourth case, to save time).
MLDSA_DIFF_CASES sets the cases per level (default 500) and MLDSA_DIFF_SEED the
PRNG seed (printed, to replay a failure).
"""
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap, driver_run, find_noble, flip_bit, node_popen  # noqa: E402

LEVELS = (44, 65, 87)
# noble checks its refusals (bit flip, other context) on every 4th case: it
# is by far the slowest peer, and the other two check every case.
NOBLE_REFUSAL_STRIDE = 4

NODE_SCRIPT = r"""
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
const root = process.env.CORVID_NODE_MODULES;
const mod = await import(pathToFileURL(root + '/@noble/post-quantum/ml-dsa.js').href);
const dsas = { 44: mod.ml_dsa44, 65: mod.ml_dsa65, 87: mod.ml_dsa87 };
const hex = (b) => Buffer.from(b).toString('hex');
const bin = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const out = [];
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line), dsa = dsas[c.level];
  const r = {};
  try {
    const { publicKey, secretKey } = dsa.keygen(bin(c.seed));
    const context = bin(c.ctx);
    r.pk = hex(publicKey);
    r.sk = hex(secretKey);
    r.sig = hex(dsa.sign(bin(c.msg), secretKey, { context, extraEntropy: false }));
    r.ours_det = dsa.verify(bin(c.det), bin(c.msg), publicKey, { context });
    r.ours_hedged = dsa.verify(bin(c.hedged), bin(c.msg), publicKey, { context });
    if (c.flipped) {
      r.flipped = dsa.verify(bin(c.flipped), bin(c.msg), publicKey, { context });
      r.other_ctx = dsa.verify(bin(c.det), bin(c.msg), publicKey, { context: bin(c.other_ctx) });
    }
  } catch (e) {
    r.error = String(e);
  }
  out.push(JSON.stringify(r));
}
process.stdout.write(out.join('\n') + '\n');
"""



def hx(data):
    return data.hex() if data else '-'


def other_context(ctx):
    """A different context: one byte changed, or one byte added when empty."""
    if not ctx:
        return b'\x00'
    return bytes([ctx[0] ^ 0x01]) + ctx[1:]


def random_message(rng):
    r = rng.random()
    if r < 0.05:
        return b''
    if r < 0.8:
        return rng.randbytes(rng.randrange(1, 200))
    return rng.randbytes(rng.randrange(200, 4001))


def random_context(rng):
    r = rng.random()
    if r < 0.3:
        return b''
    if r < 0.4:
        return rng.randbytes(255)
    return rng.randbytes(rng.randrange(1, 256))


def check_all(tap, desc, pairs):
    bad = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
    tap.check(bad is None, '%s (%d cases)' % (desc, len(pairs)),
              None if bad is None else 'case %d: %r != %r' % (bad, str(pairs[bad][0])[:80],
                                                             str(pairs[bad][1])[:80]))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    driver = sys.argv[1]
    n = int(os.environ.get('MLDSA_DIFF_CASES', '500'))
    seed = int(os.environ.get('MLDSA_DIFF_SEED', str(random.SystemRandom().randrange(2**32))))
    rng = random.Random(seed)
    tap = Tap()
    tap.note('MLDSA_DIFF_SEED=%d, %d cases per level' % (seed, n))

    # Peers: both must be present; a missing peer is a failure, not a skip.
    node_modules, have_noble = find_noble(tap, 'post-quantum', 'ml-dsa.js')
    try:
        from cryptography.hazmat.primitives.asymmetric import mldsa as crypto_mldsa
        from cryptography.exceptions import InvalidSignature
        import cryptography
        tap.check(True, 'cryptography %s provides ML-DSA' % cryptography.__version__)
    except ImportError as e:
        crypto_mldsa = None
        tap.check(False, 'cryptography provides ML-DSA', str(e))
    tap.note('cryptography signs hedged only: its signatures are compared by verification')

    for level in LEVELS:
        seeds = [rng.randbytes(32) for _ in range(n)]
        msgs = [random_message(rng) for _ in range(n)]
        ctxs = [random_context(rng) for _ in range(n)]
        others = [other_context(c) for c in ctxs]

        # Ours: keygen, deterministic and hedged signing, self-verification.
        keys = [line.split() for line in
                driver_run(driver, ['K %d %s' % (level, s.hex()) for s in seeds])]
        pks = [bytes.fromhex(k[0]) for k in keys]
        sks = [bytes.fromhex(k[1]) for k in keys]
        dets = [bytes.fromhex(line) for line in driver_run(
            driver, ['S %d %s %s %s' % (level, sk.hex(), hx(m), hx(c))
                     for sk, m, c in zip(sks, msgs, ctxs)])]
        hedged = [bytes.fromhex(line) for line in driver_run(
            driver, ['H %d %s %s %s' % (level, sk.hex(), hx(m), hx(c))
                     for sk, m, c in zip(sks, msgs, ctxs)])]
        flipped = [flip_bit(rng, s) for s in dets]
        name = 'ML-DSA-%d' % level
        ours = driver_run(driver, ['V %d %s %s %s %s' % (level, pk.hex(), s.hex(), hx(m), hx(c))
                                   for pk, s, m, c in zip(pks, hedged, msgs, ctxs)])
        tap.check(all(o == 'ok' for o in ours), name + ': our hedged signatures verify')
        tap.check(all(h != d for h, d in zip(hedged, dets)),
                  name + ': hedged signatures differ from deterministic ones')
        ours = driver_run(driver, ['V %d %s %s %s %s' % (level, pk.hex(), s.hex(), hx(m), hx(c))
                                   for pk, s, m, c in zip(pks, flipped, msgs, ctxs)])
        tap.check(all(o == 'error -10303' for o in ours),
                  name + ': we refuse signatures with one bit flipped')
        ours = driver_run(driver, ['V %d %s %s %s %s' % (level, pk.hex(), s.hex(), hx(m), hx(c))
                                   for pk, s, m, c in zip(pks, dets, msgs, others)])
        tap.check(all(o == 'error -10303' for o in ours),
                  name + ': we refuse signatures checked under another context')

        # noble: everything byte for byte. It is the slowest of the three, so
        # it runs in the background while cryptography is checked, and checks
        # the refusals on every NOBLE_REFUSAL_STRIDE-th case only.
        noble = None
        if have_noble:
            reqs = [json.dumps({'level': level, 'seed': s.hex(), 'msg': m.hex(), 'ctx': c.hex(),
                                'other_ctx': o.hex(), 'det': d.hex(), 'hedged': h.hex(),
                                'flipped': f.hex() if i % NOBLE_REFUSAL_STRIDE == 0 else ''})
                    for i, (s, m, c, o, d, h, f) in enumerate(zip(seeds, msgs, ctxs, others, dets,
                                                                  hedged, flipped))]
            requests = tempfile.TemporaryFile(mode='w+')
            requests.write('\n'.join(reqs) + '\n')
            requests.seek(0)
            noble = node_popen(NODE_SCRIPT, node_modules, stdin=requests)
        # cryptography (OpenSSL): keys by seed, signatures by verification.
        if crypto_mldsa is not None:
            priv_cls = {44: crypto_mldsa.MLDSA44PrivateKey, 65: crypto_mldsa.MLDSA65PrivateKey,
                        87: crypto_mldsa.MLDSA87PrivateKey}[level]
            peer = name + ' vs cryptography'
            privs = [priv_cls.from_seed_bytes(s) for s in seeds]
            pubs = [p.public_key() for p in privs]
            check_all(tap, peer + ': from_seed_bytes(seed) public key',
                      [(p.public_bytes_raw(), pk) for p, pk in zip(pubs, pks)])

            def verifies(pub, sig, msg, ctx):
                try:
                    pub.verify(sig, msg, ctx)
                    return True
                except InvalidSignature:
                    return False

            check_all(tap, peer + ': OpenSSL verifies our deterministic signatures',
                      [(verifies(p, s, m, c), True)
                       for p, s, m, c in zip(pubs, dets, msgs, ctxs)])
            check_all(tap, peer + ': OpenSSL verifies our hedged signatures',
                      [(verifies(p, s, m, c), True)
                       for p, s, m, c in zip(pubs, hedged, msgs, ctxs)])
            check_all(tap, peer + ': OpenSSL refuses one bit flipped',
                      [(verifies(p, s, m, c), False)
                       for p, s, m, c in zip(pubs, flipped, msgs, ctxs)])
            check_all(tap, peer + ': OpenSSL refuses another context',
                      [(verifies(p, s, m, o), False)
                       for p, s, m, o in zip(pubs, dets, msgs, others)])
            theirs = [p.sign(m, c) for p, m, c in zip(privs, msgs, ctxs)]
            ours = driver_run(driver, ['V %d %s %s %s %s' % (level, pk.hex(), s.hex(), hx(m),
                                                            hx(c))
                                       for pk, s, m, c in zip(pks, theirs, msgs, ctxs)])
            check_all(tap, peer + ': we verify OpenSSL\'s signatures',
                      [(o, 'ok') for o in ours])
            ours = driver_run(driver, ['V %d %s %s %s %s' % (level, pk.hex(), s.hex(), hx(m),
                                                            hx(o))
                                       for pk, s, m, o in zip(pks, theirs, msgs, others)])
            check_all(tap, peer + ': we refuse OpenSSL\'s signatures under another context',
                      [(o, 'error -10303') for o in ours])
        if noble is not None:
            out, err = noble.communicate()
            requests.close()
            lines = out.splitlines()
            if noble.returncode != 0 or len(lines) != len(reqs):
                tap.check(False, name + ': noble ran', err.strip()[-300:])
            else:
                got = [json.loads(line) for line in lines]
                errors = [g['error'] for g in got if 'error' in g]
                tap.check(not errors, name + ': noble ran every case',
                          errors[0] if errors else None)
                peer = name + ' vs noble'
                check_all(tap, peer + ': keygen(seed) public key',
                          [(g.get('pk'), pk.hex()) for g, pk in zip(got, pks)])
                check_all(tap, peer + ': keygen(seed) private key',
                          [(g.get('sk'), sk.hex()) for g, sk in zip(got, sks)])
                check_all(tap, peer + ': deterministic signature with context',
                          [(g.get('sig'), d.hex()) for g, d in zip(got, dets)])
                check_all(tap, peer + ': noble verifies our deterministic signatures',
                          [(g.get('ours_det'), True) for g in got])
                check_all(tap, peer + ': noble verifies our hedged signatures',
                          [(g.get('ours_hedged'), True) for g in got])
                sampled = got[::NOBLE_REFUSAL_STRIDE]
                check_all(tap, peer + ': noble refuses one bit flipped',
                          [(g.get('flipped'), False) for g in sampled])
                check_all(tap, peer + ': noble refuses another context',
                          [(g.get('other_ctx'), False) for g in sampled])
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
