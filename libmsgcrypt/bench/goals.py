#!/usr/bin/env python3
"""goals.py: the goals of the libmsgcrypt benchmark, checked on the JSON lines
that run-bench.sh gathered (fastest record per bench, size and impl):

  - X448 and Ed448 (mc) within 1.5x of OpenSSL's time;
  - AES-256-OCB (mc, its default implementation) at least as fast as
    BoringSSL's AES-256-GCM on the same input, seal and open, 1 KiB and 1 MiB;
  - ML-KEM and ML-DSA (mc) at least as fast as the pq-crystals reference.

usage: goals.py FILE. Prints a Markdown table; a goal whose peer is missing
is "n/a". Exit status 0 whatever the outcome (a benchmark reports, the
reader judges), 2 when FILE holds no record.
"""
import json
import sys


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    best = {}
    with open(argv[0], encoding='utf-8') as f:
        for line in f:
            if not line.startswith('{'):
                continue
            rec = json.loads(line)
            key = (rec['bench'], int(rec['bytes']), rec['impl'])
            best[key] = min(best.get(key, float('inf')), float(rec['ns']))
    if not best:
        return 2
    ocb = 'mc-ocb-aesni' if any(k[2] == 'mc-ocb-aesni' for k in best) else 'mc-ocb'
    goals = []  # (bench, bytes, ours, peer, max allowed ours/peer time ratio)
    for b in ('x448-derive', 'ed448-sign', 'ed448-verify'):
        goals.append((b, 0, 'mc', 'openssl', 1.5))
    for b in ('aes256-aead-seal', 'aes256-aead-open'):
        for n in (1024, 1 << 20):
            goals.append((b, n, ocb, 'boringssl-gcm', 1.0))
    for lvl in (512, 768, 1024):
        for op in ('keygen', 'encaps', 'decaps'):
            goals.append((f'mlkem{lvl}-{op}', 0, 'mc', 'ref', 1.0))
    for lvl in (44, 65, 87):
        for op in ('keygen', 'sign', 'verify'):
            goals.append((f'mldsa{lvl}-{op}', 0, 'mc', 'ref', 1.0))
    print('### Goals (time of ours / time of the peer; met when at most the limit)\n')
    print('| bench | size | ours | peer | ours ns | peer ns | time ratio | limit | goal |')
    print('|---|---:|---|---|---:|---:|---:|---:|---|')
    met = total = 0
    for bench, n, ours, peer, limit in goals:
        a, b = best.get((bench, n, ours)), best.get((bench, n, peer))
        if a is None or b is None:
            verdict, ratio = 'n/a', ''
        else:
            total += 1
            ok = a / b <= limit
            met += ok
            verdict, ratio = ('met' if ok else 'NOT met'), f'{a / b:.2f}'
        print(f'| {bench} | {n} | {ours} | {peer} | {a or 0:.0f} | {b or 0:.0f} | {ratio} '
              f'| {limit} | {verdict} |')
    print(f'\n{met} of {total} measurable goals met.')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
