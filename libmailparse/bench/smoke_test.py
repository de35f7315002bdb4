#!/usr/bin/python3
"""smoke_test.py: the meson test "bench-mailparse-smoke" (TAP). It makes 50
messages with mkcorpus, runs bench_mailparse over them and the real messages
from Debian packages (our parser only, one round) and checks what the
benchmark reports: exit status 0, a full and a header record over every
message, consistent times and rates, our parser failing on no message and
decoding bodies, and a parse's memory beyond the message (the arena's peak)
within a small constant, the field classifier's self-check passing, and
--alone (each implementation timed in a process of its own) giving a record
for ours and for the memory floor.
mkcorpus is built after libmailparse (tools/ comes later in the build), so
its path is given, not a target: build it first.

usage: smoke_test.py BENCH_MAILPARSE MKCORPUS
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'tests', 'scripts'))
from corvid_tap import Tap  # noqa: E402

REAL = ('/usr/lib/python3.11/test/test_email/data/msg_*.txt',
        '/usr/share/gocode/src/github.com/jhillyerd/enmime/testdata/*/*.raw',
        '/usr/share/doc/spamassassin/examples/sample-*.txt')
COUNT = 50
PEAK_LIMIT = 64 * 1024  # bytes of arena for any one message


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bench, mkcorpus = argv
    tap = Tap()
    check = tap.check

    real = sorted(f for pattern in REAL for f in glob.glob(pattern))
    # The three Debian packages give 47 + 79 + 2 messages.
    check(len(real) >= 100, 'real messages from Debian packages found',
          f'{len(real)} found; install libpython3.11-testsuite, '
          'golang-github-jhillyerd-enmime-dev and spamassassin')
    if not os.access(mkcorpus, os.X_OK):
        check(False, 'mkcorpus built', f'{mkcorpus} missing: build tools/mkcorpus first')
        return tap.done()
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, 'corpus')
        gen = subprocess.run([mkcorpus, '--seed', '11', '--count', str(COUNT), '--format', 'eml',
                              '--max-size', '65536', '--out', corpus],
                             capture_output=True, text=True, timeout=60)
        made = len(os.listdir(corpus)) if os.path.isdir(corpus) else 0
        check(gen.returncode == 0 and made == COUNT, f'mkcorpus made {COUNT} messages',
              gen.stderr)
        run = subprocess.run([bench, '--impl', 'mailparse', '--rounds', '1', '--repeat', '2',
                              '--set', 'smoke', corpus] + real,
                             capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, 'bench_mailparse exits 0', run.stderr)
        # --alone: each round of each implementation in a child process.
        alone = subprocess.run([bench, '--impl', 'mailparse,memread', '--mode', 'full', '--rounds',
                                '2', '--alone', '--no-peak', '--set', 'smoke', corpus] + real,
                               capture_output=True, text=True, timeout=120)
        check(alone.returncode == 0, 'bench_mailparse --alone exits 0', alone.stderr)
    records = {}
    for line in run.stdout.splitlines():
        try:
            rec = json.loads(line)
            records[(rec['bench'], rec['impl'])] = rec
        except (ValueError, KeyError):
            check(False, 'every output line is a JSON record', line)
    total = made + len(real)
    for impl in ('mailparse', 'memread'):
        rec = None
        for line in alone.stdout.splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if r.get('bench') == 'full/smoke/alone' and r.get('impl') == impl:
                rec = r
        check(rec is not None and rec['items'] == total and rec['reps'] == 2 and
              0 < rec['ns'] <= rec['median_ns'],
              f'--alone: a record for {impl} over every message', alone.stdout + alone.stderr)
    for mode in ('full', 'headers', 'headers-typed'):
        rec = records.get((f'{mode}/smoke', 'mailparse'))
        check(rec is not None, f'{mode}: a record for our parser', run.stdout)
        if rec is None:
            continue
        # --repeat 2: two passes over every message in a round.
        check(rec['items'] == 2 * total, f'{mode}: every message measured',
              f'items {rec["items"]}, expected {2 * total}')
        check(rec['ns'] > 0 and rec['median_ns'] >= rec['ns'] and rec['mb_per_s'] > 0,
              f'{mode}: time and rates are consistent', rec)
        check(f'mailparse {mode:<7} fields' in run.stderr, f'{mode}: work summary printed',
              run.stderr)
    # ours_init compares mpb_field_class with its reference table on every
    # name, its other cases and its near misses before the first message.
    check(any(l.startswith('bench_mailparse: field classes checked on ') and l.endswith(', 0 wrong')
              for l in run.stderr.splitlines()),
          'field classifier agrees with its table', run.stderr)
    full, headers = records.get(('full/smoke', 'mailparse')), records.get(
        ('headers/smoke', 'mailparse'))
    if full and headers:
        check(headers['bytes'] < full['bytes'], 'the header sections are smaller than the messages',
              f'{headers["bytes"]} >= {full["bytes"]}')
    summaries = [l for l in run.stderr.splitlines() if l.startswith('bench_mailparse: mailparse')]
    check(len(summaries) == 3 and all(l.endswith('failed on 0') for l in summaries),
          'our parser failed on no message', '\n'.join(summaries) or run.stderr)
    leaf = [l for l in summaries if ' full ' in l]
    check(leaf and 'leaf parts 0,' not in leaf[0] and 'output 0 bytes' not in leaf[0],
          'full: bodies were decoded', '\n'.join(summaries))
    peak = records.get(('peak-memory/smoke', 'mailparse'))
    check(peak is not None and peak.get('messages') == total, 'peak memory measured for every message',
          peak)
    if peak is not None:
        check(0 < peak['overhead_max'] <= PEAK_LIMIT,
              f'peak arena per message within {PEAK_LIMIT} bytes', peak)
        check(peak['overhead_p50'] <= peak['overhead_p99'] <= peak['overhead_max'],
              'peak memory percentiles ordered', peak)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
