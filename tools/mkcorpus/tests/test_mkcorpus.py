#!/usr/bin/python3
"""test_mkcorpus.py: checks the mkcorpus command on its own and prints TAP.

Usage: test_mkcorpus.py MKCORPUS

check_corpus.py judges the mail a large corpus holds; this script judges the
tool around it, on corpora of a few hundred messages:

1. Output formats: the same seed and options give identical bytes in eml,
   Maildir and mbox, another seed other bytes; each format holds exactly
   COUNT messages that Python's email package parses without a defect;
   Maildir names and mbox From_ lines agree with the Date and From fields
   they are derived from; --max-size is honoured down to its minimum.
2. --stats against the messages: every figure that can be recomputed by
   parsing the written files (count, bytes, size percentiles and mean, the
   histogram, MIME shapes, leaf transfer encodings, text and RFC 2047
   charsets, threads, replies, attachments, inline images) is recomputed
   here and must match exactly; the report is the same for every format and
   for `--out -`, where it goes to stdout and nothing is written.
3. Usage and write errors: exact exit status and message, and nothing
   written, for missing or bad values and unknown options; a zero count,
   which is valid and writes an empty corpus; paths that cannot be created,
   /dev/full, and a Maildir rename that fails.
4. Faults this script found, fixed in the same change (check_found): a
   count of " -1", an empty distribution (qsort of NULL), a report to a full
   device, and a text attachment's final CRLF lost to the boundary.
"""
import collections
import email
import email.policy
import email.utils
import fractions
import math
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tests', 'scripts'))
import corvid_tap  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_corpus import tree  # noqa: E402  (relative path -> bytes of a tree)

# Small enough for ASan, large enough to hold every MIME shape and threads.
STATS_COUNT = 300
FORMAT_COUNT = 60
# Above 4 x the 64 KiB reserve, so the attachment budget is max - 64 KiB.
MAX_SIZE = 300000
MIN_MAX_SIZE = 16384
DEFAULT_MAX_SIZE = 10485760
# Over 10^6, so the Maildir name's P part (seed mod 10^6) differs from it.
SEED = 1234567
TIMEOUT = 120

ENCODED_WORD = re.compile(r'=\?([^?\s]+)\?[BbQq]\?[^?\s]*\?=')
PERCENTILES = ('10', '25', '50', '75', '90', '99', '99.9')
SHAPE_LABELS = ('text/plain', 'text/html only', 'multipart/alternative',
                'multipart/mixed (attachments)', 'multipart/related (inline images)',
                'forwarded message/rfc822', 'multipart/signed (OpenPGP)',
                'multipart/signed (S/MIME)')
STATS_SECTIONS = ('mkcorpus statistics', 'message size', 'size histogram', 'MIME shape',
                  'transfer encoding', 'charset (text parts)', 'charset (RFC 2047', 'language',
                  'threads', 'attachments', 'attachment size', 'charset fallbacks')
THREAD_BUCKETS = (('1', 1), ('2', 2), ('3-4', 4), ('5-9', 9), ('10-19', 19), ('20-49', 49),
                  ('50-100', 100))


def run(binary, args, cwd=None, timeout=TIMEOUT):
    return subprocess.run([binary] + args, capture_output=True, cwd=cwd, timeout=timeout)


def corpus_args(seed, count, fmt, out, max_size=MAX_SIZE, stats=False):
    args = ['--seed', str(seed), '--count', str(count), '--out', out]
    if fmt:
        args += ['--format', fmt]
    if max_size:
        args += ['--max-size', str(max_size)]
    if stats:
        args.append('--stats')
    return args


def split_mbox(data):
    """[(From_ line, message in CRLF form)] of an mboxrd file, unquoted."""
    messages = []
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    for line in lines:
        if line.startswith(b'From '):
            messages.append((line, []))
        elif messages:
            messages[-1][1].append(line[1:] if re.match(rb'^>+From ', line) else line)
    # Each message ends with one empty separator line, which is not part of it.
    return [(envelope, b''.join(line + b'\r\n' for line in body[:-1]))
            for envelope, body in messages if body and body[-1] == b'']


def parse(data):
    return email.message_from_bytes(data, policy=email.policy.default)


def defects(msg):
    """Every defect Python records, in any part or parsed header field."""
    found = []
    for part in msg.walk():
        for name, value in part.items():
            found += [f'{name}: {type(d).__name__}' for d in value.defects]
        found += [f'{part.get_content_type()}: {type(d).__name__}' for d in part.defects]
    return found


def unix_date(msg):
    return int(email.utils.parsedate_to_datetime(str(msg['Date'])).timestamp())


