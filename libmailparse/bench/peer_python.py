#!/usr/bin/python3
"""peer_python.py: the slow reference of bench_mailparse, Python's email
package (Debian's /usr/bin/python3, policy=default), doing the same work on
the same messages and printing the same JSON lines (common/include/
corvid_bench.h) with impl "python-email".

usage: peer_python.py [--mode full|headers|headers-typed|both|all] [--rounds N] [--repeat N]
                      [--set NAME] FILE|DIR...

full: email.message_from_bytes(msg, policy=default); for every part that
msg.walk() visits (it descends into multiparts and message/rfc822), every
header field through part.items(), which builds the typed header object of
the field's class from email.headerregistry (AddressHeader, DateHeader,
ContentTypeHeader, ContentDispositionHeader, MessageIDHeader, and
UnstructuredHeader with RFC 2047 decoding for the rest); then every leaf
body with part.get_content(): bytes with the transfer encoding removed, and
for text parts a str decoded from the part's charset (an unknown charset
falls back to get_payload(decode=True) read as UTF-8 with replacement).
headers: the top-level header section only (up to the empty line that ends
it) through email.parser.BytesHeaderParser(policy=default), and every
field's name and raw value from msg.raw_items() (nothing typed).
headers-typed: the same header section through message_from_bytes, every
field typed as in full. Files are read in the order
bench_mailparse reads them (directories walked in name order, names
starting with '.' skipped). A round times one pass over the set; `ns` is the
fastest round and `median_ns` the median, as in bench_mailparse.
"""
import argparse
import email
import email.parser
import email.policy
import os
import sys
import time


def collect(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            names = sorted(n for n in os.listdir(p) if not n.startswith('.'))
            out.extend(collect([os.path.join(p, n) for n in names]))
        elif os.path.isfile(p):
            out.append(p)
        else:
            raise SystemExit(f'peer_python.py: {p}: not found')
    return out


def header_len(data):
    """The top-level header section with its empty line (bench_mailparse's rule)."""
    if data.startswith(b'\n'):
        return 1
    if data.startswith(b'\r\n'):
        return 2
    i = 0
    while True:
        i = data.find(b'\n', i)
        if i < 0 or i + 1 >= len(data):
            return len(data)
        if data[i + 1:i + 2] == b'\n':
            return i + 2
        if data[i + 1:i + 3] == b'\r\n':
            return i + 3
        i += 1


POLICY = email.policy.default


def run_full(data):
    msg = email.message_from_bytes(data, policy=POLICY)
    fields = parts = out = 0
    for part in msg.walk():
        for _, value in part.items():
            fields += 1
            out += len(str(value))
        if part.is_multipart():
            continue
        try:
            content = part.get_content()
        except (LookupError, KeyError, ValueError, AssertionError):
            payload = part.get_payload(decode=True) or b''
            content = payload.decode('utf-8', 'replace') if part.get_content_maintype() == 'text' else payload
        parts += 1
        out += len(content) if isinstance(content, (str, bytes)) else 0
    return fields, parts, out


def run_index(data):
    """Header-only: BytesHeaderParser (the header section split into fields,
    nothing typed) and every field's name and raw value."""
    msg = email.parser.BytesHeaderParser(policy=POLICY).parsebytes(data)
    fields = out = 0
    for name, value in msg.raw_items():
        fields += 1
        out += len(name) + len(value)
    return fields, 0, out


def run_headers(data):
    msg = email.message_from_bytes(data, policy=POLICY)
    fields = out = 0
    for _, value in msg.items():
        fields += 1
        out += len(str(value))
    return fields, 0, out


def measure(msgs, mode, rounds, repeat, set_name, impl):
    run = {'full': run_full, 'headers': run_index, 'headers-typed': run_headers}[mode]
    inputs = [m if mode == 'full' else m[:header_len(m)] for m in msgs]
    totals = [0, 0, 0]
    kept = []
    for data in inputs:  # the untimed check pass, as in bench_mailparse
        try:
            result = run(data)
        except Exception as e:  # a message the package cannot handle
            print(f'peer_python.py: {impl} failed on a message ({type(e).__name__}: {e}): '
                  'left out', file=sys.stderr)
            continue
        kept.append(data)
        for i, v in enumerate(result):
            totals[i] += v
    inputs = kept
    print(f'peer_python.py: {impl} {mode}: fields {totals[0]}, leaf parts {totals[1]}, '
          f'output {totals[2]} characters/bytes, failed on {len(msgs) - len(kept)}',
          file=sys.stderr)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter_ns()
        for _ in range(repeat):
            for data in inputs:
                run(data)
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) // 2
    nbytes = sum(len(d) for d in inputs) * repeat
    items = len(inputs) * repeat
    ns = max(samples[0], 1)
    print(f'{{"bench":"{mode}/{set_name}","impl":"{impl}","bytes":{nbytes},"items":{items},'
          f'"ns":{samples[0]},"median_ns":{median},"reps":{n},'
          f'"mb_per_s":{nbytes * 1e3 / ns:.2f},"items_per_s":{items * 1e9 / ns:.1f}}}',
          flush=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mode', choices=('full', 'headers', 'headers-typed', 'both', 'all'),
                    default='all')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--set', default='set', dest='set_name')
    ap.add_argument('paths', nargs='+')
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.repeat < 1:
        ap.error('--rounds and --repeat must be at least 1')
    msgs = []
    for p in collect(args.paths):
        with open(p, 'rb') as f:
            msgs.append(f.read())
    impl = 'python-email'
    for mode in ('full', 'headers', 'headers-typed'):
        if args.mode in (mode, 'all') or (args.mode == 'both' and mode != 'headers-typed'):
            measure(msgs, mode, args.rounds, args.repeat, args.set_name, impl)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
