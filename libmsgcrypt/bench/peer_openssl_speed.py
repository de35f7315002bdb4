#!/usr/bin/env python3
"""peer_openssl_speed.py: the OpenSSL 3 peer of bench_msgcrypt, measured by
OpenSSL's own `openssl speed` in a separate process (so that its symbols never
meet BoringSSL's), its machine-readable output (-mr) turned into the JSON
lines of common/include/corvid_bench.h with impl "openssl" (X448, X25519,
Ed448, Ed25519) or "openssl-ocb"/"openssl-gcm" (AES-256 AEAD).

usage: peer_openssl_speed.py [--openssl PATH] [--seconds N] [--rounds N]

Each record is one operation, as bench_msgcrypt's are: `ns` is 1e9 divided
by OpenSSL's operations per second, `bytes` the payload (0 for public-key
operations). `openssl speed` divides by the CPU time of its process (user
time), not by the wall clock; with --rounds N it runs N times and each record
keeps its fastest run. AEAD figures come from `-aead -evp`, which times a
whole seal (nonce setup, 13 bytes of associated data, encryption, tag) per
operation. Exit status 1 when openssl is missing or prints nothing usable.
"""
import argparse
import json
import shutil
import subprocess
import sys

# Rows of bench_msgcrypt that OpenSSL's figures fill.
ECDH_BENCH = {'448': 'x448-derive', '253': 'x25519-derive'}
EDDSA_BENCH = {'Ed448': 'ed448', 'Ed25519': 'ed25519'}
AEADS = (('aes-256-ocb', 'openssl-ocb'), ('aes-256-gcm', 'openssl-gcm'))
AEAD_SIZES = (1024, 1 << 20)


def run(openssl, args):
    proc = subprocess.run([openssl, 'speed', '-mr'] + args, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        print(f'peer_openssl_speed: openssl speed {" ".join(args)} failed: '
              f'{proc.stderr.strip()[-300:]}', file=sys.stderr)
    return proc.stdout.splitlines()


def per_op_ns(ops_per_s):
    ops = float(ops_per_s)
    return 1e9 / ops if ops > 0 else None


def parse_public_key(lines):
    """+F5:<i>:<bits>:<ops/s>:<s/op> (ECDH); +F6:<i>:<bits>:<name>:<sign/s>:<verify/s>."""
    out = []
    for line in lines:
        f = line.split(':')
        if f[0] == '+F5' and len(f) >= 4 and f[2] in ECDH_BENCH:
            out.append((ECDH_BENCH[f[2]], 'openssl', 0, per_op_ns(f[3])))
        elif f[0] == '+F6' and len(f) >= 6 and f[3] in EDDSA_BENCH:
            out.append((EDDSA_BENCH[f[3]] + '-sign', 'openssl', 0, per_op_ns(f[4])))
            out.append((EDDSA_BENCH[f[3]] + '-verify', 'openssl', 0, per_op_ns(f[5])))
    return out


def parse_aead(lines, impl, size):
    """+F:<i>:<name>:<bytes/s> for the single size given with -bytes."""
    for line in lines:
        f = line.split(':')
        if f[0] == '+F' and len(f) >= 4 and float(f[3]) > 0:
            return [('aes256-aead-seal', impl, size, 1e9 * size / float(f[3]))]
    return []


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--openssl', default=shutil.which('openssl') or 'openssl')
    ap.add_argument('--seconds', type=int, default=1, help='seconds per measurement')
    ap.add_argument('--rounds', type=int, default=1, help='runs; each record keeps the fastest')
    args = ap.parse_args(argv)
    if shutil.which(args.openssl) is None:
        print('peer_openssl_speed: openssl not found (Debian package openssl)', file=sys.stderr)
        return 1
    secs = ['-seconds', str(args.seconds)]
    best = {}
    for _ in range(max(1, args.rounds)):
        recs = parse_public_key(
            run(args.openssl, secs + ['ed448', 'ed25519', 'ecdhx448', 'ecdhx25519']))
        for cipher, impl in AEADS:
            for size in AEAD_SIZES:
                recs += parse_aead(
                    run(args.openssl, secs + ['-bytes', str(size), '-aead', '-evp', cipher]),
                    impl, size)
        for bench, impl, nbytes, ns in recs:
            key = (bench, impl, nbytes)
            if ns is not None and (key not in best or ns < best[key]):
                best[key] = ns
    if not best:
        print('peer_openssl_speed: no figures in the output of openssl speed', file=sys.stderr)
        return 1
    for (bench, impl, nbytes), ns in best.items():
        print(json.dumps({'bench': bench, 'impl': impl, 'bytes': nbytes, 'items': 1,
                          'ns': round(ns), 'median_ns': round(ns), 'reps': max(1, args.rounds),
                          'mb_per_s': round(nbytes * 1e3 / ns, 2),
                          'items_per_s': round(1e9 / ns, 1)}, separators=(',', ':')))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