def nearest_rank(sorted_values, p):
    """The nearest-rank percentile, computed in exact arithmetic."""
    if not sorted_values:
        return 0
    rank = math.ceil(fractions.Fraction(p) * len(sorted_values) / 100)
    return sorted_values[max(rank, 1) - 1]


def distribution_line(what, values):
    v = sorted(values)
    fields = [f'n={len(v)}', f'min={v[0] if v else 0}']
    fields += [f'p{p}={nearest_rank(v, p)}' for p in PERCENTILES]
    fields += [f'max={v[-1] if v else 0}', f'mean={sum(v) / len(v) if v else 0:.0f}']
    return f'{what}: ' + ' '.join(fields)


def share(part, whole):
    return f'{100 * part / whole:.2f}' if whole else '0.00'


def histogram(sizes):
    """[(label, count)] in power-of-two buckets from 1 KiB up to the largest size."""
    buckets, lo, hi, left = [], 0, 1024, sorted(sizes)
    while left:
        n = sum(1 for s in left if s < hi)
        left = left[n:]
        if lo == 0:
            label = f'< {hi // 1024} KiB'
        elif lo < 1 << 20:
            label = f'{lo // 1024}-{hi // 1024} KiB'
        else:
            label = f'{lo >> 20}-{hi >> 20} MiB'
        buckets.append((label, n))
        lo, hi = hi, hi * 2
    return buckets


def mime_leaves(msg):
    """Parts mkcorpus counts as leaves: non-multipart parts, and message/rfc822
    parts as a whole (their contents are walked as well)."""
    for part in msg.walk():
        if not part.is_multipart() or part.get_content_type() == 'message/rfc822':
            yield part


def messages_within(msg):
    """The message and every message/rfc822 one inside it."""
    yield msg
    for part in msg.walk():
        if part is not msg and part.get_content_type() == 'message/rfc822':
            yield part.get_payload(0)


def shape_of(msg):
    ctype = msg.get_content_type()
    kinds = [p.get_content_type() for p in msg.iter_parts()] if msg.is_multipart() else []
    if ctype == 'text/plain':
        return 'text/plain'
    if ctype == 'text/html':
        return 'text/html only'
    if ctype == 'multipart/alternative':
        # alternative{plain, related{html, images}} is the non-Outlook related layout.
        if 'multipart/related' in kinds:
            return 'multipart/related (inline images)'
        return 'multipart/alternative'
    if ctype == 'multipart/related':
        return 'multipart/related (inline images)'
    if ctype == 'multipart/mixed':
        if 'message/rfc822' in kinds:
            return 'forwarded message/rfc822'
        return 'multipart/mixed (attachments)'
    if ctype == 'multipart/signed':
        if msg.get_param('protocol') == 'application/pgp-signature':
            return 'multipart/signed (OpenPGP)'
        if msg.get_param('protocol') == 'application/pkcs7-signature':
            return 'multipart/signed (S/MIME)'
    return f'unexpected {ctype}'


def split_addresses(raw):
    """Mailboxes of a raw address field, split at commas outside quotes."""
    items, current, quoted, escaped = [], '', False, False
    for c in raw:
        if escaped:
            escaped = False
        elif c == '\\':
            escaped = True
        elif c == '"':
            quoted = not quoted
        elif c == ',' and not quoted:
            items.append(current)
            current = ''
            continue
        current += c
    return items + [current]


def encoded_charsets(msg):
    """Charsets of RFC 2047 text as mkcorpus counts it: once per encoded
    display name in an address field, once per encoded Subject or
    Thread-Topic, in the message and in forwarded ones."""
    found = []
    for inner in messages_within(msg):
        for name, raw in inner.raw_items():
            lname = name.lower()
            if lname in ('from', 'reply-to', 'to', 'cc'):
                units = split_addresses(raw)
            elif lname in ('subject', 'thread-topic'):
                units = [raw]
            else:
                continue
            for unit in units:
                m = ENCODED_WORD.search(unit)
                if m:
                    found.append(m.group(1).lower())
    return found


