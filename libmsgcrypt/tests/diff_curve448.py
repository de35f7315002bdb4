#!/usr/bin/env python3
"""Differential test of X448 (RFC 7748) and Ed448 (RFC 8032) against two peers.

usage: diff_curve448.py DRIVER   (prints TAP; DRIVER is the diff_curve448 program)

It draws random X448 private keys, peer keys and arbitrary 56-byte
u-coordinates, and random Ed448 private keys, messages (0 to 2,000 bytes) and
contexts (0 to 255 bytes), runs them through libmsgcrypt (the driver's line
protocol), Python's cryptography (OpenSSL inside) and @noble/curves (node,
from CORVID_NODE_MODULES), and compares byte for byte:
  - X448 public keys, and shared secrets with the peer's public key and with
    arbitrary u (twist points and non-canonical values included; an all-zero
    result must be refused by everyone);
  - Ed448 public keys and signatures, which are deterministic: without context
    against cryptography (it has no Ed448 context API), with the random
    context against noble, and Ed448ph with context against noble;
  - verification: each peer verifies our signatures, and everyone refuses
    them with one bit flipped.
CURVE448_DIFF_CASES sets the cases compared with cryptography (default 1000),
CURVE448_DIFF_NOBLE_CASES those compared with noble (default 400; noble is
slow), and CURVE448_DIFF_SEED the PRNG seed (printed, to replay a failure).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap, driver_run, find_noble, flip_bit, node_popen  # noqa: E402

NODE_SCRIPT = r"""
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
const root = process.env.CORVID_NODE_MODULES;
const { ed448, ed448ph, x448 } =
    await import(pathToFileURL(root + '/@noble/curves/ed448.js').href);
