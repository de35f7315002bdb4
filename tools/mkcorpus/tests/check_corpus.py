#!/usr/bin/env python3
"""Checks mkcorpus output with Python's email package (standard library only).

usage: check_corpus.py determinism|corpus MKCORPUS   (prints TAP)
       check_corpus.py directory DIR                 (an existing .eml corpus)

determinism  the same seed and count give identical bytes in every format, a
             different seed gives different bytes, a shorter corpus is a prefix
             of a longer one, and the mbox and Maildir hold exactly the .eml
             messages
corpus       every message of a 2000-message corpus parses with
             email.policy.default without a single defect, in any part or
             header (message/rfc822 parts included); every text part decodes
             strictly in its declared charset; line lengths, line ends, encoded
             words and encodings are canonical; and the corpus contains every
             required MIME shape, transfer encoding, charset and header
             feature, with words that follow a Zipf law

directory    the checks of `corpus` on a directory of .eml files made earlier,
             e.g. a full-size corpus without --max-size

The corpus is parsed once, in as many processes as there are CPUs (at most 4).
"""
import collections
import concurrent.futures
import email
import email.policy
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tests', 'scripts'))
import corvid_tap  # noqa: E402

SEED = 7
COUNT = 2000
DETERMINISM_COUNT = 300

ENCODED_WORD = re.compile(r'=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=')
BASE64_LINE = re.compile(rb'^[A-Za-z0-9+/]*={0,2}$')
QP_LINE = re.compile(rb'^(?:[\x21-\x3c\x3e-\x7e\t ]|=[0-9A-F]{2})*=?$')
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")

REQUIRED_CHARSETS = ['utf-8', 'us-ascii', 'iso-8859-1', 'iso-8859-15', 'windows-1252',
                     'koi8-r', 'iso-2022-jp', 'shift_jis', 'gb2312', 'gbk']
REQUIRED_CTES = ['7bit', '8bit', 'quoted-printable', 'base64']


class Tap(corvid_tap.Tap):
    """corvid_tap.Tap with this script's check(name, ok, detail) and finish()."""

    def __init__(self):
        super().__init__(tap_version=True, diag_lines=20)

    def check(self, name, ok, detail=''):
        super().check(ok, name, detail)
        # A passing check shows its detail too: the counts the corpus was judged on.
        if ok and detail:
            self.note(detail)

    def finish(self):
        return self.done()


def run_mkcorpus(binary, seed, count, fmt, out, max_size=None, stats=False):
    cmd = [binary, '--seed', str(seed), '--count', str(count), '--format', fmt, '--out', out]
    if max_size:
        cmd += ['--max-size', str(max_size)]
    if stats:
        cmd.append('--stats')
    return subprocess.run(cmd, check=True, capture_output=True).stderr.decode()


def tree(root):
    """Relative path -> bytes for every file under root (or the file itself)."""
    if os.path.isfile(root):
        with open(root, 'rb') as f:
            return {'': f.read()}
    files = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, 'rb') as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def read_mbox(data):
    """Splits an mboxrd file into messages in canonical CRLF form."""
    messages, current = [], None
    lines = data.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    for line in lines:
        if line.startswith(b'From '):
            if current is not None:
                messages.append(current)
            current = []
            continue
        if re.match(rb'^>+From ', line):
            line = line[1:]
        current.append(line)
    if current is not None:
        messages.append(current)
    # Each message is followed by one empty separator line.
    return [b'\r\n'.join(m[:-1]) + b'\r\n' for m in messages]