class Corpus:
    """What the written messages contain, recomputed by parsing them."""

    def __init__(self, messages):
        self.sizes = [len(m) for m in messages]
        self.shapes = collections.Counter()
        self.ctes = collections.Counter()
        self.charsets = collections.Counter()
        self.ew_charsets = collections.Counter()
        self.thread_sizes = collections.Counter()
        self.replies = 0
        self.attachment_sizes = []
        self.attachment_text_sizes = []  # those not in base64
        self.with_attachments = 0
        self.non_ascii_names = 0
        self.inline_images = 0
        self.defects = []
        for index, data in enumerate(messages):
            msg = parse(data)
            self.defects += [f'message {index + 1}: {d}' for d in defects(msg)]
            self.shapes[shape_of(msg)] += 1
            self.ew_charsets.update(encoded_charsets(msg))
            references = str(msg.get('references', '')).split()
            self.thread_sizes[references[0] if references else str(msg['message-id'])] += 1
            self.replies += msg.get('in-reply-to') is not None
            attachments = 0
            for part in mime_leaves(msg):
                self.ctes[part.get('content-transfer-encoding', '7bit').lower()] += 1
                ctype = part.get_content_type()
                disposition = part.get_content_disposition()
                if part.get_content_maintype() == 'text' and disposition is None:
                    self.charsets[part.get_content_charset()] += 1
                elif part.get_content_maintype() == 'image' and disposition == 'inline':
                    self.inline_images += 1
                elif disposition == 'attachment' and ctype not in (
                        'message/rfc822', 'application/pgp-signature',
                        'application/pkcs7-signature'):
                    attachments += 1
                    size = len(part.get_payload(decode=True))
                    self.attachment_sizes.append(size)
                    if part.get('content-transfer-encoding', '').lower() != 'base64':
                        self.attachment_text_sizes.append(size)
                    self.non_ascii_names += not part.get_filename().isascii()
            self.with_attachments += attachments > 0


def parse_stats(text):
    """The --stats report as ({section: its first line}, {section: [(label,
    count, percent)]} of the indented table below it), sections named by
    STATS_SECTIONS; an unknown line is a section of its own."""
    lines, tables, current = {}, {}, None
    for line in text.splitlines():
        if line.startswith('  '):
            m = re.match(r'^  (.+?)\s+(\d+)(?: threads)? +(\d+\.\d\d)%', line)
            if current is not None and m:
                tables[current].append((m.group(1), int(m.group(2)), m.group(3)))
            continue
        current = next((k for k in STATS_SECTIONS if line.startswith(k)), line)
        lines[current] = line
        tables[current] = []
    return lines, tables


def check_table(tap, name, table, title_line, expected):
    """A table of counts: exactly the non-zero expected entries, in any order,
    with their shares of the total the title states."""
    total = sum(expected.values())
    got = {label: count for label, count, _ in table}
    want = {label: count for label, count in expected.items() if count}
    tap.check(got == want and title_line.endswith(f'({total}):'),
              f'--stats {name} counts match the messages',
              f'stats: {title_line} {sorted(got.items())}\nfiles: {total} {sorted(want.items())}')
    bad = [(label, pct) for label, count, pct in table if pct != share(count, total)]
    tap.check(not bad, f'--stats {name} shares are count / total', str(bad))


