#!/usr/bin/env python3
"""Differential test of AES-OCB (RFC 7253) against Python's cryptography.

usage: diff_aead.py DRIVER   (prints TAP; DRIVER is the diff_aead program)

Random keys (AES-128/192/256), nonces (12 to 15 bytes: OpenPGP's 15 and the
usual 12 above all), associated data and plaintexts (every length from 0 to
300, and some from 1 KiB to 64 KiB) go through libmsgcrypt's AES-OCB, with
each of its implementations (the AES-NI loops, when the CPU has AES-NI, and
the loops over BoringSSL's ECB mode), and through cryptography's AESOCB3
(OpenSSL's OCB inside), compared byte for byte:
  - our seal against theirs;
  - their ciphertext opened by us, ours opened by them;
  - a ciphertext with one random bit flipped: both refuse it (that nothing is
    released then is test_ocb's job).
@noble/ciphers has no OCB, so Python is the one peer. A smaller batch checks
the symmetric layer over BoringSSL the same way: AES-GCM, AES-CFB128, AES key
wrap and HKDF-SHA-256/384/512. AEAD_DIFF_CASES sets the number of OCB cases
(default 3000) and AEAD_DIFF_SEED the PRNG seed (printed, to replay a failure).
"""
import os
import random
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
from cryptography.hazmat.primitives.ciphers.aead import AESGCM, AESOCB3
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

try:  # CFB moved to the "decrepit" module in cryptography 43.
    from cryptography.hazmat.decrepit.ciphers.modes import CFB
except ImportError:  # pragma: no cover
    from cryptography.hazmat.primitives.ciphers.modes import CFB

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from difftap import Tap, driver_run  # noqa: E402

MC_ERR_UNSUPPORTED = -10301
MC_ERR_AUTH_FAILED = -10304



def h(b):
    return b.hex() if b else '-'


def unh(s):
    return b'' if s == '-' else bytes.fromhex(s)