const hex = (b) => Buffer.from(b).toString('hex');
const bin = (h) => new Uint8Array(Buffer.from(h, 'hex'));
const out = [];
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (!line) continue;
  const c = JSON.parse(line);
  const r = {};
  try {
    if (c.op === 'x') {
      r.pk = hex(x448.getPublicKey(bin(c.k)));
      r.ss = hex(x448.getSharedSecret(bin(c.k), bin(c.peer_pk)));
      try {
        r.ss_u = hex(x448.getSharedSecret(bin(c.k), bin(c.u)));
      } catch (e) {
        r.ss_u = 'refused';
      }
    } else {
      const sk = bin(c.sk), msg = bin(c.msg), context = bin(c.ctx);
      const pk = ed448.getPublicKey(sk);
      r.pk = hex(pk);
      r.sig = hex(ed448.sign(msg, sk, { context }));
      r.ph = hex(ed448ph.sign(msg, sk, { context }));
      const opts = { context, zip215: false };
      r.ok_ours = ed448.verify(bin(c.our_sig), msg, pk, opts);
      r.ok_bad = ed448.verify(bin(c.bad_sig), msg, pk, opts);
      r.ok_ph = ed448ph.verify(bin(c.our_ph), msg, pk, opts);
    }
  } catch (e) {
    r.error = String(e);
  }
  out.push(JSON.stringify(r));
}
process.stdout.write(out.join('\n') + '\n');
"""



def h(b):
    return b.hex() if b else '-'


def check_all(tap, desc, pairs):
    bad = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
    tap.check(bad is None, '%s (%d cases)' % (desc, len(pairs)),
              None if bad is None else 'case %d: %r != %r' % (bad, str(pairs[bad][0])[:120],
                                                             str(pairs[bad][1])[:120]))


def random_u(rng, i):
    """Arbitrary u-coordinates: random bytes, plus values at or above p and
    the small-order points 0, 1 and p - 1 now and then."""
    p = 2**448 - 2**224 - 1
    special = [0, 1, p - 1, p, p + 1, 2**448 - 1]
    if i % 25 < len(special):
        return special[i % 25].to_bytes(56, 'little')
    return rng.randbytes(56)


def start_noble(node_modules, reqs, workers=2):
    """Starts `workers` node processes on interleaved slices of `reqs`."""
    procs = []
    for w in range(workers):
        part = reqs[w::workers]
        p = node_popen(NODE_SCRIPT, node_modules)
        procs.append((p, '\n'.join(json.dumps(r) for r in part) + '\n', len(part)))
    return procs


def finish_noble(procs):
    """Waits for the workers; returns (results in request order, error)."""
    parts = []
    for p, data, n in procs:
        out, err = p.communicate(data)
        lines = out.splitlines()
        if p.returncode != 0 or len(lines) != n:
            return None, err.strip()[-300:]
        parts.append([json.loads(line) for line in lines])
    merged = []
    for i in range(max(len(x) for x in parts)):
        for x in parts:
            if i < len(x):
                merged.append(x[i])
    return merged, None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    driver = sys.argv[1]
    n = int(os.environ.get('CURVE448_DIFF_CASES', '1000'))
    n_noble = min(n, int(os.environ.get('CURVE448_DIFF_NOBLE_CASES', '400')))
    seed = int(os.environ.get('CURVE448_DIFF_SEED', str(random.SystemRandom().randrange(2**32))))
    rng = random.Random(seed)
    tap = Tap()
    tap.note('CURVE448_DIFF_SEED=%d, %d cases against cryptography, %d against noble' %
             (seed, n, n_noble))

    # Peers: both must be present; a missing peer is a failure, not a skip.
    node_modules, have_noble = find_noble(tap, 'curves', 'ed448.js')
    try:
        import cryptography
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric import ed448, x448
        tap.check(True, 'cryptography %s provides X448 and Ed448' % cryptography.__version__)
    except ImportError as e:
        ed448 = x448 = None
        tap.check(False, 'cryptography provides X448 and Ed448', str(e))

    # Inputs.
    xk = [rng.randbytes(56) for _ in range(n)]
    xj = [rng.randbytes(56) for _ in range(n)]
    xu = [random_u(rng, i) for i in range(n)]
    esk = [rng.randbytes(57) for _ in range(n)]
    emsg = [rng.randbytes(rng.choice((0, 1, rng.randrange(300), rng.randrange(2001))))
            for _ in range(n)]
    ectx = [rng.randbytes(rng.choice((0, 1, 255, rng.randrange(256)))) for _ in range(n)]

    # Ours.
    xpk = driver_run(driver, ['XP %s' % k.hex() for k in xk])
    xpj = driver_run(driver, ['XP %s' % j.hex() for j in xj])
    xss = driver_run(driver, ['XS %s %s' % (k.hex(), pj) for k, pj in zip(xk, xpj)])
    xsu = driver_run(driver, ['XS %s %s' % (k.hex(), u.hex()) for k, u in zip(xk, xu)])
    epk = driver_run(driver, ['EP %s' % sk.hex() for sk in esk])
    esig0 = driver_run(driver, ['ES %s %s -' % (sk.hex(), h(m)) for sk, m in zip(esk, emsg)])
    esig = driver_run(driver, ['ES %s %s %s' % (sk.hex(), h(m), h(c))
                               for sk, m, c in zip(esk, emsg, ectx)])
    eph = driver_run(driver, ['EH %s %s %s' % (sk.hex(), h(m), h(c))
                              for sk, m, c in zip(esk, emsg, ectx)])
    ebad = [flip_bit(rng, bytes.fromhex(s)).hex() for s in esig]
    tap.check(all(s != 'error' and len(s) == 228 for s in esig + esig0 + eph),
              'libmsgcrypt signs every case')
    check_all(tap, 'libmsgcrypt verifies its Ed448 signatures with context',
              [(line, 'ok') for line in driver_run(
                  driver, ['EV %s %s %s %s' % (pk, s, h(m), h(c))
                           for pk, s, m, c in zip(epk, esig, emsg, ectx)])])
    check_all(tap, 'libmsgcrypt verifies its Ed448ph signatures with context',
              [(line, 'ok') for line in driver_run(
                  driver, ['EW %s %s %s %s' % (pk, s, h(m), h(c))
                           for pk, s, m, c in zip(epk, eph, emsg, ectx)])])
    check_all(tap, 'libmsgcrypt refuses its signatures with one bit flipped',
              [(line, 'error -10303') for line in driver_run(
                  driver, ['EV %s %s %s %s' % (pk, s, h(m), h(c))
                           for pk, s, m, c in zip(epk, ebad, emsg, ectx)])])
    zero_u = sum(1 for s in xsu if s == 'error -10302')
    tap.note('%d of %d arbitrary u gave an all-zero secret (refused)' % (zero_u, n))

    # noble runs in the background while cryptography is compared.
    procs = []
    if have_noble:
        reqs = []
        for i in range(n_noble):
            reqs.append({'op': 'x', 'k': xk[i].hex(), 'peer_pk': xpj[i], 'u': xu[i].hex()})
            reqs.append({'op': 'e', 'sk': esk[i].hex(), 'msg': emsg[i].hex(),
                         'ctx': ectx[i].hex(), 'our_sig': esig[i], 'bad_sig': ebad[i],
                         'our_ph': eph[i]})
        procs = start_noble(node_modules, reqs)

    if x448 is not None:
        name = 'X448 vs cryptography'
        privs = [x448.X448PrivateKey.from_private_bytes(k) for k in xk]
        check_all(tap, name + ': public keys',
                  [(p.public_key().public_bytes_raw().hex(), ours)
                   for p, ours in zip(privs, xpk)])
        check_all(tap, name + ': shared secrets with the peer public key',
                  [(p.exchange(x448.X448PublicKey.from_public_bytes(bytes.fromhex(pj))).hex(),
                    ours) for p, pj, ours in zip(privs, xpj, xss)])
        theirs = []
        for p, u in zip(privs, xu):
            try:
                theirs.append(p.exchange(x448.X448PublicKey.from_public_bytes(u)).hex())
            except ValueError:
                theirs.append('error -10302')
        check_all(tap, name + ': shared secrets with arbitrary u (twist, >= p, small order)',
                  list(zip(theirs, xsu)))

        name = 'Ed448 vs cryptography'
        privs = [ed448.Ed448PrivateKey.from_private_bytes(sk) for sk in esk]
        pubs = [p.public_key() for p in privs]
        check_all(tap, name + ': public keys',
                  [(pub.public_bytes_raw().hex(), ours) for pub, ours in zip(pubs, epk)])
        check_all(tap, name + ': signatures without context',
                  [(p.sign(m).hex(), ours) for p, m, ours in zip(privs, emsg, esig0)])

        def verifies(pub, sig, msg):
            try:
                pub.verify(sig, msg)
                return True
            except InvalidSignature:
                return False
        check_all(tap, name + ': OpenSSL verifies our signatures',
                  [(verifies(pub, bytes.fromhex(s), m), True)
                   for pub, s, m in zip(pubs, esig0, emsg)])
        bad0 = [flip_bit(rng, bytes.fromhex(s)) for s in esig0]
        check_all(tap, name + ': OpenSSL refuses them with one bit flipped',
                  [(verifies(pub, s, m), False) for pub, s, m in zip(pubs, bad0, emsg)])
        check_all(tap, name + ': we refuse them with one bit flipped',
                  [(line, 'error -10303') for line in driver_run(
                      driver, ['EV %s %s %s -' % (pk, s.hex(), h(m))
                               for pk, s, m in zip(epk, bad0, emsg)])])
        # OpenSSL's own random keys: we derive the same public keys and
        # verify OpenSSL's signatures.
        fresh = [ed448.Ed448PrivateKey.generate() for _ in range(n // 10)]
        raws = [f.private_bytes_raw() for f in fresh]
        sigs = [f.sign(m) for f, m in zip(fresh, emsg)]
        pks = [f.public_key().public_bytes_raw().hex() for f in fresh]
        check_all(tap, name + ': public keys of OpenSSL-generated private keys',
                  list(zip(driver_run(driver, ['EP %s' % r.hex() for r in raws]), pks)))
        check_all(tap, name + ': we verify OpenSSL signatures',
                  [(line, 'ok') for line in driver_run(
                      driver, ['EV %s %s %s -' % (pk, s.hex(), h(m))
                               for pk, s, m in zip(pks, sigs, emsg)])])

    if procs:
        got, err = finish_noble(procs)
        tap.check(got is not None, 'noble ran', err)
        if got is not None:
            errors = [g['error'] for g in got if 'error' in g]
            tap.check(not errors, 'noble ran every case', errors[0] if errors else None)
            gx = [g for g, r in zip(got, reqs) if r['op'] == 'x']
            ge = [g for g, r in zip(got, reqs) if r['op'] == 'e']
            name = 'X448 vs noble'
            check_all(tap, name + ': public keys', [(g.get('pk'), o) for g, o in zip(gx, xpk)])
            check_all(tap, name + ': shared secrets with the peer public key',
                      [(g.get('ss'), o) for g, o in zip(gx, xss)])
            check_all(tap, name + ': shared secrets with arbitrary u',
                      [(g.get('ss_u') if g.get('ss_u') != 'refused' else 'error -10302', o)
                       for g, o in zip(gx, xsu)])
            name = 'Ed448 vs noble'
            check_all(tap, name + ': public keys', [(g.get('pk'), o) for g, o in zip(ge, epk)])
            check_all(tap, name + ': signatures with context (0-255 bytes)',
                      [(g.get('sig'), o) for g, o in zip(ge, esig)])
            check_all(tap, name + ': Ed448ph signatures with context',
                      [(g.get('ph'), o) for g, o in zip(ge, eph)])
            check_all(tap, name + ': noble verifies our signatures (zip215 off)',
                      [(g.get('ok_ours'), True) for g in ge])
            check_all(tap, name + ': noble verifies our Ed448ph signatures',
                      [(g.get('ok_ph'), True) for g in ge])
            check_all(tap, name + ': noble refuses them with one bit flipped',
                      [(g.get('ok_bad'), False) for g in ge])
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