def check_formats(tap, binary, tmp):
    out, stats = {}, {}
    for fmt in ('eml', 'maildir', 'mbox'):
        for run_name in ('a', 'b'):
            path = os.path.join(tmp, f'{fmt}-{run_name}')
            r = run(binary, corpus_args(SEED, FORMAT_COUNT, fmt, path, stats=True))
            tap.check(r.returncode == 0 and r.stdout == b'' and r.stderr.startswith(
                b'mkcorpus statistics: '), f'{fmt} run {run_name}: exit 0, --stats on stderr only',
                f'exit {r.returncode}, stdout {r.stdout[:200]!r}, stderr {r.stderr[:200]!r}')
            out[fmt, run_name] = tree(path)
            stats[fmt, run_name] = r.stderr
        tap.check(out[fmt, 'a'] == out[fmt, 'b'] and len(out[fmt, 'a']) > 0,
                  f'{fmt}: two runs with the same seed and options give identical bytes')
        other = os.path.join(tmp, f'{fmt}-other')
        run(binary, corpus_args(SEED + 1, FORMAT_COUNT, fmt, other)).check_returncode()
        differs = tree(other)
        if fmt == 'maildir':  # names hold the date, which the seed moves
            same = set(differs.values()) & set(out[fmt, 'a'].values())
        else:
            same = {k for k, v in differs.items() if out[fmt, 'a'].get(k) == v}
        tap.check(len(differs) > 0 and not same, f'{fmt}: another seed gives other bytes',
                  f'{len(same)} files identical')
    dry = run(binary, corpus_args(SEED, FORMAT_COUNT, None, '-', stats=True), cwd=tmp)
    tap.check(all(s == stats['eml', 'a'] for s in stats.values()) and dry.stdout == stats['eml', 'a'],
              '--stats is the same for every format, every run, and --out -')

    eml = out['eml', 'a']
    names = [f'{i:06d}.eml' for i in range(1, FORMAT_COUNT + 1)]
    tap.check(sorted(eml) == names, f'eml: exactly {FORMAT_COUNT} files 000001.eml ...',
              ' '.join(sorted(eml)[:5]))
    messages = [eml[n] for n in names]
    problems = [f'{n}: {d}' for n in names for d in defects(parse(eml[n]))]
    problems += [f'{n}: bare LF or CR' for n in names
                 if eml[n].replace(b'\r\n', b'').count(b'\n') + eml[n].replace(b'\r\n', b'').count(b'\r')]
    tap.check(not problems, 'eml: every message parses without a defect, in CRLF form',
              '\n'.join(problems[:10]))

    maildir = out['maildir', 'a']
    name_re = re.compile(r'^(cur|new)/(\d+)\.M(\d+)P(\d+)\.mkcorpus,S=(\d+)(?::2,([A-Z]*))?$')
    wrong = []
    by_index = {}
    for name, data in maildir.items():
        m = name_re.match(name)
        if not m:
            wrong.append(f'{name}: not time.M<index>P<seed>.mkcorpus,S=<size>')
            continue
        index = int(m.group(3))
        by_index[index] = data
        if int(m.group(2)) != unix_date(parse(data)):
            wrong.append(f'{name}: time is not the Date field {parse(data)["Date"]}')
        if m.group(4) != str(SEED % 1000000) or int(m.group(5)) != len(data):
            wrong.append(f'{name}: P is not seed mod 10^6 or S= is not {len(data)}')
        if (m.group(1) == 'new') != (m.group(6) is None):
            wrong.append(f'{name}: new/ has no :2, info, cur/ has it')
    tap.check(not wrong and sorted(by_index) == list(range(FORMAT_COUNT)) and
              [by_index[i] for i in range(FORMAT_COUNT)] == messages and
              not os.listdir(os.path.join(tmp, 'maildir-a', 'tmp')),
              f'maildir: {FORMAT_COUNT} messages, the .eml bytes, named from Date, index, '
              'seed and size, tmp/ empty', '\n'.join(wrong[:10]))

    mbox = split_mbox(out['mbox', 'a'][''])
    wrong = []
    for i, (envelope, data) in enumerate(mbox):
        msg = parse(data)
        if msg['From'] is None or msg['Date'] is None:
            wrong.append(f'message {i + 1}: no From or Date field')
            continue
        want = ('From %s %s' % (msg['From'].addresses[0].addr_spec,
                                time.asctime(time.gmtime(unix_date(msg))))).encode()
        if envelope != want:
            wrong.append(f'message {i + 1}: {envelope!r}, not {want!r}')
    tap.check(b'\r' not in out['mbox', 'a'][''] and [d for _, d in mbox] == messages and not wrong,
              f'mbox: LF only, {FORMAT_COUNT} messages (the .eml bytes after unquoting), '
              'From_ lines give the sender and the Date in UTC',
              f'{len(mbox)} messages\n' + '\n'.join(wrong[:10]))


def check_max_size(tap, binary, tmp):
    # At the minimum the attachment budget is 8 KiB and big texts must be
    # regenerated smaller; at 40000 clamping the attachments is enough.
    for limit, shrinks in ((MIN_MAX_SIZE, True), (40000, False)):
        path = os.path.join(tmp, f'max-{limit}')
        r = run(binary, corpus_args(SEED, FORMAT_COUNT, 'eml', path, max_size=limit, stats=True))
        sizes = [len(d) for d in tree(path).values()]
        lines, _ = parse_stats(r.stderr.decode())
        shrunk = re.search(r'shrunk to fit --max-size: (\d+)$', lines.get('charset fallbacks', ''))
        tap.check(r.returncode == 0 and len(sizes) == FORMAT_COUNT and max(sizes) <= limit and
                  shrunk and (0 < int(shrunk.group(1)) <= FORMAT_COUNT) == shrinks,
                  f'--max-size {limit}: {FORMAT_COUNT} messages, none larger, '
                  + ('some' if shrinks else 'none') + ' shrunk',
                  f'exit {r.returncode}, {len(sizes)} messages, largest {max(sizes or [0])}, '
                  f'{lines.get("charset fallbacks")}')
    # The default limit needs no regeneration (README); --out - costs no disk.
    r = run(binary, corpus_args(SEED, FORMAT_COUNT * 2, None, '-', max_size=None, stats=True))
    lines, _ = parse_stats(r.stdout.decode())
    largest = re.search(r' max=(\d+) ', lines.get('message size', ''))
    tap.check(r.returncode == 0 and lines.get('charset fallbacks', '').endswith(
        'shrunk to fit --max-size: 0') and largest and int(largest.group(1)) <= DEFAULT_MAX_SIZE,
        f'default --max-size {DEFAULT_MAX_SIZE}: nothing shrunk, nothing larger',
        f'{lines.get("message size")}\n{lines.get("charset fallbacks")}')