def flip_bit(data, rng):
    b = bytearray(data)
    bit = rng.randrange(8 * len(b))
    b[bit // 8] ^= 1 << (bit % 8)
    return bytes(b)


def ocb_cases(rng, n):
    lengths = list(range(0, 301)) + [1024, 1040, 4096, 4111, 65536]
    cases = []
    for i in range(n):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        nonce = rng.randbytes(15 if i % 2 == 0 else rng.choice((12, 12, 13, 14)))
        pt = rng.randbytes(lengths[i % len(lengths)])
        ad_len = rng.choice((0, 0, rng.randrange(0, 301), rng.randrange(300, 2000)))
        ad = rng.randbytes(ad_len)
        cases.append((key, nonce, ad, pt))
    return cases


def main():
    driver = sys.argv[1]
    num = int(os.environ.get('AEAD_DIFF_CASES', '3000'))
    seed = int(os.environ.get('AEAD_DIFF_SEED', str(random.SystemRandom().randrange(1 << 32))))
    rng = random.Random(seed)
    tap = Tap()
    print('TAP version 13')
    print('# seed %d (AEAD_DIFF_SEED=%d to replay), %d OCB cases' % (seed, seed, num))

    cases = ocb_cases(rng, num)
    theirs = [AESOCB3(k).encrypt(nonce, pt, ad or None) for k, nonce, ad, pt in cases]
    tampered = [flip_bit(c, rng) for c in theirs]

    # Every implementation this CPU has: a forced one it lacks answers
    # MC_ERR_UNSUPPORTED.
    probe = ['S %s 16 %s %s - -' % (i, h(bytes(16)), h(bytes(12))) for i in ('vaes', 'aesni')]
    have = driver_run(driver, probe)
    impls = [i for i, r in zip(('vaes', 'aesni'), have)
             if r != 'error %d' % MC_ERR_UNSUPPORTED] + ['boringssl']
    print('# implementations: %s' % ', '.join(impls))

    for impl in impls:
        lines = []
        for (k, nonce, ad, pt), c, bad in zip(cases, theirs, tampered):
            lines.append('S %s 16 %s %s %s %s' % (impl, h(k), h(nonce), h(ad), h(pt)))
            lines.append('O %s 16 %s %s %s %s' % (impl, h(k), h(nonce), h(ad), h(c)))
            lines.append('O %s 16 %s %s %s %s' % (impl, h(k), h(nonce), h(ad), h(bad)))
        answers = driver_run(driver, lines)
        seal_bad, open_bad, forged_bad, peer_bad = [], [], [], []
        for i, ((k, nonce, ad, pt), c, bad) in enumerate(zip(cases, theirs, tampered)):
            ours, opened, forged = answers[3 * i:3 * i + 3]
            if ours != h(c):
                seal_bad.append(i)
            if opened != h(pt):
                open_bad.append(i)
            if forged != 'error %d' % MC_ERR_AUTH_FAILED:
                forged_bad.append(i)
            # Their open of our ciphertext (identical when seal agrees, but
            # checked on its own so that a seal mismatch shows both ways).
            try:
                if not ours.startswith('error') and \
                        AESOCB3(k).decrypt(nonce, unh(ours), ad or None) != pt:
                    peer_bad.append(i)
            except InvalidTag:
                peer_bad.append(i)

        def diag(bad):
            if not bad:
                return None
            k, nonce, ad, pt = cases[bad[0]]
            return '%d mismatches; first: key %s nonce %s ad %d bytes pt %d bytes' % (
                len(bad), h(k), h(nonce), len(ad), len(pt))

        tap.check(not seal_bad, '%s: seal of %d random cases equals AESOCB3' % (impl, num),
                  diag(seal_bad))
        tap.check(not open_bad, '%s: open of AESOCB3 ciphertexts gives the plaintext' % impl,
                  diag(open_bad))
        tap.check(not peer_bad, '%s: AESOCB3 opens our ciphertexts' % impl, diag(peer_bad))
        tap.check(not forged_bad, '%s: one flipped bit is refused (MC_ERR_AUTH_FAILED)' % impl,
                  diag(forged_bad))
    # Python refuses the same forgeries.
    refused = 0
    for (k, nonce, ad, pt), bad in zip(cases, tampered):
        try:
            AESOCB3(k).decrypt(nonce, bad, ad or None)
        except InvalidTag:
            refused += 1
    tap.check(refused == num, 'AESOCB3 refuses the same %d forgeries' % num)

    # The symmetric layer over BoringSSL.
    layer = max(num // 10, 50)
    lines, want = [], []
    for i in range(layer):
        key = rng.randbytes(rng.choice((16, 24, 32)))
        pt = rng.randbytes(rng.randrange(0, 300))
        ad = rng.randbytes(rng.randrange(0, 40))
        nonce = rng.randbytes(12)
        lines.append('G %s %s %s %s' % (h(key), h(nonce), h(ad), h(pt)))
        want.append(('gcm', h(AESGCM(key).encrypt(nonce, pt, ad or None))))
        iv = rng.randbytes(16)
        enc = Cipher(algorithms.AES(key), CFB(iv)).encryptor()
        lines.append('C %s %s %s' % (h(key), h(iv), h(pt)))
        want.append(('cfb', h(enc.update(pt) + enc.finalize())))
        data = rng.randbytes(8 * rng.randrange(2, 12))
        lines.append('W %s %s' % (h(key), h(data)))
        want.append(('kw', h(aes_key_wrap(key, data))))
        bits = rng.choice((256, 384, 512))
        alg = {256: hashes.SHA256(), 384: hashes.SHA384(), 512: hashes.SHA512()}[bits]
        ikm, salt, info = rng.randbytes(rng.randrange(0, 80)), rng.randbytes(
            rng.choice((0, 16, 32, 100))), rng.randbytes(rng.randrange(0, 40))
        length = rng.randrange(1, 200)
        lines.append('H %d %d %s %s %s' % (bits, length, h(ikm), h(salt), h(info)))
        want.append(('hkdf', h(HKDF(alg, length, salt or None, info).derive(ikm))))
    answers = driver_run(driver, lines)
    for name in ('gcm', 'cfb', 'kw', 'hkdf'):
        bad = [i for i, (n, w) in enumerate(want) if n == name and answers[i] != w]
        tap.check(not bad, '%s: %d random cases equal cryptography' % (name, layer),
                  '%d mismatches, first command: %s' % (len(bad), lines[bad[0]][:200])
                  if bad else None)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
