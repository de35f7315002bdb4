#!/usr/bin/env python3
"""goals.py: the goals of the libmsgcrypt benchmark, checked on the JSON lines
that run-bench.sh gathered (fastest record per bench, size and impl):

  - X448 and Ed448 (mc) within 1.5x of OpenSSL's time;
  - AES-256-OCB (mc, its default implementation) at least as fast as
    BoringSSL's AES-256-GCM on the same input, seal and open, 1 KiB and 1 MiB;
  - ML-KEM and ML-DSA (mc) at least as fast as the pq-crystals reference;
  - OpenPGP encryption (bench_pgp, peer_rnp): at 10 KiB at least 3x librnp's
    message rate for every key type librnp reads; at 1 MiB at least 90% of
    the raw AES-256 throughput measured in the same run, OCB for the key types
    that get SEIPDv2 and CFB for those that get SEIPDv1 (PGP_FORMATS below,
    which bench_pgp prints on stderr);
  - S/MIME encryption (bench_cms, peer_openssl_cms): at 10 KiB at least 2x
    OpenSSL's CMS_encrypt message rate for every certificate type OpenSSL 3.0
    encrypts to; at 1 MiB at least 90% of the raw AES-256 throughput measured
    in the same run, CBC or GCM as the engine picks for the type (CMS_CONTENT
    below, which bench_cms prints on stderr).

usage: goals.py FILE. Prints a Markdown table; a goal whose peer is missing
is "n/a". Exit status 0 whatever the outcome (a benchmark reports, the
reader judges), 2 when FILE holds no record.
"""
import json
import sys

# The format bench_pgp reports for each recipient key type (stderr "format").
PGP_FORMATS = {'rsa3072': 'cfb', 'p256': 'cfb', 'cv25519': 'cfb', 'x25519v6': 'ocb',
               'mlkem768x25519': 'ocb'}
# The content encryption bench_cms reports for each certificate type (stderr
# "content"): EnvelopedData AES-256-CBC, or AuthEnvelopedData AES-256-GCM for
# ML-KEM (RFC 9936).
CMS_CONTENT = {'rsa3072-pkcs1': 'cbc', 'rsa3072-oaep': 'cbc', 'p256': 'cbc', 'x25519': 'cbc',
               'mlkem768': 'gcm'}


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
    impls = {k[2] for k in best}
    ocb = next((i for i in ('mc-ocb-vaes', 'mc-ocb-aesni') if i in impls), 'mc-ocb')
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
    for name, fmt in PGP_FORMATS.items():
        b = f'pgp-encrypt-{name}'
        goals.append((b, 10240, 'mc', 'rnp', 1 / 3))
        raw = 'aes256-ocb' if fmt == 'ocb' else 'aes256-cfb'
        # The raw cipher's record is moved into this row (see below).
        goals.append((b, 1 << 20, 'mc', raw, 1 / 0.9))
        for (rb, rn, ri), ns in list(best.items()):
            if rb == 'pgp-raw-aes256' and ri == raw:
                best[(b, rn, raw)] = ns
    for name, content in CMS_CONTENT.items():
        b = f'cms-encrypt-{name}'
        goals.append((b, 10240, 'mc', 'openssl', 1 / 2))
        raw = 'aes256-' + content
        goals.append((b, 1 << 20, 'mc', raw, 1 / 0.9))
        for (rb, rn, ri), ns in list(best.items()):
            if rb == 'cms-raw-aes256' and ri == raw:
                best[(b, rn, raw)] = ns
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
              f'| {limit:.3g} | {verdict} |')
    print(f'\n{met} of {total} measurable goals met.')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