def check_stats(tap, binary, tmp):
    path = os.path.join(tmp, 'stats')
    r = run(binary, corpus_args(SEED, STATS_COUNT, 'eml', path, stats=True))
    tap.check(r.returncode == 0, f'{STATS_COUNT} messages with --stats', r.stderr[-500:])
    files = tree(path)
    corpus = Corpus([files[n] for n in sorted(files)])
    lines, tables = parse_stats(r.stderr.decode())
    n = len(corpus.sizes)

    tap.check(n == STATS_COUNT and not corpus.defects,
              f'{STATS_COUNT} written messages parse without a defect',
              f'{n} messages\n' + '\n'.join(corpus.defects[:10]))
    tap.check(set(corpus.shapes) <= set(SHAPE_LABELS),
              'every message has one of the eight shapes', str(corpus.shapes))
    want = (f'mkcorpus statistics: seed {SEED}, {n} messages, {sum(corpus.sizes)} bytes '
            '(CRLF form)')
    tap.check(lines.get('mkcorpus statistics') == want, '--stats seed, message count and bytes',
              f'stats: {lines.get("mkcorpus statistics")}\nfiles: {want}')
    want = distribution_line('message size', corpus.sizes)
    tap.check(lines.get('message size') == want,
              '--stats message size min, nearest-rank percentiles, max and mean',
              f'stats: {lines.get("message size")}\nfiles: {want}')
    hist = [(label, count) for label, count, _ in tables.get('size histogram', [])]
    tap.check(hist == histogram(corpus.sizes),
              '--stats size histogram: every power-of-two bucket up to the largest message',
              f'stats: {hist}\nfiles: {histogram(corpus.sizes)}')

    # Bucket edges are exclusive: message 743 of seed 3 is exactly 8192
    # bytes (the byte totals of 742 and 743 messages differ by its size).
    edge = {}
    for count in (742, 743):
        dry = run(binary, corpus_args(3, count, None, '-', stats=True))
        edge[count] = parse_stats(dry.stdout.decode())
    totals = [re.search(r' (\d+) bytes', edge[c][0].get('mkcorpus statistics', ' 0 bytes'))
              for c in (742, 743)]
    size = int(totals[1].group(1)) - int(totals[0].group(1)) if all(totals) else 0
    before, after = (collections.Counter({label: count for label, count, _ in
                                          edge[c][1].get('size histogram', [])})
                     for c in (742, 743))
    after.subtract(before)
    if size & (size - 1):
        tap.note(f'message 743 of seed 3 is no longer a power of two ({size} bytes): '
                 'pick another for the bucket edge case')
    tap.check(size > 0 and +after == collections.Counter({histogram([size])[-1][0]: 1}),
              f'--stats size histogram: a message of {size} bytes counts in '
              f'{histogram([size])[-1][0] if size else "?"}', f'difference {dict(+after)}')

    check_table(tap, 'MIME shape', tables.get('MIME shape', []),
                lines.get('MIME shape', ''), corpus.shapes)
    check_table(tap, 'transfer encoding', tables.get('transfer encoding', []),
                lines.get('transfer encoding', ''), corpus.ctes)
    check_table(tap, 'text charset', tables.get('charset (text parts)', []),
                lines.get('charset (text parts)', ''), corpus.charsets)
    check_table(tap, 'RFC 2047 charset', tables.get('charset (RFC 2047', []),
                lines.get('charset (RFC 2047', ''), corpus.ew_charsets)
    languages = tables.get('language', [])
    tap.check(sum(count for _, count, _ in languages) == n and
              all(pct == share(count, n) for _, count, pct in languages),
              '--stats languages count every message once', str(languages))

    threads = corpus.thread_sizes.values()
    want = (f'threads: {len(threads)}, mean {n / len(threads):.2f} messages, largest '
            f'{max(threads)}, replies {share(corpus.replies, n)}% of messages')
    tap.check(lines.get('threads') == want, '--stats threads, mean size, largest, replies',
              f'stats: {lines.get("threads")}\nfiles: {want}')
    buckets = collections.Counter()
    for size in threads:
        buckets[next(label for label, top in THREAD_BUCKETS if size <= top)] += 1
    got = [(label.split()[0], count) for label, count, _ in tables.get('threads', [])]
    tap.check(got == [(label, buckets[label]) for label, _ in THREAD_BUCKETS],
              '--stats thread size buckets', f'stats: {got}\nfiles: {sorted(buckets.items())}')

    want = (f'attachments: {len(corpus.attachment_sizes)} in {corpus.with_attachments} messages '
            f'({share(corpus.with_attachments, n)}%), {corpus.non_ascii_names} with non-ASCII '
            f'names; {corpus.inline_images} inline images')
    tap.check(lines.get('attachments') == want,
              '--stats attachments, messages with them, non-ASCII names, inline images',
              f'stats: {lines.get("attachments")}\nfiles: {want}')
    want = distribution_line('attachment size', corpus.attachment_sizes)
    tap.check(lines.get('attachment size') == want,
              '--stats attachment size distribution is that of the files',
              f'stats: {lines.get("attachment size")}\nfiles: {want}')

    dry = run(binary, corpus_args(SEED, STATS_COUNT, None, '-', stats=True), cwd=tmp)
    leftovers = sorted(set(os.listdir(tmp)) - {'stats'})
    tap.check(dry.returncode == 0 and dry.stdout == r.stderr and dry.stderr == b'' and
              not leftovers, '--out - --stats: the same report on stdout, nothing on stderr, '
              'no file written', f'exit {dry.returncode}, files {leftovers}, '
              f'stderr {dry.stderr[:200]!r}')