def determinism(binary):
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        out = {}
        for fmt in ('eml', 'maildir', 'mbox'):
            for run in ('a', 'b'):
                path = os.path.join(tmp, f'{fmt}-{run}')
                run_mkcorpus(binary, SEED, DETERMINISM_COUNT, fmt, path, max_size=1000000)
                out[fmt, run] = tree(path)
            same = out[fmt, 'a'] == out[fmt, 'b']
            tap.check(f'{fmt}: two runs with seed {SEED} give identical bytes', same)
        eml = out['eml', 'a']
        tap.check(f'eml: {DETERMINISM_COUNT} files', len(eml) == DETERMINISM_COUNT, len(eml))

        other = os.path.join(tmp, 'other-seed')
        run_mkcorpus(binary, SEED + 1, DETERMINISM_COUNT, 'eml', other, max_size=1000000)
        other_eml = tree(other)
        differing = sum(other_eml.get(k) != v for k, v in eml.items())
        tap.check('a different seed gives different messages',
                  differing > DETERMINISM_COUNT * 0.99, f'{differing} differ')

        short = os.path.join(tmp, 'short')
        run_mkcorpus(binary, SEED, DETERMINISM_COUNT // 2, 'eml', short, max_size=1000000)
        prefix = tree(short)
        tap.check('a shorter corpus is a prefix of a longer one',
                  prefix == {k: eml[k] for k in prefix} and len(prefix) == DETERMINISM_COUNT // 2)

        tap.check('every message respects --max-size 1000000',
                  max(len(m) for m in eml.values()) <= 1000000)
        small = os.path.join(tmp, 'small')
        run_mkcorpus(binary, SEED, DETERMINISM_COUNT, 'eml', small, max_size=16384)
        largest = max(len(m) for m in tree(small).values())
        tap.check('every message respects the smallest --max-size, 16384', largest <= 16384,
                  f'largest {largest}')

        mbox = out['mbox', 'a']['']
        from_lines = sum(1 for m in eml.values() for line in m.split(b'\r\n')
                         if re.match(rb'^>*From ', line))
        tap.check('mbox has LF line ends only', b'\r' not in mbox)
        tap.check('mboxrd unquoting gives back exactly the .eml messages',
                  read_mbox(mbox) == [eml[k] for k in sorted(eml)],
                  f'{from_lines} body lines needed quoting')

        maildir = out['maildir', 'a']
        names = sorted(maildir)
        pattern = re.compile(r'^(cur|new)/\d+\.M\d+P\d+\.mkcorpus,S=(\d+)(:2,([A-Z]*))?$')
        bad = [n for n in names if not pattern.match(n)]
        tap.check('maildir: names follow time.unique.host,S=size[:2,flags] in cur/ and new/',
                  not bad and len(names) == DETERMINISM_COUNT, ' '.join(bad[:5]))
        flags_ok = all(m.group(2) == str(len(maildir[n])) and
                       (n.startswith('new/') == (m.group(3) is None)) and
                       list(m.group(4) or '') == sorted(m.group(4) or '')
                       for n in names for m in [pattern.match(n)] if m)
        tap.check('maildir: S= is the file size, flags are sorted, new/ has none', flags_ok)
        tap.check('maildir: tmp/ is empty and both cur/ and new/ are used',
                  os.listdir(os.path.join(tmp, 'maildir-a', 'tmp')) == [] and
                  any(n.startswith('new/') for n in names) and
                  any(n.startswith('cur/') for n in names))
        tap.check('maildir and .eml hold the same messages',
                  sorted(maildir.values()) == sorted(eml.values()))
    return tap.finish()


def raw_header_lines(part):
    for name, value in part.raw_items():
        yield from f'{name}: {value}'.replace('\r\n', '\n').split('\n')


def check_leaf(part, problems, counts):
    """Decodes one non-multipart part and checks its raw encoded lines."""
    cte = part.get('content-transfer-encoding', '7bit').lower()
    # The undecoded payload as parsed: get_payload() would already convert
    # 8bit text from its charset.
    raw = part._payload
    raw_bytes = raw.encode('ascii', 'surrogateescape') if isinstance(raw, str) else b''
    lines = raw_bytes.split(b'\r\n')
    if cte == 'base64':
        if any(len(l) > 76 or not BASE64_LINE.match(l) for l in lines):
            problems['base64 line over 76 characters or not base64'] += 1
    elif cte == 'quoted-printable':
        if any(len(l) > 76 or not QP_LINE.match(l) for l in lines):
            problems['quoted-printable line over 76 characters or malformed'] += 1
    elif cte == '7bit' and any(b > 127 for b in raw_bytes):
        problems['8-bit byte in a 7bit part'] += 1
    data = part.get_payload(decode=True)
    if part.get_content_maintype() == 'text':
        charset = part.get_content_charset() or 'us-ascii'
        try:
            text = data.decode(charset, 'strict')
            if '\ufffd' in text:
                problems['replacement character in text'] += 1
            counts['text bytes decoded'] += len(data)
        except (UnicodeDecodeError, LookupError) as e:
            problems[f'text part does not decode as {charset}: {e.reason if hasattr(e, "reason") else e}'] += 1


def check_message(path):
    """Returns (problems, counts, features, words) for one file."""
    problems, counts = collections.Counter(), collections.Counter()
    features, words = collections.Counter(), collections.Counter()
    with open(path, 'rb') as f:
        data = f.read()
    if b'\n' in data.replace(b'\r\n', b'') or b'\r' in data.replace(b'\r\n', b''):
        problems['bare CR or LF'] += 1
    if any(len(line) > 998 for line in data.split(b'\r\n')):
        problems['line over 998 octets'] += 1
    msg = email.message_from_bytes(data, policy=email.policy.default)
    for part in msg.walk():
        for name, value in part.items():
            for d in value.defects:
                problems[f'header {name}: {type(d).__name__}: {d}'] += 1
        for line in raw_header_lines(part):
            if len(line) > 998:
                problems['header line over 998 octets'] += 1
            if len(line) > 78:
                counts['header lines over 78'] += 1
            counts['header lines'] += 1
        for _, value in part.raw_items():
            for ew in ENCODED_WORD.findall(value):
                if len(ew) > 75:
                    problems['encoded word over 75 characters'] += 1
        if not part.is_multipart():
            check_leaf(part, problems, counts)
        # After decoding, which may add defects of its own.
        for d in part.defects:
            problems[f'{part.get_content_type()}: {type(d).__name__}: {d}'] += 1
        describe(part, features, words)
    counts['messages'] += 1
    counts['bytes'] += len(data)
    return problems, counts, features, words


def describe(part, features, words):
    """Counts the features the mix test requires."""
    ctype = part.get_content_type()
    features[f'type {ctype}'] += 1
    if not part.is_multipart():
        features[f"cte {part.get('content-transfer-encoding', '7bit').lower()}"] += 1
    if part.get_content_maintype() == 'text' and part.get_param('charset'):
        features[f'charset {part.get_content_charset()}'] += 1
    if ctype == 'multipart/signed':
        features[f"signed {part.get_param('protocol')}"] += 1
    if ctype == 'multipart/alternative':
        kinds = [p.get_content_type() for p in part.iter_parts()]
        if 'text/plain' in kinds and ('text/html' in kinds or 'multipart/related' in kinds):
            features['alternative plain+html'] += 1
    if ctype == 'multipart/related':
        if any(p.get_content_maintype() == 'image' and p.get('content-id')
               for p in part.iter_parts()):
            features['related with inline image'] += 1
    if part.get_content_disposition() == 'attachment' and part.get('content-transfer-encoding', '').lower() == 'base64':
        features['base64 attachment'] += 1
    for name, value in part.raw_items():
        lname = name.lower()
        if '\n' in value:
            features['folded header'] += 1
        if ENCODED_WORD.search(value) and lname in ('subject', 'from', 'to'):
            features[f'rfc2047 {lname}'] += 1
        if lname in ('content-type', 'content-disposition'):
            if re.search(r'\*0\*=', value):
                features['rfc2231 continued extended'] += 1
            if re.search(r'\*0=', value):
                features['rfc2231 continued ascii'] += 1
            if re.search(r"\*=[\w-]+'[\w-]*'", value):
                features['rfc2231 extended'] += 1
        if lname.startswith('list-'):
            features['list headers'] += 1
    if part.get_all('received') and len(part.get_all('received')) >= 2:
        features['received chain'] += 1
    if part.get('in-reply-to') and part.get('references'):
        features['threaded reply'] += 1
    subject = part.get('subject')
    if subject:
        s = str(subject)
        if re.match(r'^(Re|RE|AW|RE :|回复): ', s):
            features['reply subject'] += 1
        if re.match(r'^(Fwd|FW|WG|TR :|RV|转发): ', s):
            features['forward subject'] += 1
    if ctype == 'text/plain' and part.get_content_disposition() is None:
        try:
            for w in WORD.findall(part.get_content()):
                words[w.lower()] += 1
        except (LookupError, UnicodeError):
            pass


def merge(results):
    problems, counts = collections.Counter(), collections.Counter()
    features, words = collections.Counter(), collections.Counter()
    for p, c, f, w in results:
        problems.update(p)
        counts.update(c)
        features.update(f)
        words.update(w)
    return problems, counts, features, words


def check_corpus(directory):
    paths = sorted(os.path.join(directory, n) for n in os.listdir(directory))
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return merge(pool.map(check_message, paths, chunksize=32))


def zipf_slope(words):
    """Least-squares slope of log frequency over log rank, ranks 10-2000."""
    freqs = [c for _, c in words.most_common(2000)][9:]
    xs = [math.log(r) for r in range(10, 10 + len(freqs))]
    ys = [math.log(f) for f in freqs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
            sum((x - mx) ** 2 for x in xs))


def check_defects(tap, problems, counts, expected):
    tap.check(f'{expected} messages parsed', counts['messages'] == expected,
              f"{counts['messages']} messages, {counts['bytes']} bytes")

    def none_of(prefixes, name):
        found = {k: v for k, v in problems.items() if k.startswith(prefixes)}
        tap.check(name, not found, '\n'.join(f'{v} x {k}' for k, v in found.items()))

    none_of(('header ',), 'no defects in any header field of any part')
    none_of(('text/', 'multipart/', 'message/', 'application/', 'image/'),
            'no defects in any part')
    none_of(('text part does not decode', 'replacement character'),
            'every text part decodes strictly in its declared charset')
    none_of(('base64 line',), 'base64 lines are at most 76 characters of the alphabet')
    none_of(('quoted-printable line',), 'quoted-printable lines are well formed, at most 76')
    none_of(('8-bit byte in a 7bit part',), '7bit parts hold 7-bit data')
    none_of(('bare CR or LF',), 'every line ends in CRLF')
    none_of(('line over 998', 'header line over 998'), 'no line is over 998 octets')
    none_of(('encoded word over 75',), 'encoded words are at most 75 characters')
    long_lines = counts['header lines over 78']
    tap.check('header lines are folded at 78 columns (at most 0.5% longer)',
              long_lines <= counts['header lines'] * 0.005,
              f"{long_lines} of {counts['header lines']} header lines are longer")


def check_mix(tap, features, words):
    shapes = {
        'text/plain': 'type text/plain', 'text/html': 'type text/html',
        'multipart/alternative text+HTML': 'alternative plain+html',
        'multipart/mixed': 'type multipart/mixed',
        'base64 attachments': 'base64 attachment',
        'multipart/related with inline images': 'related with inline image',
        'message/rfc822': 'type message/rfc822',
        'multipart/signed (OpenPGP)': 'signed application/pgp-signature',
        'multipart/signed (S/MIME)': 'signed application/pkcs7-signature',
    }
    for label, key in shapes.items():
        tap.check(f'shape {label}: {features[key]}', features[key] > 0)
    for cte in REQUIRED_CTES:
        tap.check(f'transfer encoding {cte}: {features["cte " + cte]}', features['cte ' + cte] > 0)
    for cs in REQUIRED_CHARSETS:
        tap.check(f'charset {cs}: {features["charset " + cs]}', features['charset ' + cs] > 0)
    header_features = ['rfc2047 subject', 'rfc2047 from', 'rfc2047 to', 'rfc2231 extended',
                       'rfc2231 continued extended', 'rfc2231 continued ascii', 'folded header',
                       'received chain', 'list headers', 'threaded reply', 'reply subject',
                       'forward subject']
    for key in header_features:
        tap.check(f'{key}: {features[key]}', features[key] > 0)
    slope = zipf_slope(words)
    tap.check(f'word frequencies follow a Zipf law (slope {slope:.2f} over ranks 10-2000)',
              -1.4 < slope < -0.8, f'{len(words)} distinct words')


def check_stats(tap, stats, counts):
    """--stats against the files written: the byte total, and every
    distribution over messages adding up to the message count."""
    m = re.search(r'(\d+) messages, (\d+) bytes', stats)
    tap.check('--stats counts exactly the bytes of the files written',
              m is not None and int(m.group(2)) == counts['bytes'],
              f"stats: {m.group(0) if m else 'none'}; files: {counts['bytes']} bytes")
    sections, current = collections.defaultdict(int), None
    for line in stats.splitlines():
        if not line.startswith('  '):
            current = line.split(' (')[0].rstrip(':')
        elif current is not None:
            n = re.match(r'\s+\S.*?\s(\d+)\s+\d+\.\d+%', line)
            if n:
                sections[current] += int(n.group(1))
    for name in ('size histogram', 'MIME shape', 'language'):
        tap.check(f'--stats {name} counts every message once',
                  sections.get(name) == counts['messages'],
                  f'{name}: {sections.get(name)} of {counts["messages"]}')


def corpus(binary):
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'eml')
        stats = run_mkcorpus(binary, SEED, COUNT, 'eml', out, max_size=2000000, stats=True)
        problems, counts, features, words = check_corpus(out)
        dry = subprocess.run([binary, '--seed', str(SEED), '--count', '50', '--out', '-',
                              '--stats'], check=True, capture_output=True)
    check_defects(tap, problems, counts, COUNT)
    tap.check('--stats reports the corpus', f'seed {SEED}, {COUNT} messages' in stats,
              stats.splitlines()[0] if stats else 'no output')
    check_stats(tap, stats, counts)
    tap.check('--out - writes the statistics to stdout', b'50 messages' in dry.stdout)
    check_mix(tap, features, words)
    return tap.finish()


def directory(path):
    tap = Tap()
    expected = len(os.listdir(path))
    problems, counts, features, words = check_corpus(path)
    check_defects(tap, problems, counts, expected)
    check_mix(tap, features, words)
    return tap.finish()


def main():
    modes = {'determinism': determinism, 'corpus': corpus, 'directory': directory}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    return modes[sys.argv[1]](sys.argv[2])


if __name__ == '__main__':
    sys.exit(main())
