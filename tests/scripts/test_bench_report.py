#!/usr/bin/env python3
"""Tests tools/bench-report on known input: fastest record wins, ratios are
baseline time over implementation time, junk lines are skipped, and empty
input is an error. usage: test_bench_report.py PATH-TO-bench-report (TAP)"""
import subprocess
import sys

from corvid_tap import Tap  # beside this script, which is on sys.path

report = sys.argv[1]
tap = Tap(tap_version=True)


def run(stdin, *args):
    return subprocess.run([sys.executable, report, *args], input=stdin,
                          capture_output=True, text=True)


def check(name, cond, detail=''):
    # str(): a failure shows its detail even when that is empty bytes or None.
    return tap.check(cond, name, str(detail))


lines = '\n'.join([
    'building...',
    '{"bench":"b64-decode","impl":"gmime","bytes":1048576,"items":1,"ns":2000000}',
    '{"bench":"b64-decode","impl":"avx2","bytes":1048576,"items":1,"ns":120000}',
    '{"bench":"b64-decode","impl":"avx2","bytes":1048576,"items":1,"ns":100000}',
    '{"bench":"qp-decode","impl":"gmime","bytes":4096,"items":1,"ns":8192}',
    '{"bench":"qp-decode","impl":"scalar","bytes":4096,"items":1,"ns":4096}',
    '{"broken json',
]) + '\n'
r = run(lines, '--baseline', 'gmime')
out = r.stdout
check('exit status 0 on good input', r.returncode == 0, r.stderr)
check('header lists impls in order of appearance', '| bench | size | gmime | avx2 | scalar |' in out, out)
check('fastest record is used and ratio is baseline/impl',
      '| b64-decode | 1 MiB | 524 MB/s (1.00x) | 10.49 GB/s (20.00x) |  |' in out, out)
check('ratios for a second bench', '| qp-decode | 4 KiB | 500 MB/s (1.00x) |  | 1.00 GB/s (2.00x) |' in out, out)
r = run('nothing here\n', '--baseline', 'gmime')
check('no records is exit status 2', r.returncode == 2 and 'no benchmark records' in r.stderr, r.stderr)
r = run(lines, '--baseline', 'missing')
check('unknown baseline warns but still prints', r.returncode == 0 and 'warning' in r.stderr and '(' not in r.stdout.split('\n')[2], r.stderr)

sys.exit(tap.done())