def check_small_counts(tap, binary, tmp):
    """Count 0 writes empty containers (its --stats report: check_found);
    count 1 has every percentile equal to its one size."""
    empty = {'eml': [], 'maildir': ['cur', 'new', 'tmp']}
    for fmt in ('eml', 'maildir', 'mbox'):
        path = os.path.join(tmp, f'zero-{fmt}')
        r = run(binary, corpus_args(1, 0, fmt, path))
        if fmt == 'mbox':
            ok = os.path.isfile(path) and os.path.getsize(path) == 0
        else:
            ok = sorted(os.listdir(path)) == empty[fmt] and not tree(path)
        tap.check(r.returncode == 0 and r.stderr == b'' and ok,
                  f'--count 0 --format {fmt}: exit 0, an empty {fmt}', r.stderr[:300])
    # Seeds whose first message has an attachment (count 0: check_found).
    for seed in (2, 1):
        path = os.path.join(tmp, f'one-{seed}')
        r = run(binary, corpus_args(seed, 1, 'mbox', path, stats=True))
        size = len(split_mbox(tree(path)[''])[0][1])
        lines, _ = parse_stats(r.stderr.decode())
        want = distribution_line('message size', [size])
        tap.check(r.returncode == 0 and lines.get('message size') == want,
                  f'--count 1 --seed {seed}: every percentile is the one size, {size}',
                  f'stats: {lines.get("message size")}\nfile: {want}')


def usage_cases(binary, out):
    """(name, args, exit status, stderr pattern); out must stay uncreated.
    getopt names the program by its argv[0], the path given here."""
    base = ['--seed', '1', '--count', '1', '--format', 'eml', '--out', out]

    def without(option):
        i = base.index(option)
        return base[:i] + base[i + 2:]

    def with_value(option, value):
        i = base.index(option)
        return base[:i + 1] + [value] + base[i + 2:]

    getopt = r'\A' + re.escape(binary) + ': '
    usage = r'usage: mkcorpus --seed N --count N --format maildir\|mbox\|eml --out PATH\n'
    number = r'\Amkcorpus: {} needs a non-negative integer, not "{}"\n\Z'
    return [
        ('no arguments', [], 2, r'\A' + usage),
        ('no --seed', without('--seed'), 2, r'\A' + usage),
        ('no --count', without('--count'), 2, r'\A' + usage),
        ('no --out', without('--out'), 2, r'\A' + usage),
        ('no --format with a path', without('--format'), 2, r'\A' + usage),
        ('an extra argument', base + ['extra'], 2, r'\A' + usage),
        ('an unknown option', base + ['--bogus'], 2,
         getopt + r"unrecognized option '--bogus'\n" + usage),
        ('a short option', ['-s', '1'] + base, 2, getopt + r"invalid option -- 's'\n" + usage),
        ('--count without its value', base + ['--count'], 2,
         getopt + r"option '--count' requires an argument\n" + usage),
        ('--stats with a value', base + ['--stats=yes'], 2,
         getopt + r"option '--stats' doesn't allow an argument\n" + usage),
        ('--seed with trailing junk', with_value('--seed', '12x'), 1,
         number.format('--seed', '12x')),
        ('--seed past 2^64-1', with_value('--seed', '18446744073709551616'), 1,
         number.format('--seed', '18446744073709551616')),
        ('--count negative', with_value('--count', '-3'), 1, number.format('--count', '-3')),
        ('--count empty', with_value('--count', ''), 1, number.format('--count', '')),
        ('--count in hex', with_value('--count', '0x10'), 1, number.format('--count', '0x10')),
        ('--max-size with a unit', base + ['--max-size', '16384k'], 1,
         number.format('--max-size', '16384k')),
        ('--max-size below 16384', base + ['--max-size', '16383'], 1,
         r'\Amkcorpus: --max-size must be at least 16384\n\Z'),
        ('an unknown --format', with_value('--format', 'json'), 1,
         r'\Amkcorpus: --format must be maildir, mbox or eml, not "json"\n\Z'),
    ]


