#!/usr/bin/python3
"""goals.py: reads the JSON lines of bench_mailparse and peer_python.py and
either rewrites them for tools/bench-report (--normalize) or prints the
ratio table of libmailparse against every peer with the goals of issue #4.

usage: goals.py --normalize FILE...   JSON lines on stdout
       goals.py FILE...               Markdown tables on stdout

Rows named "<mode>/<set>/alone" (bench_mailparse --alone: every
implementation timed in a process of its own) are checked against the same
goals as the interleaved "<mode>/<set>" rows; README.md "Method" says why
both are printed.

Both use the MEDIAN round of every record (`median_ns`), not the fastest:
the rounds of bench_mailparse interleave the implementations, and the median
is what a noisy shared machine disturbs least. A record measured over other
bytes than the row's first record (Python over a sample of a large set, or an
implementation that failed on some messages) is scaled to that record's byte
count, so its ratio is one of MB/s. Ratios are peer time / our time: "25.0x"
means libmailparse is 25 times faster. Exit status 1 when a goal is missed,
2 on a usage error or without records.
"""
import json
import sys

OURS = 'mailparse'

# (mode, peer, least ratio) from issue #4; peak memory is checked apart.
GOALS = [
    ('full', 'gmime', 25), ('full', 'libetpan', 25), ('full', 'vmime', 25),
    ('full', 'dovecot', 12), ('headers', 'gmime', 30),
]

# A parse's memory beyond the message must be a small constant: at most
# this many bytes of arena for any message (the largest are 10 MB).
PEAK_LIMIT = 64 * 1024


def load(paths):
    rows = {}   # bench -> {'bytes': ref bytes, 'items': n, 'impls': {impl: ns}}
    order = []  # bench names in order of appearance
    peaks = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            for line in f:
                line = line.strip()
                if not line.startswith('{'):
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    continue
                if str(rec.get('bench', '')).startswith('peak-memory/'):
                    peaks.append(rec)
                    continue
                if 'median_ns' not in rec or 'bytes' not in rec:
                    continue
                bench, impl = rec['bench'], rec['impl']
                nbytes, ns = int(rec['bytes']), float(rec['median_ns'])
                if nbytes <= 0 or ns <= 0:
                    continue
                row = rows.get(bench)
                if row is None:
                    row = rows[bench] = {'bytes': nbytes, 'items': int(rec['items']), 'impls': {}}
                    order.append(bench)
                ns *= row['bytes'] / nbytes
                if impl not in row['impls'] or ns < row['impls'][impl]:
                    row['impls'][impl] = ns
    return rows, order, peaks


def normalize(rows, order):
    for bench in order:
        row = rows[bench]
        for impl, ns in row['impls'].items():
            print(json.dumps({'bench': bench, 'impl': impl, 'bytes': row['bytes'],
                              'items': row['items'], 'ns': round(ns)}))


def report(rows, order, peaks):
    missed = 0
    impls = []
    for bench in order:
        for impl in rows[bench]['impls']:
            if impl != OURS and impl not in impls:
                impls.append(impl)
    print('| bench | ours msg/s | ours MB/s | ' + ' | '.join(f'vs {i}' for i in impls) + ' |')
    print('|---|---:|---:|' + '---:|' * len(impls))
    for bench in order:
        row = rows[bench]
        ours = row['impls'].get(OURS)
        if ours is None:
            continue
        mode = bench.split('/')[0]
        cells = []
        for impl in impls:
            ns = row['impls'].get(impl)
            if ns is None:
                cells.append('')
                continue
            ratio = ns / ours
            cell = f'{ratio:.1f}x'
            for gmode, gpeer, least in GOALS:
                if gmode == mode and gpeer == impl:
                    ok = ratio >= least
                    missed += not ok
                    cell += f' ({"met" if ok else "MISSED"}: {least}x)'
            cells.append(cell)
        print(f'| {bench} | {row["items"] * 1e9 / ours:,.0f} | {row["bytes"] * 1e3 / ours:,.0f} | '
              + ' | '.join(cells) + ' |')
    print()
    if peaks:
        print('| peak memory (arena beyond the message) | messages | max | p99 | p50 | '
              'largest arena / its message | goal |')
        print('|---|---:|---:|---:|---:|---:|---|')
        for p in peaks:
            ok = int(p['overhead_max']) <= PEAK_LIMIT
            missed += not ok
            print(f'| {p["bench"]} | {p["messages"]} | {p["overhead_max"]} B | '
                  f'{p["overhead_p99"]} B | {p["overhead_p50"]} B | '
                  f'{p["overhead_max"]} B / {p["overhead_max_message_bytes"]} B | '
                  f'{"met" if ok else "MISSED"}: <= {PEAK_LIMIT} B |')
        print()
    print('Ratios: peer median time / our median time on the same messages '
          '(higher: ours faster).')
    return 1 if missed else 0


def main(argv):
    norm = bool(argv) and argv[0] == '--normalize'
    paths = argv[1:] if norm else argv
    if not paths or any(p.startswith('-') for p in paths):
        print(__doc__, file=sys.stderr)
        return 2
    rows, order, peaks = load(paths)
    if not rows:
        print('goals.py: no benchmark records', file=sys.stderr)
        return 2
    if norm:
        normalize(rows, order)
        return 0
    return report(rows, order, peaks)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