def check_usage(tap, binary, tmp):
    help_run = run(binary, ['--help'])
    tap.check(help_run.returncode == 0 and help_run.stderr == b'' and
              help_run.stdout.startswith(b'usage: mkcorpus --seed N') and
              b'(default 10485760, at least 16384)' in help_run.stdout,
              '--help: usage with the size limits on stdout, exit 0', help_run.stdout[:300])
    out = os.path.join(tmp, 'never')
    for name, args, status, pattern in usage_cases(binary, out):
        r = run(binary, args, cwd=tmp)
        err = r.stderr.decode(errors='replace')
        tap.check(r.returncode == status and re.search(pattern, err) and r.stdout == b'' and
                  not os.path.exists(out),
                  f'{name}: exit {status} and its message, nothing written',
                  f'exit {r.returncode}\n{err[:400]}')
    # The largest seed is valid and reported as given.
    # 5 messages, so that one has an attachment.
    r = run(binary, corpus_args(2**64 - 1, 5, None, '-', stats=True))
    tap.check(r.returncode == 0 and r.stdout.startswith(
        b'mkcorpus statistics: seed 18446744073709551615, 5 messages'), '--seed 2^64-1 is valid',
        r.stdout[:200] + r.stderr[:200])
    # --out - wins over --format: a dry run, no file called '-'.
    r = run(binary, corpus_args(1, 3, 'mbox', '-'), cwd=tmp)
    tap.check(r.returncode == 0 and r.stdout == r.stderr == b'' and
              not os.path.exists(os.path.join(tmp, '-')),
              '--format mbox --out -: writes nothing and prints nothing', r.stderr[:300])


def expect_failure(tap, binary, name, args, message):
    r = run(binary, args)
    tap.check(r.returncode == 1 and r.stderr.decode(errors='replace') == message + '\n',
              f'{name}: exit 1, "{message}"', f'exit {r.returncode}\n{r.stderr[:400]!r}')


def check_write_errors(tap, binary, tmp):
    missing = os.path.join(tmp, 'missing', 'corpus')
    expect_failure(tap, binary, 'eml under a missing directory',
                   corpus_args(1, 1, 'eml', missing),
                   f'mkcorpus: cannot create directory {missing}: No such file or directory')
    expect_failure(tap, binary, 'mbox under a missing directory',
                   corpus_args(1, 1, 'mbox', missing),
                   f'mkcorpus: cannot create {missing}: No such file or directory')
    expect_failure(tap, binary, 'maildir on a device', corpus_args(1, 1, 'maildir', '/dev/full'),
                   'mkcorpus: cannot create directory /dev/full/tmp: Not a directory')
    expect_failure(tap, binary, 'eml on a device', corpus_args(1, 1, 'eml', '/dev/full'),
                   'mkcorpus: cannot create /dev/full/000001.eml: Not a directory')
    # Seed 4's one message (3303 bytes) fits the stdio buffer, so only
    # fclose sees the full device; seed 1's first (over 16 KiB) fails fwrite.
    for seed, count in ((4, 1), (1, 40)):
        expect_failure(tap, binary, f'mbox on /dev/full, {count} message(s)',
                       corpus_args(seed, count, 'mbox', '/dev/full'),
                       'mkcorpus: cannot write /dev/full: No space left on device')

    eml = os.path.join(tmp, 'full-eml')
    os.mkdir(eml)
    os.symlink('/dev/full', os.path.join(eml, '000001.eml'))
    expect_failure(tap, binary, 'an .eml file on /dev/full', corpus_args(4, 1, 'eml', eml),
                   f'mkcorpus: cannot write {eml}/000001.eml: No space left on device')

    # Maildir names are known only after a first run: then the same message
    # meets /dev/full in tmp/, or a directory where it is to be renamed.
    first = os.path.join(tmp, 'maildir-first')
    run(binary, corpus_args(4, 1, 'maildir', first)).check_returncode()
    (name,) = tree(first)
    base = os.path.basename(name).split(':')[0]
    full = os.path.join(tmp, 'maildir-full')
    for sub in ('', 'tmp', 'new', 'cur'):
        os.mkdir(os.path.join(full, sub))
    os.symlink('/dev/full', os.path.join(full, 'tmp', base))
    expect_failure(tap, binary, 'a Maildir file on /dev/full', corpus_args(4, 1, 'maildir', full),
                   f'mkcorpus: cannot write {full}/tmp/{base}: No space left on device')
    blocked = os.path.join(tmp, 'maildir-blocked')
    os.makedirs(os.path.join(blocked, name, 'keep'))
    expect_failure(tap, binary, 'a Maildir rename onto a directory',
                   corpus_args(4, 1, 'maildir', blocked),
                   f'mkcorpus: cannot move {blocked}/tmp/{base} into place: Is a directory')


# Faults this script found, each fixed with it.
def check_found(tap, binary, tmp):
    # strtoull skips leading blanks and negates "-1", and parse_number only
    # rejects a '-' in the first byte: " -1" becomes 2^64-1 messages.
    try:
        r = run(binary, ['--seed', '1', '--count', ' -1', '--out', '-'], timeout=10)
        status, err = r.returncode, r.stderr.decode()
    except subprocess.TimeoutExpired:
        status, err = None, 'still running after 10 s'
    tap.check(status == 1 and err == 'mkcorpus: --count needs a non-negative integer, not " -1"\n',
              '--count " -1" is rejected', f'exit {status}: {err}')
    # print_distribution passes qsort a NULL list when it is empty (no
    # message, or no attachment): undefined behaviour, which
    # -fsanitize=undefined reports and stops at (exit 1); gcc builds pass.
    r = run(binary, corpus_args(1, 0, None, '-', stats=True))
    lines, tables = parse_stats(r.stdout.decode())
    zero = distribution_line('message size', [])
    tap.check(r.returncode == 0 and
              lines.get('mkcorpus statistics', '').endswith('0 messages, 0 bytes (CRLF form)') and
              lines.get('message size') == zero and not tables.get('size histogram') and
              lines.get('threads') == 'threads: 0, mean 0.00 messages, largest 0, replies 0.00% '
              'of messages' and
              lines.get('attachment size') == distribution_line('attachment size', []) and
              lines.get('charset fallbacks') == 'charset fallbacks to utf-8: 0; messages shrunk '
              'to fit --max-size: 0', '--count 0 --stats: an all-zero report (no qsort of NULL under UBSan)',
              (r.stdout + r.stderr)[:2000])
    # The report on stdout is never checked for a write error.
    with open('/dev/full', 'wb') as full:
        r = subprocess.run([binary] + corpus_args(1, 3, None, '-', stats=True), stdout=full,
                           stderr=subprocess.PIPE, timeout=TIMEOUT)
    tap.check(r.returncode == 1 and b'No space left on device' in r.stderr,
              '--out - --stats to /dev/full fails with exit 1',
              f'exit {r.returncode}, stderr {r.stderr!r}')
    # A 7bit, 8bit or quoted-printable attachment whose bytes end in CRLF
    # needs a line break more: the one before a boundary belongs to the
    # delimiter (RFC 2046 5.1.1), and the file held 2 bytes fewer than
    # --stats said.
    path = os.path.join(tmp, 'attachments')
    r = run(binary, corpus_args(SEED, STATS_COUNT, 'eml', path, stats=True))
    files = tree(path)
    corpus = Corpus([files[n] for n in sorted(files)])
    lines, _ = parse_stats(r.stderr.decode())
    want = distribution_line('attachment size', corpus.attachment_sizes)
    tap.check(lines.get('attachment size') == want,
              '--stats attachment size distribution is that of the files, corpus of 300',
              f'stats: {lines.get("attachment size")}\nfiles: {want}')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    tap = corvid_tap.Tap(tap_version=True, diag_lines=20)
    with tempfile.TemporaryDirectory(prefix='test_mkcorpus.') as tmp:
        for name, step in (('formats', check_formats), ('max-size', check_max_size),
                           ('stats', check_stats), ('small-counts', check_small_counts),
                           ('usage', check_usage), ('write-errors', check_write_errors),
                           ('found', check_found)):
            work = os.path.join(tmp, name)
            os.mkdir(work)
            step(tap, binary, work)
    sys.exit(tap.done())


if __name__ == '__main__':
    main()
